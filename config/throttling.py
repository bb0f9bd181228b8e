"""Rate limits that hold across every web process: counters live in the shared cache.

DRF's own throttles read, append and write back a list of timestamps, so two processes
racing each other both pass; here a window is one counter bumped atomically, so N
processes together let exactly the limit through. With Redis that is one round trip (a
script: SET NX EX, INCR, TTL) on one client per process: every ask passes here, and the
cache API's add + exists + incr (three round trips, and a client built per call) cost
~17% of the play path's throughput (docs/benchmarks.md).
A window opens at a client's first request and lasts the rate's period.
If the store is unreachable (or its breaker is open, config/redis_client.py) the limit
still holds: each process counts in its own memory meanwhile, at the cost of a
microsecond. Across N web processes a client then gets at most N times the limit, not an
unlimited number of password guesses or sign-ups.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache
from rest_framework.throttling import BaseThrottle

from config.redis_client import Unavailable, client_for

log = logging.getLogger(__name__)

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str | None) -> tuple[int, int] | None:
    """ "30/hour" -> (30, 3600); None, "", "off" -> None (no limit)."""
    if not rate or rate.strip().lower() in ("off", "none", "0"):
        return None
    count, _, period = rate.strip().partition("/")
    try:
        return int(count), _PERIODS[period.strip()[:1].lower()]
    except (KeyError, ValueError):
        raise ValueError(f"bad rate {rate!r}: write it as N/second, N/minute, N/hour or N/day") from None


def hit(scope: str, ident: str) -> int | None:
    """Count one request of ``ident`` against the limit ``scope``; None if it may pass,
    else the seconds until its window closes."""
    limit = parse_rate(settings.RATE_LIMITS.get(scope))
    if limit is None:
        return None
    allowed, period = limit
    key = f"rl:{scope}:{ident}"
    try:
        count, seconds_left = _bump(key, period)
    except Exception as exc:  # the store is down: count in this process's memory
        if not isinstance(exc, Unavailable):  # once per failure, not once per request skipped
            log.warning("rate limit store unavailable scope=%s: %s", scope, exc.__class__.__name__)
        count, seconds_left = _bump_here(key, period)
    if count <= allowed:
        return None
    if seconds_left is None:
        try:
            opened = cache.get(f"{key}:opened")
        except Exception:
            opened = None
        seconds_left = int((opened or time.time()) + period - time.time()) + 1
    return max(1, seconds_left)


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


# The fallback: key -> (count, monotonic end of its window), while the store is down.
_HERE: dict[str, tuple[int, float]] = {}
_HERE_LOCK = threading.Lock()
_HERE_MAX = 100_000  # clients counted at once; beyond, the closed windows go, then the oldest


def _bump_here(key: str, period: int) -> tuple[int, int]:
    now = time.monotonic()
    with _HERE_LOCK:
        count, ends = _HERE.get(key, (0, 0.0))
        if ends <= now:
            count, ends = 0, now + period
        _HERE[key] = (count + 1, ends)
        if len(_HERE) > _HERE_MAX:
            for stale in [k for k, (_, end) in _HERE.items() if end <= now]:
                del _HERE[stale]
            for oldest in list(_HERE)[: max(0, len(_HERE) - _HERE_MAX)]:
                del _HERE[oldest]
    return count + 1, int(ends - now) + 1


class WindowThrottle(BaseThrottle):
    """A limit named ``scope`` in settings.RATE_LIMITS, counted per ``ident``."""

    scope = ""

    def ident(self, request) -> str:
        return f"ip:{self.get_ident(request)}"

    def allow_request(self, request, view) -> bool:
        self.retry_after = hit(self.scope, self.ident(request))
        return self.retry_after is None

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
    return client_for(location).register_script(_WINDOW)


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
    """Password log-ins per client IP (the API's; per IP and name: ``login_name_refused``)."""

    scope = "logins"


# --- log-ins: per address, per address and name, never per name alone -------------------
#
# A limit per username alone is a lock-out anyone can trigger: 30 wrong passwords from 3
# addresses locked the real staff account for an hour, from everywhere (issue 27). So a
# log-in is limited per client address (one address trying many names) and per address
# and name (one address guessing one name); the right password from an address that has
# not been guessing gets in. Failures per name across addresses are only counted, to log a
# burst at WARNING with the addresses it came from: a guesser with many addresses is an
# operator's matter (block them at the proxy), not a reason to refuse the name's owner.
# Not even a delay per name: a sleeping sync worker is one the guessers would hold.


def _name_ident(username: str) -> str:
    """A name as counters key it: case and surrounding spaces ignored, nothing of it kept."""
    return hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:32]


def _waited(*waits: int | None) -> int | None:
    counted = [w for w in waits if w is not None]
    return max(counted) if counted else None


def login_name_refused(scope: str, request, username: str) -> int | None:
    """One try at a password log-in, counted per client address and name (``scope``_name):
    None if it may go on, else the seconds to wait. Every try counts, the right password
    included (a guesser's last try is the right one). The API's per-address count is
    LoginThrottle's."""
    address = BaseThrottle().get_ident(request)
    return hit(f"{scope}_name", f"ip:{address}:user:{_name_ident(username)}")


def admin_login_refused(request, username: str) -> int | None:
    """The admin's log-in (staff passwords guard today's cards): per client address and
    per address and username."""
    address = BaseThrottle().get_ident(request)
    return _waited(hit("admin_logins", f"ip:{address}"), login_name_refused("admin_logins", request, username))


# The addresses of each name's recent failures, when the cache cannot keep them.
_FAILED_FROM: dict[str, list[str]] = {}
_FAILED_FROM_MAX = 10_000
_ADDRESSES_KEPT = 20  # per name: enough to act on, bounded whatever the guessers do


def login_failed(scope: str, request, username: str) -> None:
    """A wrong password (or unknown name) at a log-in. Failures for one name from every
    address are counted over LOGIN_FAILURE_BURST ("N/period"); the Nth, 2Nth, … within a
    window logs a WARNING with the name and the addresses they came from."""
    burst = parse_rate(getattr(settings, "LOGIN_FAILURE_BURST", None))
    if burst is None:
        return
    threshold, period = burst
    address = BaseThrottle().get_ident(request) or "?"
    key = f"lf:{scope}:{_name_ident(username)}"
    try:
        count, _ = _bump(key, period)
    except Exception:
        count, _ = _bump_here(key, period)
    addresses = _remember_address(f"{key}:from", address, period)
    if count % threshold == 0:
        log.warning(
            "login failures burst scope=%s username=%r failures=%d period=%ds addresses=%s",
            scope,
            username.strip()[:64],
            count,
            period,
            ",".join(addresses),
        )


def _remember_address(key: str, address: str, period: int) -> list[str]:
    """The name's failing addresses so far in this window (best effort: a lost update
    under a race drops an address from a log line, nothing else)."""
    try:
        seen = cache.get(key) or []
    except Exception:
        seen = _FAILED_FROM.get(key, [])
    if address not in seen and len(seen) < _ADDRESSES_KEPT:
        seen = [*seen, address]
        try:
            cache.set(key, seen, timeout=period)
        except Exception:
            if len(_FAILED_FROM) >= _FAILED_FROM_MAX:
                _FAILED_FROM.clear()
            _FAILED_FROM[key] = seen
    return seen
