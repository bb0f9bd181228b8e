"""Content-Security-Policy violations, reported by the browsers to the site (the policy's
``report-uri``, or ``report-to`` with REPORTING_ENDPOINTS: config/settings/base.py): a page that breaks the policy
for some visitor (an extension, a proxy injecting scripts, a page of ours that needs more
than the policy gives) is known to the operators instead of failing unseen.

POST /csp-reports takes both shapes browsers send, ``application/csp-report`` (one
``{"csp-report": {...}}``) and the Reporting API's ``application/reports+json`` (a list of
``{"type": "csp-violation", "body": {...}}``), and answers 204. A report is a stranger's
text: the body is bounded (8 KiB, 413 beyond), its fields are cut to a few hundred
characters, the reports are limited per client address (``csp_reports`` in RATE_LIMITS,
429 beyond), and nothing of them is kept but in the cache: the latest few for a day
(``recent``), a count per day for a week (``counts``), each logged once at WARNING.
``python manage.py csp_reports`` shows them.
"""

from __future__ import annotations

import datetime as dt
import json
import logging

from django.core.cache import cache
from django.http import HttpResponse, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from config.rates import hit
from config.throttling import client_address

log = logging.getLogger(__name__)

MAX_BODY = 8 * 1024
MAX_FIELD = 300
MAX_PER_BODY = 10  # the Reporting API may batch reports: beyond these, a batch is cut
RECENT_KEPT = 50
RECENT_KEY = "csp:recent"
RECENT_SECONDS = 24 * 3600
COUNT_DAYS = 7
# What a report says, in the Reporting API's names; the csp-report shape's names map to them.
FIELDS = {
    "documentURL": "document-uri",
    "effectiveDirective": "effective-directive",
    "blockedURL": "blocked-uri",
    "sourceFile": "source-file",
    "lineNumber": "line-number",
    "disposition": "disposition",
}


def _error(code: str, detail: str, status: int) -> JsonResponse:
    return JsonResponse({"error": code, "detail": detail}, status=status)


def _violations(data) -> list[dict]:
    """The violation bodies of either shape; anything else is no report."""
    if isinstance(data, dict) and isinstance(data.get("csp-report"), dict):
        return [{new: data["csp-report"].get(old) for new, old in FIELDS.items()}]
    if isinstance(data, list) and data and all(isinstance(r, dict) for r in data):
        bodies = [r.get("body") for r in data[:MAX_PER_BODY] if r.get("type") == "csp-violation"]
        return [{name: body.get(name) for name in FIELDS} for body in bodies if isinstance(body, dict)]
    return []


def _cut(value) -> str | int | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return str(value)[:MAX_FIELD]


def _count_key(day: dt.date) -> str:
    return f"csp:count:{day.isoformat()}"


@csrf_exempt  # browsers send reports without a token (and a report changes nothing but a count)
@require_POST
def csp_reports(request):
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > MAX_BODY:
        return _error("too_large", f"a report is at most {MAX_BODY} bytes", 413)
    wait = hit("csp_reports", f"ip:{client_address(request)}")
    if wait is not None:
        response = _error("rate_limited", "too many reports from this address", 429)
        response["Retry-After"] = str(wait)
        return response
    body = request.read(MAX_BODY + 1)
    if len(body) > MAX_BODY:  # a body longer than it said
        return _error("too_large", f"a report is at most {MAX_BODY} bytes", 413)
    try:
        reports = _violations(json.loads(body))
    except (ValueError, RecursionError):  # not JSON (UnicodeDecodeError is a ValueError), or nested too deep
        reports = []
    if not reports:
        return _error("bad_report", "not a CSP violation report", 400)
    now = timezone.now()
    kept = [{"at": now.isoformat(), **{k: _cut(v) for k, v in r.items()}} for r in reports]
    for report in kept:
        log.warning(
            "csp violation directive=%s blocked=%s document=%s source=%s:%s",
            report["effectiveDirective"],
            report["blockedURL"],
            report["documentURL"],
            report["sourceFile"],
            report["lineNumber"],
        )
    try:
        key = _count_key(now.date())
        cache.add(key, 0, timeout=COUNT_DAYS * 24 * 3600)
        cache.incr(key, len(kept))
        # A lost update under a race drops a report from the list, never from the count.
        cache.set(RECENT_KEY, ((cache.get(RECENT_KEY) or []) + kept)[-RECENT_KEPT:], timeout=RECENT_SECONDS)
    except Exception:  # the cache is down: the log line above is the record
        log.warning("csp reports not kept: the cache is unavailable")
    return HttpResponse(status=204)


def counts(today: dt.date | None = None) -> dict[str, int]:
    """Reports received per day, the last COUNT_DAYS days, newest first."""
    today = today or timezone.now().date()
    days = [today - dt.timedelta(days=n) for n in range(COUNT_DAYS)]
    found = cache.get_many([_count_key(d) for d in days])
    return {d.isoformat(): int(found.get(_count_key(d), 0)) for d in days}


def recent() -> list[dict]:
    """The latest reports kept (at most RECENT_KEPT, for a day), oldest first."""
    return list(cache.get(RECENT_KEY) or [])
