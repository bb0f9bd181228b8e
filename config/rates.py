"""Rate limits that hold across every web process: counters live in the shared cache.
The counting only (no HTTP: services count asks here too); config/throttling.py puts it
behind DRF's throttles and the log-in guards.

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

import logging
import threading
import time
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache

from config.redis_client import Unavailable, client_for

log = logging.getLogger("config.throttling")  # the name operators filter on

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
        count, seconds_left = bump(key, period)
    except Exception as exc:  # the store is down: count in this process's memory
        if not isinstance(exc, Unavailable):  # once per failure, not once per request skipped
            log.warning("rate limit store unavailable scope=%s: %s", scope, exc.__class__.__name__)
        count, seconds_left = bump_here(key, period)
    if count <= allowed:
        return None
    if seconds_left is None:
        try:
            opened = cache.get(f"{key}:opened")
        except Exception:
            opened = None
        seconds_left = int((opened or time.time()) + period - time.time()) + 1
    return max(1, seconds_left)


def bump(key: str, period: int) -> tuple[int, int | None]:
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


def refund(scope: str, ident: str) -> None:
    """Give back one request of ``ident`` counted by ``hit``: a try that turned out not to
    count (the right password at a log-in). The count never goes below 0, and a window
    that has closed stays closed. Counted first and given back after, rather than counted
    after: N guesses sent at once are all counted before any is answered."""
    if parse_rate(settings.RATE_LIMITS.get(scope)) is None:
        return
    key = f"rl:{scope}:{ident}"
    try:
        store = settings.CACHES["default"]
        if "RedisCache" in store["BACKEND"]:
            _refund_script(store["LOCATION"])(keys=[cache.make_key(key)])
        elif (cache.get(key) or 0) > 0:
            cache.decr(key)
    except Exception:  # the store is down (or the window just closed): this process's count
        with _HERE_LOCK:
            count, ends = _HERE.get(key, (0, 0.0))
            if count > 0 and ends > time.monotonic():
                _HERE[key] = (count - 1, ends)


# The fallback: key -> (count, monotonic end of its window), while the store is down.
_HERE: dict[str, tuple[int, float]] = {}
_HERE_LOCK = threading.Lock()
_HERE_MAX = 100_000  # clients counted at once; beyond, the closed windows go, then the oldest


def bump_here(key: str, period: int) -> tuple[int, int]:
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


_REFUND = """
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then return redis.call('DECR', KEYS[1]) end
return 0
"""


@lru_cache(maxsize=4)
def _refund_script(location: str):
    return client_for(location).register_script(_REFUND)
