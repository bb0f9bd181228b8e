"""One Redis client per process for the app's own keys (rank index, verification queue)."""
from __future__ import annotations

from functools import lru_cache

from django.conf import settings


def redis_client():
    """The client for REDIS_URL, or None on the embedded default (no Redis)."""
    return _client(settings.REDIS_URL) if settings.REDIS_URL else None


@lru_cache(maxsize=4)
def _client(url: str):
    import redis

    # Short timeouts: a Redis outage must cost a request milliseconds, not seconds.
    return redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5, health_check_interval=10)
