"""Request bodies: one declaration per body is both what the view accepts and what the
OpenAPI schema says it accepts. The declaration is a DRF serializer of the fields below
(HackSoft's Input serializer), so drf-spectacular reads it as it reads any serializer;
``parsed(AskIn, request)`` checks the body with those same fields and returns their values,
or raises the API's refusal. What a value means (a name's rules, a rank in the hand) stays
with the services.

The fields take JSON types exactly, as the API always has: a bool is not an int and 7 is
not "7" (DRF's own fields convert both), a string is kept as sent (no trimming, no refusal
of a NUL character or of "": the services judge names, passwords and codes by their rules).

The codes of a malformed body: ``bad_json`` (the parser, config/parsers.py),
``bad_request`` (not a JSON object), ``missing_field``, ``wrong_type``, or the code a
field names for a value outside its choices (``Choice(..., outside="bad_move")``).

Why ``parsed`` runs the fields itself rather than ``Input(data=...).is_valid()``: a
serializer instance deep-copies and binds its fields for every request. Measured on the
ask, the hot path (CPU per call, one process, interleaved blocks): the old hand check
0.5 µs, the ask's serializer 50 µs (28 µs with its fields copied shallowly), its fields run
by ``parsed`` 1.1 µs; the whole token ask x1.045 through the serializer against the hand
check, x1.011 through ``parsed`` (12 blocks of 300, bench.ask_cpu's client). So an Input
declares fields only: no ``validate()`` or ``validate_<field>`` (they would not run; the
class refuses them), no other kind of field.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from config.errors import ApiError

# DRF's code for a null, in the API's words; the fields below raise the API's own codes
# otherwise.
_CODES = {"null": "wrong_type"}


class Input(serializers.Serializer):
    """A request body: its fields, each checked by ``parsed`` in declaration order."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        checks = [name for name in vars(cls) if name == "validate" or name.startswith("validate_")]
        if checks:
            raise TypeError(f"{cls.__name__}.{checks[0]}: an Input's fields check themselves (config/inputs.py)")
        for name, field in cls._declared_fields.items():
            if not isinstance(field, (Text, Whole, Choice, Json)):
                raise TypeError(f"{cls.__name__}.{name}: an Input's field is a Text, Whole, Choice or Json")

    # Never partial, PATCH included: drf-spectacular marks a PATCH body partial by setting
    # this attribute, and the schema would then drop every `required` that the check
    # enforces (and call the body `Patched…`).
    @property
    def partial(self) -> bool:
        return False

    @partial.setter
    def partial(self, value: bool) -> None:
        pass  # DRF's __init__ and drf-spectacular set it; a body is never partial


class Text(serializers.CharField):
    """A JSON string, exactly as sent."""

    default_error_messages = {"null": "must be a string", "wrong_type": "must be a string"}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(trim_whitespace=False, allow_blank=True, **kwargs)
        # DRF refuses NUL and surrogate characters; the services always judged them.
        self.validators = []

    def to_internal_value(self, data: Any) -> str:
        if type(data) is not str:
            self.fail("wrong_type")
        return data


class Whole(serializers.IntegerField):
    """A JSON integer (not a bool, a float or a string of digits), of any size."""

    default_error_messages = {"null": "must be an integer", "wrong_type": "must be an integer"}

    def to_internal_value(self, data: Any) -> int:
        if type(data) is not int:
            self.fail("wrong_type")
        return data


class Choice(serializers.ChoiceField):
    """A JSON string among ``choices``; another string is refused with the code ``outside``
    (the one the engine uses for it, so the answer is the same whoever checks first)."""

    default_error_messages = {"null": "must be a string", "wrong_type": "must be a string"}

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


class Json(serializers.JSONField):
    """Any JSON value, null included: its meaning is the engine's to judge."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_null=True, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        # The parser built it from JSON: nothing to convert or re-encode.
        return data


def parsed(body: type[Input], request: Any) -> dict[str, Any]:
    """The request's JSON object checked by ``body``'s fields: their values only (other
    keys are ignored; a field declared ``required=False`` and absent is left out), or the
    refusal of the first field that is wrong, in declaration order. Nothing has happened
    yet when it refuses."""
    data = request.data
    if not isinstance(data, dict):
        raise ApiError("bad_request", "the body must be a JSON object")
    checked = {}
    for name, field in body._declared_fields.items():
        if name not in data:
            if not field.required:
                continue
            raise ApiError("missing_field", f"'{name}' is required")
        try:
            checked[name] = field.run_validation(data[name])
        except ValidationError as refused:
            problem = refused.detail[0] if isinstance(refused.detail, list) else refused.detail
            code = getattr(problem, "code", "bad_request")
            raise ApiError(_CODES.get(code, code), f"'{name}' {problem}") from None
    return checked
