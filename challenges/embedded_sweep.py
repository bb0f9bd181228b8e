"""The sweeper of the embedded default (no REDIS_URL: eager Celery, no worker, no beat).

With a broker, beat runs ``sweep_verifying`` every SWEEP_SECONDS. The embedded default
verifies a finished game inside the request that finished it; if that fails (a locked
SQLite, a crash mid-replay), nothing would ever try again and the attempt stayed
`verifying` for ever. Here the web process itself is the beat: the first request it serves
sweeps (so a restart recovers what the last run left), then at most one request per
EMBEDDED_SWEEP_EVERY, after its own response is ready. The sweep re-enqueues attempts
`verifying` for longer than VERIFY_STUCK_AFTER, and eagerly that means replayed on the spot.
With a broker this middleware removes itself. It is challenges' (it runs challenges'
sweeper task), not the project's plumbing in config/.
"""

from __future__ import annotations

import logging
import threading
from time import monotonic

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed

from . import tasks

log = logging.getLogger(__name__)


class EmbeddedSweepMiddleware:
    def __init__(self, get_response):
        if not settings.CELERY_TASK_ALWAYS_EAGER:
            raise MiddlewareNotUsed("beat runs the sweeper")
        if not settings.EMBEDDED_SWEEP:
            raise MiddlewareNotUsed("EMBEDDED_SWEEP is off")
        self.get_response = get_response
        self.every = settings.EMBEDDED_SWEEP_EVERY.total_seconds()
        self.due = float("-inf")  # the first request sweeps
        self.lock = threading.Lock()

    def __call__(self, request):
        response = self.get_response(request)
        if monotonic() >= self.due and self.lock.acquire(blocking=False):
            try:
                self.due = monotonic() + self.every
                self.sweep()
            finally:
                self.lock.release()
        return response

    @staticmethod
    def sweep() -> None:
        try:
            tasks.sweep_verifying()
        except Exception:  # the request is answered already; the next sweep tries again
            log.exception("embedded sweep failed")
