"""Rate limits that hold across every web process: counters live in the shared cache.

DRF's own throttles read, append and write back a list of timestamps, so two processes
racing each other both pass; here a window is one counter bumped atomically, so N
processes together let exactly the limit through. With Redis that is one round trip (a
script: SET NX EX, INCR, TTL) on one client per process: every ask passes here, and the
cache API's add + exists + incr (three round trips, and a client built per call) cost
~17% of the play path's throughput (docs/benchmarks.md).
A window opens at a client's first request and lasts the rate's period. If the store is
unreachable the request passes: a rate limit must never take the site down.
"""
from __future__ import annotations

import logging
import time
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache
from rest_framework.throttling import BaseThrottle

log = logging.getLogger(__name__)

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str | None) -> tuple[int, int] | None:
    """"30/hour" -> (30, 3600); None, "", "off" -> None (no limit)."""
    if not rate or rate.strip().lower() in ("off", "none", "0"):
        return None
    count, _, period = rate.strip().partition("/")
    try:
        return int(count), _PERIODS[period.strip()[:1].lower()]
    except (KeyError, ValueError):
        raise ValueError(f"bad rate {rate!r}: write it as N/second, N/minute, N/hour or N/day") from None


class WindowThrottle(BaseThrottle):
    """A limit named ``scope`` in settings.RATE_LIMITS, counted per ``ident``."""

    scope = ""

    def ident(self, request) -> str:
        return f"ip:{self.get_ident(request)}"

    def allow_request(self, request, view) -> bool:
        self.retry_after = None
        limit = parse_rate(settings.RATE_LIMITS.get(self.scope))
        if limit is None:
            return True
        allowed, period = limit
        key = f"rl:{self.scope}:{self.ident(request)}"
        try:
            count, seconds_left = self._bump(key, period)
        except Exception as exc:  # the store is down: let the request through
            log.warning("rate limit store unavailable scope=%s: %s", self.scope, exc.__class__.__name__)
            return True
        if count <= allowed:
            return True
        if seconds_left is None:
            try:
                opened = cache.get(f"{key}:opened")
            except Exception:
                opened = None
            seconds_left = int((opened or time.time()) + period - time.time()) + 1
        self.retry_after = max(1, seconds_left)
        return False

    @staticmethod
    def _bump(key: str, period: int) -> tuple[int, int | None]:
        """(requests in the current window, seconds until it closes if known for free)."""
        store = settings.CACHES["default"]
        if "RedisCache" in store["BACKEND"]:  # the cache's Redis, one atomic round trip
            count, ttl = _window_script(store["LOCATION"])(keys=[cache.make_key(key)], args=[period])
            return count, ttl if ttl > 0 else period
        # Any other cache (one process's memory): add, then incr, and remember the opening.
        for _ in range(2):
            if cache.add(key, 0, timeout=period):
                cache.set(f"{key}:opened", time.time(), timeout=period)
            try:
                return cache.incr(key), None
            except ValueError:  # the window expired between add and incr: open a new one
                continue
        return 1, None

    def wait(self) -> float | None:
        return self.retry_after


_WINDOW = """
redis.call('SET', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local count = redis.call('INCR', KEYS[1])
return {count, redis.call('TTL', KEYS[1])}
"""


@lru_cache(maxsize=4)
def _window_script(location: str):
    """The window script on one client per Redis and process (EVALSHA; EVAL once after a
    Redis restart forgot it)."""
    from config.redis_client import _client

    return _client(location).register_script(_WINDOW)


class PlayerCreateThrottle(WindowThrottle):
    """New players per client IP."""

    scope = "players"


class AskThrottle(WindowThrottle):
    """Asks per player (per IP for a request without one; it is refused anyway)."""

    scope = "asks"

    def ident(self, request) -> str:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            return f"user:{user.pk}"
        return super().ident(request)


class LoginThrottle(WindowThrottle):
    """Password log-ins per client IP."""

    scope = "logins"
