"""The API's JSON renderer: DRF's, with its bytes written by orjson (C) where they come out
the same. A league's day board is 20 kB of JSON: the standard library's encoder took 0.2-0.3
ms of each of its requests, a tenth of them, and orjson 16 µs (docs/benchmarks.md,
"Leagues at scale").

The same bytes as DRF's JSONRenderer with the settings it runs with here (compact, UTF-8
unescaped, U+2028 and U+2029 escaped for JSON read as JavaScript): what orjson does not write
alike it hands to DRF's encoder (dates and times, decimals, lazy strings: its ``default``),
and what it refuses (keys other than strings, integers beyond 64 bits) is rendered by DRF
whole. An indented answer (``Accept: application/json; indent=4``) is DRF's. Differences
remain where no answer of this API goes (a review compared the two renderers' bytes over the
whole test suite: 7,970 of 7,972 alike, the two being tests/test_renderers.py's own): a float
may be written in another form of the same number (1e-05 as 0.00001); a NaN is null, an Enum
or a dataclass written, where DRF's encoder refuses them (a 500); a dict subclass is written
in its stored order, not its ``items()`` (an OrderedDict moved to its end, a QueryDict); and
a generator in an answer that falls back is read by orjson first."""

from __future__ import annotations

import orjson
from drf_spectacular.renderers import OpenApiYamlRenderer
from rest_framework import renderers
from rest_framework.utils.encoders import JSONEncoder

# Dates and times to DRF's encoder (it writes UTC as "Z", orjson as "+00:00").
_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME
_DRF_DEFAULT = JSONEncoder().default


def compact(data) -> bytes:
    """``data`` as the API's compact JSON, the renderer's bytes without a request around
    them (the game socket's answers, challenges/ask_api.py)."""
    out = _orjson(data)
    return out if out is not None else _RENDERER.render(data)


def _orjson(data) -> bytes | None:
    try:
        out = orjson.dumps(data, default=_DRF_DEFAULT, option=_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError: a key or a number only the standard library writes
        return None
    # As DRF: these two are valid JSON but end a line in JavaScript.
    if b"\xe2\x80\xa8" in out or b"\xe2\x80\xa9" in out:
        out = out.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
    return out


class JSONRenderer(renderers.JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None):
        if (
            data is None
            or self.ensure_ascii
            or not self.compact
            or self.get_indent(accepted_media_type, renderer_context or {}) is not None
        ):
            return super().render(data, accepted_media_type, renderer_context)
        out = _orjson(data)
        return out if out is not None else super().render(data, accepted_media_type, renderer_context)


_RENDERER = JSONRenderer()


class ReadableYamlRenderer(OpenApiYamlRenderer):
    """The schema's YAML as text: a browser shows it instead of downloading a file. First,
    so a browser's Accept (text/html, …, */*) and a client's */* get it; an Accept naming
    application/vnd.oai.openapi, application/yaml or JSON gets those as before."""

    media_type = "text/yaml"
    charset = "utf-8"
