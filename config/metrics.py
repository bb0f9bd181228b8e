"""The stack's metrics for Prometheus, and ``/metrics`` that serves them.

Every process of the stack (gunicorn's workers, uvicorn's sockets, Celery's worker pool and
beat) counts into its own memory-mapped files under ``PROMETHEUS_MULTIPROC_DIR``
(prometheus-client's multiprocess mode; scripts/stack empties it at each start); ``/metrics``,
served by any web worker, sums them all. Without that variable (``make run``, the tests) a
process counts for itself alone.

``/metrics`` answers only a request carrying ``Authorization: Bearer <METRICS_TOKEN>``;
without that header, with another token, or with ``METRICS_TOKEN`` unset, it is the site's
404: nobody learns it is there. Besides the counters, a scrape reads a few gauges of state
from the database (the functions named by ``settings.METRICS_GAUGES``).

Labels are bounded: transports, refusal codes of the code base, route patterns, task names;
never a player, an attempt or free text. docs/operations.md lists the metrics.
"""

from __future__ import annotations

import datetime as dt
import hmac
import logging
import os
import re
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    multiprocess,
    values,
)
from prometheus_client import generate_latest as _generate_latest
from prometheus_client.core import GaugeMetricFamily

log = logging.getLogger(__name__)
MULTIPROCESS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if MULTIPROCESS_DIR:
    try:
        os.makedirs(MULTIPROCESS_DIR, exist_ok=True)
    except OSError:
        pass
    if not os.access(MULTIPROCESS_DIR, os.W_OK | os.X_OK):
        # Counting must never fail a request: this process then counts for itself alone.
        log.error(
            "PROMETHEUS_MULTIPROC_DIR %s is not a writable directory: this process's metrics only", MULTIPROCESS_DIR
        )
        MULTIPROCESS_DIR = ""
        values.ValueClass = values.MutexValue
_HOST = re.sub(r"[^A-Za-z0-9.-]", "-", socket.gethostname())[:40] or "host"


def process_id(pid: int | None = None) -> str:
    """This process's name in the metrics directory: host and pid, so containers sharing
    one directory (docker-compose.yml) never write each other's files."""
    return f"{_HOST}-{os.getpid() if pid is None else pid}"


if MULTIPROCESS_DIR:
    # Before any metric below exists: each one takes ValueClass as it is created.
    values.ValueClass = values.MultiProcessValue(process_identifier=process_id)

ASK_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

ASK_SECONDS = Histogram(
    "peche_ask_seconds",
    "An ask through the pipeline (challenges/ask_api.py), by transport and outcome (ok or the refusal's code); "
    "its _count is the asks counter.",
    ["transport", "outcome"],
    buckets=ASK_BUCKETS,
)
REQUEST_SECONDS = Histogram(
    "peche_request_seconds",
    "An HTTP request in Django, by route pattern and status class.",
    ["view", "status"],
    buckets=ASK_BUCKETS,
)
SOCKETS_OPEN = Gauge("peche_sockets_open", "Game sockets open (accepted, playing).", multiprocess_mode="livesum")
VERIFICATION_LAG = Histogram(
    "peche_verification_lag_seconds",
    "From a game's last ask (finished) to its verification (replayed, result written).",
    buckets=(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600),
)
RANK_INDEX_REBUILDS = Counter("peche_rank_index_rebuilds", "A day's rank index rebuilt from the database.")
BREAKER_OPEN = Gauge(
    "peche_redis_breaker_open",
    "1 while a process's circuit breaker on Redis is open (config/redis_client.py); the max over processes.",
    multiprocess_mode="livemax",
)
TASK_SECONDS = Histogram(
    "peche_task_seconds",
    "A Celery task's run in the worker, by task and state (success, failure, retry).",
    ["task", "state"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
TASK_FAILURES = Counter("peche_task_failures", "Celery tasks that raised, by task.", ["task"])
SCHEDULED_RUN = Gauge(
    "peche_scheduled_task_last_run_timestamp_seconds",
    "When a task of beat's schedule last ran to its end (the worker's clock), by task.",
    ["task"],
    multiprocess_mode="max",
)

ANALYSIS_REFUSED = Counter(
    "peche_analysis_refused",
    "Analyses readers asked for and refused, nothing queued, by reason (budget: the day's budget of every "
    "address together spent).",
    ["reason"],
)
DISALLOWED_HOST = Counter(
    "peche_disallowed_host",
    "Requests answered 400 for a Host header outside ALLOWED_HOSTS (logged once a minute at most: config/security.py).",
)

# The labelled series already made, by their labels: ``labels()`` would check and convert
# the labels and take a lock on every observation (the ask's hot path).
_series: dict[tuple[Any, ...], Any] = {}


def _one(metric: Any, *labels: str) -> Any:
    found = _series.get((metric, *labels))
    if found is None:
        found = _series[(metric, *labels)] = metric.labels(*labels)
    return found


def ask_done(transport: str, outcome: str, started: float) -> None:
    """One ask, ``started`` at this ``time.perf_counter()``."""
    _one(ASK_SECONDS, transport, outcome).observe(time.perf_counter() - started)


def verified(finished: Iterable[dt.datetime | None]) -> None:
    """Games verified (or rejected) now, each finished at its time."""
    now = time.time()
    for at in finished:
        if at is not None:
            VERIFICATION_LAG.observe(max(0.0, now - at.timestamp()))


def analysis_refused(reason: str) -> None:
    _one(ANALYSIS_REFUSED, reason).inc()


def disallowed_host() -> None:
    DISALLOWED_HOST.inc()


def breaker_state(is_open: bool) -> None:
    BREAKER_OPEN.set(1 if is_open else 0)


def process_dead(pid: int) -> None:
    """A forked process ended (gunicorn's ``child_exit``, Celery's pool): its live gauges
    (open sockets, breaker) leave the sum."""
    if MULTIPROCESS_DIR:
        multiprocess.mark_process_dead(process_id(pid), MULTIPROCESS_DIR)


class _Gauges:
    """The gauges read at scrape time: each function of ``settings.METRICS_GAUGES`` returns
    ``(name, help, labels, value)`` rows, read from the database by the process serving
    ``/metrics``."""

    def __init__(self, readers: list[Callable[[], Iterable[tuple[str, str, dict[str, str], float]]]]) -> None:
        self.readers = readers

    def collect(self) -> Iterable[GaugeMetricFamily]:
        families: dict[str, GaugeMetricFamily] = {}
        for reader in self.readers:
            try:
                rows = reader()
            except Exception as exc:  # the database down: the counters are still served
                log.warning("metrics gauges unread reader=%s error=%s", reader.__name__, exc.__class__.__name__)
                continue
            for name, text, labels, value in rows:
                family = families.get(name)
                if family is None:
                    family = families[name] = GaugeMetricFamily(name, text, labels=sorted(labels))
                family.add_metric([labels[key] for key in sorted(labels)], value)
        return list(families.values())


def exposition() -> bytes:
    """The text Prometheus reads: every process's metrics summed, and the gauges of state."""
    if MULTIPROCESS_DIR:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, MULTIPROCESS_DIR)
        registry.register(_Gauges([import_string(path) for path in settings.METRICS_GAUGES]))
        return _generate_latest(registry)
    registry = CollectorRegistry()
    registry.register(_Gauges([import_string(path) for path in settings.METRICS_GAUGES]))
    return _generate_latest(REGISTRY) + _generate_latest(registry)


def serve(request: HttpRequest) -> HttpResponse:
    """``/metrics``: for the bearer of METRICS_TOKEN only, else the site's 404."""
    token = settings.METRICS_TOKEN
    given = request.headers.get("Authorization", "")
    if not token or not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        raise Http404
    response = HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response


STATUS_CLASS = {n: f"{n}xx" for n in range(1, 6)}


class RequestMiddleware:
    """Every request's time in Django by route pattern (``api/attempts/<int:attempt_id>/asks``,
    bounded by the URL map; ``unmatched`` for a 404 of no route) and status class."""

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> Any:
        started = time.perf_counter()
        response = self.get_response(request)
        match = request.resolver_match
        _one(
            REQUEST_SECONDS,
            match.route if match is not None else "unmatched",
            STATUS_CLASS.get(response.status_code // 100, "other"),
        ).observe(time.perf_counter() - started)
        return response
