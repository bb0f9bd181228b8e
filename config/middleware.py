"""Middleware that pages need and the JSON API does not.

The API speaks one language (error details are English, codes are for programs) and
never uses flash messages, so for /api/ paths the locale negotiation and the message
storage are skipped: together they were a measurable share of an ask's CPU
(bench/play_load.py, docs/benchmarks.md). Pages are unchanged.
"""

from django.contrib.messages.middleware import MessageMiddleware
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

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
