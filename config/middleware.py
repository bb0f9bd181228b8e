"""Middleware that pages need and the JSON API does not.

The API speaks one language (error details are English, codes are for programs) and
never uses flash messages, so for /api/ paths the locale negotiation and the message
storage are skipped: together they were a measurable share of an ask's CPU
(bench/play_load.py, docs/benchmarks.md). Pages are unchanged.
"""

from django.contrib.messages.middleware import MessageMiddleware
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.functional import SimpleLazyObject, empty

API_PREFIX = "/api/"


def is_api(request) -> bool:
    return request.path_info.startswith(API_PREFIX)


# The API's documentation is a page for people: in their language, like every page.
DOCS_PATH = "/api/docs"


class PageLocaleMiddleware(LocaleMiddleware):
    def __call__(self, request):
        if is_api(request) and request.path_info != DOCS_PATH:
            # The thread may still hold the language of the page it served last.
            translation.deactivate()
            return self.get_response(request)
        return super().__call__(request)


class PageMessageMiddleware(MessageMiddleware):
    def __call__(self, request):
        if is_api(request):
            return self.get_response(request)
        return super().__call__(request)


class ReleaseRequestMiddleware:
    """Outermost: once a request is answered, the links by which its objects hold each other
    are cut, so that reference counting frees them as soon as the server lets go, instead of
    the cycle collector, later. Django's AuthenticationMiddleware gives the request
    ``auser``, a partial of the request itself (and ``user``, a lazy object whose function
    holds the request); the messages' storage holds it too; a DRF view holds its request and
    response, which hold the view (``parser_context``, ``renderer_context``). Every API
    request left ~100 objects (its request, view, user and answer) for the collector; a
    collection that found them promoted cost ~1 ms on one request in fifty
    (docs/reports/leagues-2026-12-04-efe6126.md). What stays readable after the answer
    (``request.user``, ``response.data``) is unchanged."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # Rendered by now (Django renders a deferred response before the middleware sees it).
        context = getattr(response, "renderer_context", None)
        if isinstance(context, dict):
            view, drf_request = context.get("view"), context.get("request")
            if drf_request is not None:
                drf_request.parser_context = None
            if view is not None:
                view.__dict__.clear()
            response.renderer_context = None
        attributes = request.__dict__
        attributes.pop("auser", None)
        # A page's flash messages, stored by now (MessageMiddleware.process_response): their
        # storage holds the request.
        attributes.pop("_messages", None)
        user = attributes.get("user")
        if isinstance(user, SimpleLazyObject) and user._wrapped is not empty:
            attributes["user"] = user._wrapped  # what it stood for, without its function
        return response
