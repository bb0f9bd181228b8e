"""The embedded default (no REDIS_URL: eager tasks, no worker, no beat) recovers
an attempt whose in-request verification failed: the web process sweeps on its first
request and then on one request per EMBEDDED_SWEEP_EVERY."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from challenges import services
from challenges.models import Attempt
from leaderboard.models import Result
from tests.conftest import new_player

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def embedded(settings):
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        pytest.skip("the embedded default has no REDIS_URL (with one, beat sweeps)")
    settings.EMBEDDED_SWEEP = True  # off in the test settings (it would sweep in every new client)


def finish_with_a_failing_verification(monkeypatch) -> Attempt:
    """A ranked game played to its end while every replay fails: it stays `verifying`."""

    def broken(**kwargs):
        raise RuntimeError("the replay crashed")

    with monkeypatch.context() as patched:
        patched.setattr(services, "attempts_verify", broken)
        client = new_player("Stuck Sam")
        view = client.post("/api/challenges/today/attempt").json()
        while view["status"] == "playing":
            response = client.post(
                f"/api/attempts/{view['id']}/asks", {"rank": view["hand"][0][:-1], "move": view["move"]}, format="json"
            )
            assert response.status_code == 200, response.content
            view = response.json()
    attempt = Attempt.objects.get(pk=view["id"])
    assert attempt.status == Attempt.Status.VERIFYING
    # As if the game had ended long ago (longer than VERIFY_STUCK_AFTER).
    Attempt.objects.filter(pk=attempt.pk).update(verify_enqueued_at=timezone.now() - dt.timedelta(hours=1))
    return attempt


def status_of(attempt: Attempt) -> str:
    return Attempt.objects.get(pk=attempt.pk).status


def test_a_stuck_attempt_is_verified_by_the_next_process_start_without_a_worker(embedded, monkeypatch, client):
    attempt = finish_with_a_failing_verification(monkeypatch)
    # A new web process (a new handler): its first request sweeps.
    assert client.get("/healthz").status_code == 200
    assert status_of(attempt) == Attempt.Status.VERIFIED
    assert Result.objects.filter(attempt_id=attempt.pk).count() == 1


def test_a_running_process_sweeps_again_once_the_interval_has_passed(embedded, monkeypatch, settings):
    from rest_framework.test import APIClient

    from challenges import embedded_sweep

    now = [1000.0]
    monkeypatch.setattr(embedded_sweep, "monotonic", lambda: now[0])
    web = APIClient()
    assert web.get("/healthz").status_code == 200  # the process's start: its sweep finds nothing yet
    attempt = finish_with_a_failing_verification(monkeypatch)

    now[0] += settings.EMBEDDED_SWEEP_EVERY.total_seconds() - 1
    web.get("/healthz")
    assert status_of(attempt) == Attempt.Status.VERIFYING  # throttled: not yet

    now[0] += 1
    web.get("/healthz")
    assert status_of(attempt) == Attempt.Status.VERIFIED
