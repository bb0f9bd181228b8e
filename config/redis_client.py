"""One Redis client per process for the app's own keys, behind one guard.

Every use of Redis here — rate-limit counters, the sessions' cache, the verification
queue, the rank index — has a way around it (a per-process counter, the database, the
sweeper, SQL ranks). So a Redis that is down, or worse hangs (accepts connections, never answers),
must cost a request milliseconds, not a socket timeout per call:

- short timeouts on the hot path (HOT_TIMEOUT); bulk writes of the worker (a rank index
  rebuild) get BULK_TIMEOUT instead;
- one circuit breaker per Redis address and process, shared by every use: after a
  connection error or a timeout, every call fails at once with ``Unavailable`` (no
  socket touched) for BREAK_SECONDS; then one call alone (the probe) tries Redis again
  while the others keep failing fast, and its answer closes the breaker.

The guard sits in the connection class, so plain commands, pipelines and scripts all go
through it, whoever holds the client.
"""

from __future__ import annotations

import os
import threading
import time
from functools import cache, lru_cache

import redis
from django.conf import settings
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from config import metrics

# Redis answers the hot path's commands (one key each) in well under a millisecond; 100 ms
# is a Redis in trouble, and the breaker then spares the next requests the wait.
# REDIS_HOT_TIMEOUT (seconds) moves it: a test that counts exactly across processes on a
# busy machine must not see a slow scheduler as a Redis in trouble.
HOT_TIMEOUT = float(os.environ.get("REDIS_HOT_TIMEOUT", "0.1"))
BULK_TIMEOUT = 5.0
BREAK_SECONDS = 2.0


class Unavailable(RedisConnectionError):
    """Redis failed a moment ago: skipped without trying. A ConnectionError, so every
    caller's existing handling of an unreachable Redis applies."""


class Breaker:
    """Open after a failure; after BREAK_SECONDS one probe at a time may try again."""

    def __init__(self) -> None:
        self.tripped = False
        self.open_until = 0.0
        self.prober: int | None = None  # the thread whose call is the probe
        self.trips = 0  # how many times it opened (for tests and logs)
        self.skipped = 0  # calls failed without touching a socket
        self._lock = threading.Lock()

    def check(self) -> None:
        if not self.tripped:  # the usual case: one attribute read per command
            return
        me = threading.get_ident()
        with self._lock:
            if not self.tripped or self.prober == me:
                return
            now = time.monotonic()
            if now < self.open_until:
                self.skipped += 1
                raise Unavailable(f"Redis failed less than {BREAK_SECONDS:.0f} s ago: skipped")
            # This call is the probe; the others fail fast until it has an answer.
            self.prober = me
            self.open_until = now + BREAK_SECONDS

    def failed(self) -> None:
        with self._lock:
            if not self.tripped:
                self.trips += 1
                metrics.breaker_state(True)
            self.tripped = True
            self.prober = None
            self.open_until = time.monotonic() + BREAK_SECONDS

    def answered(self) -> None:
        if self.tripped:
            with self._lock:
                self.tripped = False
                self.prober = None
            metrics.breaker_state(False)

    def is_open(self) -> bool:
        return self.tripped and time.monotonic() < self.open_until


_breakers: dict[str, Breaker] = {}
_breakers_lock = threading.Lock()


def _address(url: str) -> str:
    """Host, port and database named by ``url`` (one breaker per Redis, whatever the pool)."""
    kwargs = redis.connection.parse_url(url)
    where = kwargs.get("path") or f"{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}"
    return f"{where}/{kwargs.get('db', 0)}"


def breaker(url: str) -> Breaker:
    key = _address(url)
    found = _breakers.get(key)
    if found is None:
        with _breakers_lock:
            found = _breakers.setdefault(key, Breaker())
    return found


def reset_breakers() -> None:
    """Forget every failure (tests). The breakers are closed in place: pooled connections
    hold their breaker, so a fresh registry alone would leave theirs open."""
    with _breakers_lock:
        for found in _breakers.values():
            with found._lock:
                found.tripped = False
                found.prober = None
                found.open_until = 0.0
                found.trips = 0
                found.skipped = 0


def is_down(url: str | None = None) -> bool:
    """Known to be failing right now (the breaker is open)."""
    url = url if url is not None else settings.REDIS_URL
    return bool(url) and breaker(url).is_open()


class _Guarded:
    """Mixed into redis-py's connection class: every socket use passes the breaker first,
    and what happens on the socket opens or closes it."""

    def __init__(self, *args, breaker: Breaker, **kwargs):
        self._breaker = breaker
        super().__init__(*args, **kwargs)

    def connect_check_health(self, *args, **kwargs):
        self._breaker.check()
        try:
            return super().connect_check_health(*args, **kwargs)
        except Unavailable:
            raise
        except (RedisConnectionError, RedisTimeoutError):
            self._breaker.failed()
            raise

    def send_packed_command(self, *args, **kwargs):
        self._breaker.check()
        try:
            return super().send_packed_command(*args, **kwargs)
        except Unavailable:
            raise
        except (RedisConnectionError, RedisTimeoutError):
            self._breaker.failed()
            raise

    def read_response(self, *args, **kwargs):
        try:
            response = super().read_response(*args, **kwargs)
        except (RedisConnectionError, RedisTimeoutError):
            self._breaker.failed()
            raise
        except redis.RedisError:  # an error reply (NOSCRIPT, WRONGTYPE): Redis answered
            self._breaker.answered()
            raise
        self._breaker.answered()
        return response


@cache
def _guarded_class(base: type) -> type:
    return type(f"Guarded{base.__name__}", (_Guarded, base), {})


class GuardedConnectionPool(redis.ConnectionPool):
    """A pool whose connections pass the guard, for clients built elsewhere: Django's Redis
    cache (the sessions' cache, config/cache.py) names it as its ``pool_class``."""

    @classmethod
    def from_url(cls, url, **kwargs):
        pool = super().from_url(url, **kwargs)
        pool.connection_class = _guarded_class(pool.connection_class)
        pool.connection_kwargs["breaker"] = breaker(url)
        return pool


def redis_client(*, bulk: bool = False):
    """The guarded client for REDIS_URL, or None on the embedded default (no Redis).
    ``bulk``: long timeouts, for the worker's big writes (same breaker)."""
    return client_for(settings.REDIS_URL, bulk) if settings.REDIS_URL else None


def client_for(url: str, bulk: bool = False):
    """One client per address and kind, whoever asks (the rate limiter names the cache's
    LOCATION, the others REDIS_URL: in production the same Redis, one pool)."""
    return _make_client(url, bool(bulk))


@lru_cache(maxsize=8)
def _make_client(url: str, bulk: bool):
    timeout = BULK_TIMEOUT if bulk else HOT_TIMEOUT
    pool = redis.ConnectionPool.from_url(
        url, socket_timeout=timeout, socket_connect_timeout=timeout, health_check_interval=10
    )
    # from_url picks the connection class from the scheme (TCP, TLS, unix socket): guard that one.
    pool.connection_class = _guarded_class(pool.connection_class)
    pool.connection_kwargs["breaker"] = breaker(url)
    return redis.Redis(connection_pool=pool)
