"""HTTP caching of a day's leaderboard: a settled day's answers may be kept by a CDN.

A day is settled once its seed is revealed (``reveals_at``: no ranked game of it can change
any more) and no ranked attempt of it is still being verified (the ranking is complete):
its leaderboard page, histogram and archive are then the same for everyone, and a CDN may
keep them. Not for ever, though: a reviewer's disqualification, restoration or
re-verification, a player's rename or an account's deletion still change a closed day's
ranking or names, rarely and on purpose. So they are public for a bounded time, never
``immutable``: the CDN keeps them CDN_SECONDS, a browser BROWSER_SECONDS, and then asks
again with the answer's ETag (a digest of its bytes), which costs a 304 and no body when
nothing changed. No Last-Modified: a rename changes the page without changing any row's
date, so a date could claim "not modified" for a page that was.

An open day or one still verifying changes with every finished game: private, no-cache
(a browser revalidates, shared caches keep nothing). So is anything personal: the page a
signed-in player sees (their row highlighted, their rank, the log-out dialog with their
name, a CSRF token) and ``/me``. The public page is the one an anonymous visitor sees,
without a CSRF token; and whatever a view decided, an answer that sets a cookie on its way
out is never public (``LeaderboardCacheMiddleware`` checks it after every other layer).
docs/operations.md ("CDN") says what a CDN may keep.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers, set_response_etag

log = logging.getLogger(__name__)

CDN_SECONDS = 3600  # how stale a CDN may show a decision on a closed day (docs/operations.md)
BROWSER_SECONDS = 300
_POLICY = "leaderboard_cache"  # the attribute a view marks its answer with


def mark(response: HttpResponseBase, *, public: bool, vary: tuple[str, ...] = ()) -> HttpResponseBase:
    """The leaderboard view's answer is public (a settled day, nothing personal) or not;
    ``vary``: the request headers a public answer depends on — exactly those (the session
    layer's ``Vary: Cookie`` would make a CDN keep one copy per visitor of an answer that is
    the same for all). LeaderboardCacheMiddleware writes the headers once every layer has
    added its own."""
    setattr(response, _POLICY, ("public", vary) if public else ("private", ()))
    return response


def _private(response: HttpResponseBase) -> None:
    if "Cache-Control" in response:
        del response["Cache-Control"]
    patch_cache_control(response, private=True, no_cache=True)


class LeaderboardCacheMiddleware:
    """Cache-Control, ETag and 304s of the answers a leaderboard view marked (``mark``).

    Before SessionMiddleware in MIDDLEWARE: on the way out it runs after the session, CSRF
    and message layers, so it sees every cookie they set (a public answer with one becomes
    private: a shared cache would hand that cookie to everybody)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        marked = getattr(response, _POLICY, None)
        if marked is None:
            return response
        policy, vary = marked
        if policy == "public" and response.cookies:
            log.warning("a public leaderboard answer set a cookie on %s: sent private", request.path)
            policy = "private"
        if policy == "public" and response.status_code == 200:
            patch_cache_control(response, public=True, max_age=BROWSER_SECONDS, s_maxage=CDN_SECONDS)
            if "Vary" in response:
                del response["Vary"]
            patch_vary_headers(response, vary)
        else:
            _private(response)
        # A streamed answer (the archive) has no ETag: its bytes are not known before they are sent.
        if request.method in ("GET", "HEAD") and response.status_code == 200 and isinstance(response, HttpResponse):
            set_response_etag(response)
            return get_conditional_response(request, etag=response["ETag"], response=response) or response
        return response
