"""Probes for a process manager or load balancer.

/healthz: the process answers (liveness; touches nothing else, so a database outage
does not get every web process restarted). /readyz: it can serve — the database and the
Redis it uses as broker and rank index answer (readiness: take it out of rotation
while they do not).
"""

from __future__ import annotations

import logging

import redis
from django.conf import settings
from django.db import connections
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

log = logging.getLogger(__name__)

PROBE_TIMEOUT = 1.0  # seconds; a probe that hangs is as bad as one that fails


@never_cache
@require_GET
def healthz(request):
    return JsonResponse({"status": "ok"})


def check_database() -> None:
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def redis_urls() -> list[str]:
    """The Redis servers this process depends on (none on the embedded default)."""
    urls = [settings.CELERY_BROKER_URL, settings.REDIS_URL]
    return list(dict.fromkeys(u for u in urls if u and u.startswith(("redis://", "rediss://", "unix://"))))


def check_redis(url: str) -> None:
    client = redis.Redis.from_url(url, socket_timeout=PROBE_TIMEOUT, socket_connect_timeout=PROBE_TIMEOUT)
    try:
        client.ping()
    finally:
        client.close()


@never_cache
@require_GET
def readyz(request):
    checks = {"database": check_database}
    for i, url in enumerate(redis_urls()):
        checks["redis" if i == 0 else f"redis{i + 1}"] = lambda url=url: check_redis(url)
    failed = {}
    for name, check in checks.items():
        try:
            check()
        except Exception as exc:
            failed[name] = exc.__class__.__name__
    if failed:
        detail = "; ".join(f"{name} unreachable ({reason})" for name, reason in failed.items())
        log.warning("not ready: %s", detail)
        return JsonResponse({"error": "not_ready", "detail": detail}, status=503, headers={"Retry-After": "5"})
    return JsonResponse({"status": "ok", "checks": {name: "ok" for name in checks}})
