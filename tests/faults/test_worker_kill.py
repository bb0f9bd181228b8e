"""Fault: the verification worker is SIGKILLed twice while 200 finished attempts are being
verified. Every attempt ends `verified` exactly once and the ranks are consistent."""
from __future__ import annotations

import threading
import time

import pytest

from bench.fixtures import finished_attempts
from challenges import days, services
from challenges.models import Attempt
from leaderboard import rank_index, selectors
from leaderboard.models import Result
from leaderboard.services import rebuild_index
from tests.conftest import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_worker_sigkilled_twice_loses_and_duplicates_nothing(celery_worker_process):
    challenge, ids = finished_attempts(200, day=days.today())
    rebuild_index(challenge_id=challenge.pk)  # the day's (empty) index is live from the start

    def submit():  # about 2 s of finishing games, so that both kills land mid-stream
        for attempt_id in ids:
            services.enqueue_verification(attempt_id)
            time.sleep(0.01)

    submitter = threading.Thread(target=submit)
    submitter.start()
    for _ in range(2):
        time.sleep(0.6)
        assert Attempt.objects.filter(pk__in=ids, status="verifying").exists()  # killed mid-stream
        celery_worker_process.kill()
        celery_worker_process.start()
    submitter.join()

    def all_verified():
        services.sweep_verifying()  # the beat's job: re-enqueue what the kills stranded
        return not Attempt.objects.filter(pk__in=ids).exclude(status="verified").exists()

    wait_for(all_verified, timeout=120, interval=1.0)
    assert Result.objects.filter(attempt_id__in=ids).count() == 200
    assert Result.objects.filter(attempt_id__in=ids).values("attempt_id").distinct().count() == 200

    # The rank index holds each result once, in the order SQL ranks them.
    wait_for(lambda: rank_index.page(challenge.pk, 0, 1000)[0] == 200, timeout=30)
    _, indexed = rank_index.page(challenge.pk, 0, 1000)
    by_sql = list(selectors.ranked_results(challenge.pk).order_by(*selectors.RANK_ORDER)
                  .values_list("attempt_id", flat=True))
    assert indexed == by_sql
    for result in Result.objects.filter(attempt_id__in=ids[:20]):
        assert selectors.result_rank(result) == selectors.sql_rank(result)
