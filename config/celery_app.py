import os
import time

from celery import Celery, signals

from config import metrics

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("peche")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# A task's start by its id, in the process running it (config/metrics.py: its time and state).
_started: dict[str, float] = {}


@signals.task_prerun.connect
def _task_started(task_id=None, **_) -> None:
    if task_id:
        _started[task_id] = time.perf_counter()


@signals.task_postrun.connect
def _task_ended(task_id=None, task=None, state=None, **_) -> None:
    started = _started.pop(task_id or "", None)
    if task is None or started is None:
        return
    metrics.TASK_SECONDS.labels(task.name, (state or "unknown").lower()).observe(time.perf_counter() - started)
    if state == "SUCCESS" and task.name in _scheduled():
        metrics.SCHEDULED_RUN.labels(task.name).set(time.time())


@signals.task_failure.connect
def _task_failed(sender=None, **_) -> None:
    metrics.TASK_FAILURES.labels(getattr(sender, "name", "unknown")).inc()


@signals.worker_process_shutdown.connect
def _pool_process_ended(pid=None, **_) -> None:
    metrics.process_dead(pid or os.getpid())


def _scheduled() -> frozenset[str]:
    """The task names of beat's schedule (settings.CELERY_BEAT_SCHEDULE)."""
    return frozenset(entry["task"] for entry in (app.conf.beat_schedule or {}).values())
