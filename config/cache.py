"""Django's Redis cache, through the shared guard (config/redis_client.py).

Its main use is the sessions' cache (``cached_db``, config/sessions.py), where the database
holds every session and Redis only spares reading it. So a Redis that is down or hung
costs a request milliseconds, not a socket timeout, and never an error:
- every connection passes the guard's circuit breaker (fail fast while it is open), with
  its hot-path timeout unless OPTIONS name another;
- a read that fails is a miss and a write that fails is skipped: the caller then reads
  the database, as it would have without a cache;
- a delete that fails raises. A deleted key that stayed in the cache would come back as
  soon as Redis does: an ended session would be valid again. So does ``set_strict``, the
  write of a mark that must land (challenges/auth.py: a changed user's copy is held off).

``read_pointed`` reads a key and the key another key points to in one round trip, and
``prefetched`` lets the rest of the request read what it brought without asking Redis
again (challenges/auth.py: a request's session and its user, or a token's user, in one).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from config import redis_client
from config.redis_client import GuardedConnectionPool

# What a Redis that is down or hung raises (the guard's Unavailable is a ConnectionError).
FAILED = (RedisConnectionError, RedisTimeoutError)

# KEYS[1]: a key whose value (an id) completes ARGV[1] into the key read second; KEYS[2]
# (if given): a key read as it is. Both values, or false where a key is missing.
_READ_POINTED = """
local out = {false, false}
local id = redis.call('GET', KEYS[1])
if id then out[1] = redis.call('GET', ARGV[1] .. id) end
if KEYS[2] then out[2] = redis.call('GET', KEYS[2]) end
return out
"""

# Values this request's thread already read (full keys), each served once by ``get``.
_prefetched: ContextVar[dict[str, object] | None] = ContextVar("prefetched", default=None)


class _OneClient(RedisCacheClient):
    """Django's client builds a ``redis.Redis`` per command (~0.2 ms of CPU here, a session
    is read on every request): one per pool instead, as redis-py's clients are thread-safe."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(connection_pool=self._get_connection_pool(write))
        return client


class GuardedRedisCache(RedisCache):
    def __init__(self, server, params):
        options = {
            "pool_class": GuardedConnectionPool,
            "socket_timeout": redis_client.HOT_TIMEOUT,  # read here: the tests move it (tests/conftest.py)
            "socket_connect_timeout": redis_client.HOT_TIMEOUT,
            **params.get("OPTIONS", {}),
        }
        super().__init__(server, {**params, "OPTIONS": options})
        self._class = _OneClient
        self._scripts: dict[int, Any] = {}  # one Lua script object per client

    def get(self, key, default=None, version=None):
        ready = _prefetched.get()
        if ready:
            full = self.make_key(key, version)
            if full in ready:
                value = ready.pop(full)
                return default if value is None else value
        try:
            return super().get(key, default, version)
        except FAILED:
            return default

    def read_pointed(self, pointer: str, prefix: str, other: str | None = None) -> tuple[object, object]:
        """In one round trip: the value under ``prefix`` + the value of ``pointer``, and the
        value of ``other``; None for a missing key (or both, when Redis failed)."""
        client = self._cache.get_client()  # type: ignore[attr-defined]
        script = self._scripts.get(id(client))
        if script is None:
            script = self._scripts[id(client)] = client.register_script(_READ_POINTED)
        keys = [self.make_key(pointer)] + ([self.make_key(other)] if other is not None else [])
        try:
            pointed, value = script(keys=keys, args=[self.make_key(prefix)])
        except FAILED:
            return None, None
        loads = self._cache._serializer.loads  # type: ignore[attr-defined]
        return (None if pointed is None else loads(pointed)), (None if value is None else loads(value))

    @contextmanager
    def prefetched(self, values: dict[str, object]) -> Iterator[None]:
        """While the block runs, ``get`` of one of these keys answers its value (None: the
        key is missing) once, without asking Redis."""
        token = _prefetched.set({self.make_key(key): value for key, value in values.items()})
        try:
            yield
        finally:
            _prefetched.reset(token)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        try:
            super().set(key, value, timeout, version)
        except FAILED:
            pass

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        try:
            return super().add(key, value, timeout, version)
        except FAILED:
            return False

    def set_strict(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        """``set`` that raises when Redis cannot take the value."""
        super().set(key, value, timeout, version)

    def has_key(self, key, version=None):
        try:
            return super().has_key(key, version)
        except FAILED:
            return False
