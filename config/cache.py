"""Django's Redis cache, through the shared guard (config/redis_client.py).

Its main use is the sessions' cache (``cached_db``, config/sessions.py), where the database
holds every session and Redis only spares reading it. So a Redis that is down or hung
costs a request milliseconds, not a socket timeout, and never an error:
- every connection passes the guard's circuit breaker (fail fast while it is open), with
  its hot-path timeout unless OPTIONS name another;
- a read that fails is a miss and a write that fails is skipped: the caller then reads
  the database, as it would have without a cache;
- a delete that fails raises. A deleted key that stayed in the cache would come back as
  soon as Redis does: an ended session would be valid again.
"""
from __future__ import annotations

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from config.redis_client import HOT_TIMEOUT, GuardedConnectionPool

# What a Redis that is down or hung raises (the guard's Unavailable is a ConnectionError).
FAILED = (RedisConnectionError, RedisTimeoutError)


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
        options = {"pool_class": GuardedConnectionPool, "socket_timeout": HOT_TIMEOUT,
                   "socket_connect_timeout": HOT_TIMEOUT, **params.get("OPTIONS", {})}
        super().__init__(server, {**params, "OPTIONS": options})
        self._class = _OneClient

    def get(self, key, default=None, version=None):
        try:
            return super().get(key, default, version)
        except FAILED:
            return default

    def set(self, key, value, timeout=None, version=None):
        try:
            super().set(key, value, timeout, version)
        except FAILED:
            pass

    def has_key(self, key, version=None):
        try:
            return super().has_key(key, version)
        except FAILED:
            return False
