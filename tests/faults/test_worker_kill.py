"""Fault: the verification worker is SIGKILLed twice while 200 finished attempts are being
verified, each time while it holds ids it has taken from the pending list and not yet
committed. Every attempt ends `verified` exactly once and the ranks are consistent."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection
from django.utils import timezone

from bench.fixtures import finished_attempts
from challenges import days, services
from challenges.models import Attempt
from challenges.services import VERIFY_PENDING
from config.redis_client import redis_client
from leaderboard import rank_index, selectors
from leaderboard.models import Result
from leaderboard.services import rebuild_index
from tests.conftest import WORKER_APP_NAME, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_worker_sigkilled_twice_loses_and_duplicates_nothing(celery_worker_process):
    challenge, ids = finished_attempts(200, day=days.today())
    rebuild_index(challenge_id=challenge.pk)  # the day's (empty) index is live from the start
    ours = set(ids)
    client = redis_client()  # the session's own Redis, the worker's broker
    pushed: set[int] = set()
    lock = threading.Lock()  # held by the test while it kills and counts: nothing is pushed meanwhile
    halves = [ids[:100], ids[100:]]
    go = [threading.Event(), threading.Event()]

    def submit():  # two streams of 100 finishing games, ~1 s each: one per kill
        for half, event in zip(halves, go):
            event.wait(300)
            for attempt_id in half:
                with lock:
                    services.enqueue_verification(attempt_id)
                    pushed.add(attempt_id)
                time.sleep(0.01)

    def held() -> set[int]:
        """Ids pushed, no longer in the pending list, without a result. Only a worker pops
        the list, so these are ids a worker has taken and not committed, or ids a killed
        worker took with it (which only the sweeper gives back)."""
        listed = {int(i) for i in client.lrange(VERIFY_PENDING, 0, -1)} & ours
        return pushed - listed - set(Result.objects.filter(attempt_id__in=ids).values_list("attempt_id", flat=True))

    def no_worker_session() -> bool:
        """The killed worker's Postgres sessions are gone: a commit it had sent is in or out.
        Only the worker's: the suite's live server keeps a session of its own open."""
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s",
                [WORKER_APP_NAME],
            )
            return cursor.fetchone()[0] == 0

    stranded: set[int] = set()  # held() once the last kill was over
    landed = 0
    nudged_at = time.monotonic()
    created = timezone.now()

    def kill_if_busy() -> bool:
        nonlocal stranded, landed, nudged_at
        with lock:
            if not held() - stranded:  # the worker holds nothing right now: wait
                if time.monotonic() - nudged_at > 1:
                    # Half the beat's job: a drain whose message a killed worker had
                    # prefetched is scheduled again. Its clock is the attempts' creation, so
                    # nothing counts as stuck yet and no id is re-enqueued meanwhile.
                    services.sweep_verifying(now=created)
                    nudged_at = time.monotonic()
                return False
            celery_worker_process.kill()
            wait_for(no_worker_session, timeout=20)
            after = held()  # counted once the worker is dead and nothing is being pushed
        if after - stranded:  # it died holding ids it had popped and not committed
            landed += 1
        stranded = after
        return True

    submitter = threading.Thread(target=submit, daemon=True)
    submitter.start()
    kills = 0
    try:
        for event in go:
            event.set()
            before = landed
            for _ in range(4):  # a kill may land just after a commit: then again, boundedly
                wait_for(kill_if_busy, timeout=60, interval=0.005)
                kills += 1
                celery_worker_process.start()
                if landed > before:
                    break
    finally:  # the worker is the session's: the tests after this one need it alive
        if celery_worker_process.proc is None or celery_worker_process.proc.poll() is not None:
            celery_worker_process.start()
    submitter.join(60)
    print(f"{kills} kills, {landed} while the worker held ids; {len(stranded)} ids stranded for the sweeper")
    # Both streams' kills landed while the worker was inside a verification task, holding
    # ids it had taken from the list; they are stranded until the sweeper re-enqueues them.
    assert landed == 2, f"{landed} of {kills} kills landed while the worker held work"
    assert stranded

    def all_verified():
        services.sweep_verifying()  # the beat's job: re-enqueue what the kills stranded
        return not Attempt.objects.filter(pk__in=ids).exclude(status="verified").exists()

    wait_for(all_verified, timeout=120, interval=1.0)
    assert Result.objects.filter(attempt_id__in=ids).count() == 200
    assert Result.objects.filter(attempt_id__in=ids).values("attempt_id").distinct().count() == 200

    # The rank index holds each result once, in the order SQL ranks them.
    wait_for(lambda: rank_index.page(challenge.pk, 0, 1000)[0] == 200, timeout=30)
    _, indexed = rank_index.page(challenge.pk, 0, 1000)
    by_sql = list(
        selectors.ranked_results(challenge.pk).order_by(*selectors.RANK_ORDER).values_list("attempt_id", flat=True)
    )
    assert indexed == by_sql
    for result in Result.objects.filter(attempt_id__in=ids[:20]):
        assert selectors.result_rank(result) == selectors.sql_rank(result)
