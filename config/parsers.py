"""The API's one JSON parser: any body it cannot turn into a value is a ``ParseError``
(rendered ``400 {"error": "bad_json"}`` by config/errors.py), never an exception that
escapes as a 500; a string holding a lone surrogate (``"\ud800x"``: valid JSON, not text)
is ``400 {"error": "bad_text"}``.

The standard library's decoder recurses once per nesting level, so ``[[[[…]]]]`` a few
thousand deep (well inside the 16 KiB body limit) raised ``RecursionError``. The depth is
measured first, in one linear pass that never recurses, and anything deeper than
``MAX_DEPTH`` is refused before the decoder sees it. The API's bodies are flat objects.
"""

from __future__ import annotations

import codecs
import json
import re

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32

# A \uD800-\uDFFF escape: JSON's only way to a lone surrogate (raw UTF-8 cannot encode one).
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")

# A string literal (escapes included; one left open runs to the end, so that every quote
# starts at most one scan: linear time whatever the bytes), or a bracket outside strings.
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*(?:"|\\?\Z)|[\[\]{}]', re.S)


def nesting_depth(raw: bytes) -> int:
    """The deepest level of arrays/objects in ``raw`` (brackets inside strings do not
    count). Unbalanced input gets some number; the decoder refuses it afterwards."""
    depth = deepest = 0
    for match in _TOKENS.finditer(raw):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in (b"]", b"}"):
            depth -= 1
    return deepest


class NotText(ParseError):
    """A body whose strings are not all Unicode text (config/errors.py reads its code)."""

    error_code = "bad_text"


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def loads(raw: bytes, encoding: str = "utf-8"):
    """``raw`` decoded as JSON, or ``ParseError`` whatever is wrong with it."""
    if nesting_depth(raw) > MAX_DEPTH:
        raise ParseError(f"JSON nested deeper than {MAX_DEPTH} levels")
    try:
        codecs.lookup(encoding)
        text = raw.decode(encoding)
        # NaN and Infinity are not JSON; numbers too long to convert are a ValueError.
        value = json.loads(text, parse_constant=_no_constant)
    except (LookupError, ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise ParseError(f"JSON parse error - {exc}") from None
    if _SURROGATE_ESCAPE.search(raw) and not _is_text(value):
        # A surrogate escape not paired into one character: not Unicode text. No name,
        # password or code may hold one (nothing could store, hash or show it).
        raise NotText("a string holds a lone surrogate (\\ud800-\\udfff): it is not Unicode text")
    return value


def _is_text(value) -> bool:
    """Every string in ``value`` (keys included) is Unicode text: no lone surrogate."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class SafeJSONParser(JSONParser):
    """DRF's JSONParser, bounded: see the module's docstring."""

    def parse(self, stream, media_type=None, parser_context=None):
        from django.conf import settings

        encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        raw = stream.read() if stream is not None else b""
        return loads(raw, encoding)
