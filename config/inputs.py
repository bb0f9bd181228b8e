"""Request bodies: one Input serializer per body (HackSoft's Input serializers) is both what
the view accepts and what the OpenAPI schema says it accepts (drf-spectacular reads the
same class). ``parsed(AskIn, request)`` returns the checked fields or raises the API's
refusal; what a value means (a name's rules, a rank in the hand) stays with the services.

The fields here take JSON types exactly, as the API always has: a bool is not an int and
7 is not "7" (DRF's own fields convert both), a string is kept as sent (no trimming: the
services normalize names and judge passwords), and "" reaches the service that refuses it
with its own code.

The codes of a malformed body: ``bad_json`` (the parser, config/parsers.py),
``bad_request`` (not a JSON object), ``missing_field``, ``wrong_type``, or the code a
field names for a value outside its choices (``Choice(..., outside="bad_move")``).

Cost, measured (bench.ask_cpu side by side, see docs/benchmarks.md): validating the ask's
body through a DRF serializer is ~40 µs of CPU, about 5 % of a token ask's request.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from rest_framework import serializers

from config.errors import ApiError

# DRF's codes for an absent field and a null, in the API's words; the fields below raise
# the API's own codes otherwise.
_CODES = {"required": "missing_field", "null": "wrong_type"}


class Input(serializers.Serializer):
    """A request body, checked whole. Never partial, PATCH included: drf-spectacular marks
    a PATCH body partial by setting this attribute, and the schema would then drop every
    ``required`` that the check enforces (and call the body ``Patched…``)."""

    @property
    def partial(self) -> bool:
        return False

    @partial.setter
    def partial(self, value: bool) -> None:
        pass  # DRF's __init__ and drf-spectacular set it; a body is never partial


class _Copied(serializers.Field):
    """Each serializer instance binds copies of its declared fields. DRF makes them by
    deep-copying every argument and running ``__init__`` again: 20 of the 50 µs that the
    ask's body check took (measured, one process). A shallow copy is the same field here:
    the arguments are strings and tuples, and what ``bind()`` sets lands on the copy alone."""

    def __deepcopy__(self, memo: Mapping[Any, Any]) -> serializers.Field:
        return copy.copy(self)


class Text(_Copied, serializers.CharField):
    """A JSON string, exactly as sent."""

    default_error_messages = {"required": "is required", "null": "must be a string", "wrong_type": "must be a string"}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(trim_whitespace=False, allow_blank=True, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        if type(data) is not str:
            self.fail("wrong_type")
        return data


class Whole(_Copied, serializers.IntegerField):
    """A JSON integer (not a bool, a float or a string of digits), of any size."""

    default_error_messages = {
        "required": "is required",
        "null": "must be an integer",
        "wrong_type": "must be an integer",
    }

    def to_internal_value(self, data: Any) -> int:
        if type(data) is not int:
            self.fail("wrong_type")
        return data


class Choice(_Copied, serializers.ChoiceField):
    """A JSON string among ``choices``; another string is refused with the code ``outside``
    (the one the engine uses for it, so the answer is the same whoever checks first)."""

    default_error_messages = {"required": "is required", "null": "must be a string", "wrong_type": "must be a string"}

    def __init__(self, choices: Sequence[str], *, outside: str, **kwargs: Any) -> None:
        super().__init__(choices=list(choices), **kwargs)
        self.outside = outside
        self.error_messages[outside] = "must be one of " + " ".join(choices)

    def to_internal_value(self, data: Any) -> str:
        if type(data) is not str:
            self.fail("wrong_type")
        if data not in self.choice_strings_to_values:
            self.fail(self.outside)
        return data


class Json(_Copied, serializers.JSONField):
    """Any JSON value, null included: its meaning is the engine's to judge."""

    default_error_messages = {"required": "is required"}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_null=True, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        # The parser built it from JSON: nothing to convert or re-encode.
        return data


def parsed(body: type[Input], request: Any) -> dict[str, Any]:
    """The request's JSON object checked by ``body``: its declared fields only (others are
    ignored), or the refusal of the first field that is wrong, in declaration order."""
    data = request.data
    if not isinstance(data, dict):
        raise ApiError("bad_request", "the body must be a JSON object")
    checked = body(data=data)
    if checked.is_valid():
        return checked.validated_data
    name, problems = next(iter(checked.errors.items()))
    problem = problems[0]
    raise ApiError(_CODES.get(problem.code, problem.code), f"'{name}' {problem}")
