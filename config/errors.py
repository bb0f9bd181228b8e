"""Every API error is ``{"error": code, "detail": text}`` with a 4xx (or 503) status.

Services and engines raise domain errors (games.base.DomainError: a code and a reason,
nothing of HTTP). This module alone turns a code into a status (``STATUS``): for the API
(``api_exception_handler``) and for pages (``PageErrorMiddleware``)."""

from __future__ import annotations

import logging

from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from config.middleware import is_api
from games.rules.base import DomainError

log = logging.getLogger(__name__)

# The status of each refusal's code; any other code is a 400.
STATUS = {
    "not_authenticated": status.HTTP_401_UNAUTHORIZED,
    "bad_login": status.HTTP_401_UNAUTHORIZED,
    "not_found": status.HTTP_404_NOT_FOUND,
    "not_open": status.HTTP_404_NOT_FOUND,
    "stale_move": status.HTTP_409_CONFLICT,
    "game_over": status.HTTP_409_CONFLICT,
    "day_closed": status.HTTP_409_CONFLICT,
    "day_open": status.HTTP_409_CONFLICT,
    "name_taken": status.HTTP_409_CONFLICT,
    "not_owner": status.HTTP_403_FORBIDDEN,
    "league_full": status.HTTP_409_CONFLICT,
    "too_many_leagues": status.HTTP_409_CONFLICT,
    "unavailable": status.HTTP_503_SERVICE_UNAVAILABLE,
    "rate_limited": status.HTTP_429_TOO_MANY_REQUESTS,
    "analysis_budget": status.HTTP_429_TOO_MANY_REQUESTS,
}


def status_of(code: str) -> int:
    return STATUS.get(code, status.HTTP_400_BAD_REQUEST)


class ApiError(exceptions.APIException):
    """A refusal of the HTTP layer itself (a malformed body, a missing credential);
    its status is its code's (``STATUS``) unless given."""

    def __init__(self, code: str, detail: str, status_code: int | None = None) -> None:
        super().__init__(detail=detail, code=code)
        self.status_code = status_of(code) if status_code is None else status_code
        self.error_code = code


_DRF_CODES = {
    exceptions.ParseError: "bad_json",
    exceptions.NotFound: "not_found",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "bad_token",
    exceptions.PermissionDenied: "forbidden",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.Throttled: "rate_limited",
    exceptions.ValidationError: "invalid",
}


def _text(detail) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{k}: {_text(v)}" for k, v in detail.items())
    if isinstance(detail, list):
        return "; ".join(_text(v) for v in detail)
    return str(detail)


def api_exception_handler(exc, context):
    if isinstance(exc, DomainError):
        # A limit's refusal says when to come back (the asks' limit: challenges/ask_api.py).
        wait = getattr(exc, "retry_after", None)
        headers = {"Retry-After": str(wait)} if wait is not None else None
        return Response(
            {"error": exc.code, "detail": exc.detail or exc.code}, status=status_of(exc.code), headers=headers
        )
    if isinstance(exc, (OperationalError, InterfaceError)):
        log.warning("database unavailable: %s", exc.__class__.__name__)
        return Response(
            {"error": "unavailable", "detail": "the database is unavailable; try again shortly"},
            status=503,
            headers={"Retry-After": "5"},
        )
    if isinstance(exc, RequestDataTooBig):
        return Response({"error": "too_large", "detail": "the request body is too large"}, status=413)
    response = exception_handler(exc, context)
    if response is None:
        return None
    code = getattr(exc, "error_code", None)
    if code is None:
        code = next((c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), "bad_request")
    response.data = {"error": code, "detail": _text(getattr(exc, "detail", str(exc)))}
    return response


class DatabaseUnavailableMiddleware:
    """Outside DRF views (pages, admin), a lost database is a clean 503, not a 500."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, (OperationalError, InterfaceError)) or (
            isinstance(exception, DatabaseError) and "connection" in str(exception).lower()
        ):
            log.warning("database unavailable on %s", request.path)
            return JsonResponse(
                {"error": "unavailable", "detail": "the database is unavailable; try again shortly"},
                status=503,
                headers={"Retry-After": "5"},
            )
        return None


# What the app reads of a refused body before answering. The client is still sending it, and
# a server that closes its socket with unread data resets the connection: the reset took
# the JSON 413 with it (16-256 KiB bodies through nginx came back as a 413 cut short, and
# gunicorn alone a 413 then ECONNRESET). Read and dropped, the body leaves nothing unread
# and the answer arrives whole. nginx sends at most its client_max_body_size (256 KiB) and
# answers larger bodies itself; 1 MiB covers that with room, and bounds what a client
# talking to gunicorn directly can make a worker read (past it, its answer may be lost).
REFUSED_BODY_DRAIN = 1024 * 1024


def _refusal(request, status: int, code: str, detail: str) -> JsonResponse:
    """A refusal of the body itself, the body read and dropped first (REFUSED_BODY_DRAIN),
    with its Content-Length: never chunked, so a proxy cannot pass it on cut short."""
    _drain(request, status)
    response = JsonResponse({"error": code, "detail": detail}, status=status)
    response["Content-Length"] = str(len(response.content))
    return response


def _drain(request, status: int) -> None:
    try:
        if status == 411:  # chunked: only the server's own stream knows where the body ends
            stream = request.environ["wsgi.input"]
            if not getattr(stream, "__module__", "").startswith("gunicorn"):
                return  # runserver's stream is limited to the (absent) Content-Length: nothing to read
            left = REFUSED_BODY_DRAIN
        else:
            stream = request._stream  # limited to the Content-Length
            left = min(int(request.META.get("CONTENT_LENGTH") or 0), REFUSED_BODY_DRAIN)
        while left > 0:
            chunk = stream.read(min(left, 65536))
            if not chunk:
                return
            left -= len(chunk)
    except Exception:  # a client gone, a stream shorter than it said: nothing more to read
        return


class BodySizeLimitMiddleware:
    """Refuse oversized API bodies before anyone parses them (DRF parsers read the raw
    stream): 413 ``too_large``, as nginx answers above its own limit (config/nginx.conf.template),
    and chunked bodies 411 ``length_required``, as nginx does too: one answer with the proxy
    and without it (docs/reliability.md)."""

    def __init__(self, get_response):
        from django.conf import settings

        self.get_response = get_response
        self.limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE

    def __call__(self, request):
        if request.META.get("HTTP_TRANSFER_ENCODING"):
            # A chunked body has no Content-Length, and WSGI apps (Django's request, under
            # gunicorn and runserver alike) then read it as empty: `missing_field` for a
            # body that was sent. Refused, saying what to do instead.
            return _refusal(
                request,
                411,
                "length_required",
                "send the body with a Content-Length (chunked bodies are not accepted)",
            )
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return JsonResponse({"error": "bad_request", "detail": "bad Content-Length"}, status=400)
        if length < 0:
            return JsonResponse({"error": "bad_request", "detail": "bad Content-Length"}, status=400)
        if length > self.limit:
            return _refusal(request, 413, "too_large", "the request body is too large")
        return self.get_response(request)


class PageErrorMiddleware:
    """A refusal a page's service raises (a domain error: no such day, a malformed date,
    …, or an ``ApiError`` of a helper) is the page's error page with its code's status, in
    the page's language — not a 500. API views never get here: DRF's handler above renders
    the same refusal as JSON."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if is_api(request):
            return None
        if isinstance(exception, DomainError):
            status_code, detail = status_of(exception.code), exception.detail or exception.code
        elif isinstance(exception, ApiError):
            status_code, detail = exception.status_code, str(exception.detail)
        else:
            return None
        if status_code == 404:
            return defaults.page_not_found(request, Http404(detail))
        if status_code == 400:
            return defaults.bad_request(request, exception)
        return render(request, "frontend/error.html", status=status_code)


@csrf_exempt  # a POST to a path that does not exist is a 404, not a CSRF 403
def api_not_found(request, *args, **kwargs):
    """Any /api/ path no route matched: JSON like every other API error, never a page."""
    return JsonResponse({"error": "not_found", "detail": "no such API endpoint"}, status=404)
