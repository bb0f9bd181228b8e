"""The API's content negotiation: JSON is its one renderer, so the common Accept headers
need no parsing. DRF's default parses the Accept header into media types and ranks them on
every request (~20 header-parameter parses per ask, docs/benchmarks.md "Instructions per
request"); here the headers browsers and clients send for JSON are answered at once, and
anything else (a ?format=, a list, parameters, text/html) goes through DRF's own, which
gives the same answer or the same 406."""

from __future__ import annotations

from rest_framework.negotiation import DefaultContentNegotiation

# Exactly what DRF's negotiation answers for these with JSONRenderer alone.
_JSON_ACCEPTS = frozenset({"*/*", "application/json", "application/*"})


class JSONFirstNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        # No header at all is */* to DRF; an empty one matches nothing (406).
        accept = request.META.get("HTTP_ACCEPT", "*/*").strip()
        if (
            accept in _JSON_ACCEPTS
            and format_suffix is None
            and self.settings.URL_FORMAT_OVERRIDE not in request.query_params
            and len(renderers) == 1
            and renderers[0].media_type == "application/json"
        ):
            return renderers[0], "application/json"
        return super().select_renderer(request, renderers, format_suffix)
