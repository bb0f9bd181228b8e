"""Error reports to Sentry, only when SENTRY_DSN is set (settings call ``start``): Django's
and Celery's integrations (Channels' sockets through Django's ASGI one), nothing personal.

``send_default_pii`` is off (no user, no client address, no cookies, no bodies), local
variables are not sent (a frame's locals hold names, tokens, passwords), and every event
passes ``scrubbed`` before it leaves: the request keeps its method and path (a league's
join code cut out), no headers but content type and length, no query string, cookies or
body; messages, exception values and breadcrumbs lose e-mail and IP addresses, long
tokens, ``name=…``-style values and the values Postgres quotes in its errors. Unset, the
SDK is never imported: no cost.
"""

from __future__ import annotations

import os
import re
from typing import Any

FILTERED = "[Filtered]"
_KEPT_HEADERS = {"content-type", "content-length", "accept"}
_PATTERNS = [
    # name=…, token: …, password … as log lines and errors write them
    (
        re.compile(
            r"(?i)\b(name|player|username|user|email|password|token|secret|key|code|cookie|session|address|ip)"
            # a value runs to the next key=, a separator or the end: a name may have spaces
            r"(\s*[=:]\s*)('[^']*'|\"[^\"]*\"|.+?)(?=\s+[\w.-]+\s*[=:]|[;,)\]]|$)"
        ),
        rf"\1\2{FILTERED}",
    ),
    (re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+"), FILTERED),  # e-mail addresses
    (re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b"), FILTERED),  # IPv4
    (re.compile(r"\b[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7}\b"), FILTERED),  # IPv6
    (re.compile(r"=\((.*?)\)"), f"=({FILTERED})"),  # Postgres: Key (name)=(alice) already exists
    (re.compile(r"\b[A-Za-z0-9_-]{24,}\b"), FILTERED),  # tokens, session keys, join codes
]
_JOIN = re.compile(r"/join/[^/?#]+")


def scrub(text: str) -> str:
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def scrubbed(event: dict[str, Any], hint: dict[str, Any] | None = None) -> dict[str, Any]:
    """Sentry's ``before_send`` (and ``before_breadcrumb``'s work for an event's crumbs)."""
    event.pop("user", None)
    request = event.pop("request", None)
    if isinstance(request, dict) and request.get("method"):
        url = str(request.get("url", ""))
        event["request"] = {
            "method": request.get("method"),
            "url": _JOIN.sub(f"/join/{FILTERED}", url.split("?")[0]),
            "headers": {k: v for k, v in (request.get("headers") or {}).items() if k.lower() in _KEPT_HEADERS},
        }
    for exception in (event.get("exception") or {}).get("values") or []:
        if isinstance(exception.get("value"), str):
            exception["value"] = scrub(exception["value"])
        for frame in (exception.get("stacktrace") or {}).get("frames") or []:
            frame.pop("vars", None)
    logentry = event.get("logentry")
    if isinstance(logentry, dict):
        logentry.pop("params", None)
        for key in ("message", "formatted"):
            if isinstance(logentry.get(key), str):
                logentry[key] = scrub(logentry[key])
    if isinstance(event.get("message"), str):
        event["message"] = scrub(event["message"])
    crumbs = event.get("breadcrumbs")
    values = crumbs.get("values") if isinstance(crumbs, dict) else crumbs
    for crumb in values or []:
        crumb.pop("data", None)
        if isinstance(crumb.get("message"), str):
            crumb["message"] = scrub(crumb["message"])
    event.pop("extra", None)
    return event


def start(dsn: str | None = None) -> bool:
    """Sentry on, when ``dsn`` (SENTRY_DSN) is set; whether it is."""
    dsn = os.environ.get("SENTRY_DSN", "") if dsn is None else dsn
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,
        include_local_variables=False,
        max_request_body_size="never",
        before_send=scrubbed,  # type: ignore[arg-type]
        environment=os.environ.get("SENTRY_ENVIRONMENT", "production"),
        traces_sample_rate=0.0,
    )
    return True
