"""Fault: the verification worker is SIGKILLed twice while 200 finished attempts are being
verified, each time while it holds ids it has taken from the pending list and not yet
committed. Every attempt ends `verified` exactly once and the ranks are consistent.

No step waits on the machine's speed: another Postgres session holds the row locks of
the attempts about to be enqueued, so the worker that takes them from the list waits
inside its verification (popped, not committed) until the test has seen it wait and
killed it. Every wait is on something the test observes, and bounded."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from django.db.models import Min
from django.utils import timezone

from challenges import days, services
from challenges.models import Attempt
from challenges.services import VERIFY_PENDING
from config.redis_client import redis_client
from harness.fixtures import finished_attempts
from leaderboard import rank_index, selectors
from leaderboard.models import Result
from leaderboard.services import rebuild_index
from tests.conftest import WORKER_APP_NAME, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@contextmanager
def rows_locked(attempt_ids: list[int]) -> Iterator[None]:
    """A session of its own holds these attempts' row locks until the block ends (and
    then takes nothing with it: rolled back)."""
    db = connection.settings_dict
    with psycopg.connect(
        dbname=db["NAME"],
        user=db["USER"] or None,
        password=db["PASSWORD"] or None,
        host=db["HOST"] or None,
        port=db["PORT"] or None,
    ) as locker:
        table = Attempt._meta.db_table
        locker.execute(f"SELECT id FROM {table} WHERE id = ANY(%s) FOR UPDATE", [attempt_ids])
        try:
            yield
        finally:
            locker.rollback()


def worker_sessions(waiting_on_a_lock: bool = False) -> int:
    """The worker's Postgres sessions (PGAPPNAME names them; the suite's live server keeps
    a session of its own), or those of them waiting for a lock."""
    query = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s"
    if waiting_on_a_lock:
        query += " AND wait_event_type = 'Lock'"
    with connection.cursor() as cursor:
        cursor.execute(query, [WORKER_APP_NAME])
        return cursor.fetchone()[0]


def test_worker_sigkilled_twice_loses_and_duplicates_nothing(celery_worker_process):
    challenge, ids = finished_attempts(200, day=days.today())
    rebuild_index(challenge_id=challenge.pk)  # the day's (empty) index is live from the start
    client = redis_client()  # the session's own Redis, the worker's broker
    # The sweeper's clock for the nudges below: none of these attempts counts as stuck.
    first_enqueued = Attempt.objects.filter(pk__in=ids).aggregate(at=Min("verify_enqueued_at"))["at"]
    pushed: set[int] = set()

    def held() -> set[int]:
        """Ids pushed, no longer in the pending list, without a result. Only a worker pops
        the list, so these are ids a worker has taken and not committed, or ids a killed
        worker took with it (which only the sweeper gives back)."""
        listed = {int(i) for i in client.lrange(VERIFY_PENDING, 0, -1)}
        done = set(Result.objects.filter(attempt_id__in=ids).values_list("attempt_id", flat=True))
        return pushed - listed - done

    nudged_at = 0.0

    def worker_waits_inside_a_verification() -> bool:
        nonlocal nudged_at
        if worker_sessions(waiting_on_a_lock=True):
            return True
        if time.monotonic() - nudged_at > 1:
            # Half the beat's job: a drain whose message the killed worker had prefetched
            # is scheduled again (once its marker expires). No id is re-enqueued.
            services.sweep_verifying(now=first_enqueued)
            nudged_at = time.monotonic()
        return False

    stranded: set[int] = set()
    try:
        for half in (ids[:100], ids[100:]):
            with rows_locked(half):
                for attempt_id in half:
                    services.enqueue_verification(attempt_id)
                    pushed.add(attempt_id)
                wait_for(worker_waits_inside_a_verification, timeout=60, interval=0.02)
                taken = held() - stranded  # popped by the worker now waiting: it cannot commit them
                assert taken & set(half), "the waiting worker holds none of the locked attempts"
                celery_worker_process.kill()
            # Released: the dead worker's session gets the locks, finds no client, rolls back.
            wait_for(lambda: worker_sessions() == 0, timeout=20)
            after = held()
            assert taken <= after, f"{len(taken - after)} ids the killed worker held were committed"
            stranded = after
            celery_worker_process.start()
    finally:  # the worker is the session's: the tests after this one need it alive
        if celery_worker_process.proc is None or celery_worker_process.proc.poll() is not None:
            celery_worker_process.start()
    print(f"{len(stranded)} ids stranded by the two kills for the sweeper")
    assert stranded

    def all_verified():
        # The beat's job, its clock moved past VERIFY_STUCK_AFTER instead of waiting for it.
        services.sweep_verifying(now=timezone.now() + settings.VERIFY_STUCK_AFTER)
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
