"""Leagues at scale (not a test): a league's day board and its week's standings, for leagues
of 200 members, on a day of N ranked results (1M by default) and a week around it; each
member also played every one of the 300 days after that week (--history), so that their
results of the day are found among a year of their own, as on a site that has run a year.

    .venv/bin/python -m bench.leagues_scale --size 1000000

Target: a league board of 200 members and a week of standings answer in
<= 5 ms p99 in process with 1M results that day. Measured two ways: the selectors alone
(leagues.selectors.day_board / week_standings, what the API answers with) and the whole
API request through Django in process (token authentication, the member check, JSON); the
day board also with its ranks asked after the query (as a league's first read in a process),
beside the same board asking them before it. The calls take turns, in blocks.

Its own database (`bench_leagues`, or BENCH_DB) and a redis-server of its own (BENCH_REDIS to
choose one): the day's rank index is built before measuring, as the site keeps it.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

os.environ.setdefault("BENCH_DB", "bench_leagues")

from bench.pgdb import setup_django  # noqa: E402 (BENCH_DB first)
from harness.stats import percentiles, process_cpu, redis_cpu  # noqa: E402

# As the site runs (config.settings.production): without DEBUG's record of every query.
os.environ.setdefault("DJANGO_DEBUG", "0")

PLAYER_BASE = 2_000_000_000  # the bench's players' ids, far from any real one
WEEK_PLAYERS = 200_000  # the players who also played the week's other six days
# The league members' history: each played every one of this many days after the week
# (a year's regular player), so that a member's results of the measured day or week are
# found among hundreds of their own, as they are on a site that has run for a year.
HISTORY_DAYS = 300


def rank_index_cpu() -> float | None:
    """The CPU seconds redis-server has used (its own count), or None without the rank index."""
    from leaderboard import rank_index

    try:
        return redis_cpu(rank_index._redis())
    except Exception:
        return None


def fill(size: int, monday):
    """The week of ``monday``: ``size`` ranked results on its Thursday, one per player
    (players PLAYER_BASE + 1..size), and WEEK_PLAYERS of them on each other day."""
    import datetime as dt

    from django.db import connection

    from challenges import days, services

    challenges = [services.challenge_for_day(day=monday + dt.timedelta(days=d)) for d in range(7)]
    measured = challenges[3]
    with connection.cursor() as cur:
        cur.execute("select count(*) from leaderboard_result where challenge_id = %s", [measured.pk])
        if cur.fetchone()[0] == size:
            return challenges
        cur.execute("delete from leaderboard_result where challenge_id = any(%s)", [[c.pk for c in challenges]])
        cur.execute("set session_replication_role = replica")
        cur.execute(
            """insert into challenges_player (id, user_id, name, name_key, token_hash, created_at)
               select %s + g, null, 'player ' || g, 'bench player ' || g, md5(g::text) || md5((g + 1)::text), now()
               from generate_series(1, %s) g on conflict do nothing""",
            [PLAYER_BASE, size],
        )
        cur.execute("select coalesce(max(attempt_id), 0) from leaderboard_result")
        base = cur.fetchone()[0]
        for n, challenge in enumerate(challenges):
            players = size if challenge is measured else WEEK_PLAYERS
            cur.execute(
                """
                insert into leaderboard_result (attempt_id, challenge_id, player_id, ranked, score,
                  player_pairs, opponent_pairs, asks, finished_at, verified_at, disqualified, indexed,
                  suspicion, flagged)
                select %s + g, %s, %s + g, true, 1000 + 30 * (p - (26 - p)), p, 26 - p,
                       15 + ((g + %s) * 7919) %% 30, %s + ((g * 104729) %% 86400000) * interval '1 millisecond',
                       now() - interval '1 day', false, true, 0, false
                from (select g::bigint as g, 5 + ((g + %s)::bigint * 31337) %% 17 as p
                      from generate_series(1, %s) g) s""",
                [base, challenge.pk, PLAYER_BASE, n, days.opens_at(challenge.date), n, players],
            )
            base += players
        cur.execute("set session_replication_role = origin")
        cur.execute("analyze leaderboard_result")
        cur.execute("analyze challenges_player")
    return challenges


def make_leagues(count: int, size: int, members: int, requester, rng: random.Random):
    """``count`` leagues of ``members`` players drawn from the day's, the requester in each."""
    from leagues.models import League, Membership

    League.objects.filter(name__startswith="Bench league").delete()
    leagues = League.objects.bulk_create(
        [League(name=f"Bench league {n}", name_key=f"benchleague{n}", code=f"BENCH{n:05d}") for n in range(count)]
    )
    rows = []
    for league in leagues:
        picked = rng.sample(range(1, size + 1), members - 1)
        rows += [Membership(league=league, player_id=PLAYER_BASE + g) for g in picked]
        rows.append(Membership(league=league, player=requester))
    # Members join over weeks, each league's between the others': a league's memberships lie
    # on as many pages of the table as it has members, not side by side.
    rng.shuffle(rows)
    Membership.objects.bulk_create(rows, batch_size=5000)
    League.objects.filter(pk__in=[lg.pk for lg in leagues]).update(owner=requester)
    return leagues


def add_history(leagues, monday, days_after: int) -> None:
    """Each member's results on the ``days_after`` days that follow the week of ``monday``
    (kept from an earlier run when they are already there)."""
    import datetime as dt

    from django.db import connection

    from challenges import days, services
    from leagues.models import Membership

    challenges = [services.challenge_for_day(day=monday + dt.timedelta(days=7 + d)) for d in range(days_after)]
    members = sorted(
        set(
            Membership.objects.filter(league__in=leagues, player_id__gt=PLAYER_BASE).values_list("player_id", flat=True)
        )
    )
    ids = [c.pk for c in challenges]
    with connection.cursor() as cur:
        # The leagues were made a moment ago; a migration may have rewritten every player
        # (challenges 0006 did, twice): vacuumed as autovacuum keeps a site's tables.
        cur.execute("vacuum analyze leagues_membership, challenges_player")
        cur.execute(
            "select count(*) from leaderboard_result where challenge_id = any(%s) and player_id = any(%s)",
            [ids, members],
        )
        if cur.fetchone()[0] == len(ids) * len(members):
            return
        cur.execute("delete from leaderboard_result where challenge_id = any(%s)", [ids])
        cur.execute("set session_replication_role = replica")
        cur.execute("select coalesce(max(attempt_id), 0) from leaderboard_result")
        base = cur.fetchone()[0]
        for n, challenge in enumerate(challenges):
            cur.execute(
                """
                insert into leaderboard_result (attempt_id, challenge_id, player_id, ranked, score,
                  player_pairs, opponent_pairs, asks, finished_at, verified_at, disqualified, indexed,
                  suspicion, flagged)
                select %s + k, %s, pid, true, 1000 + 30 * (p - (26 - p)), p, 26 - p,
                       15 + ((pid + %s) * 7919) %% 30, %s + ((pid * 104729) %% 86400000) * interval '1 millisecond',
                       now(), false, true, 0, false
                from (select pid, k, 5 + ((pid + %s) * 31337) %% 17 as p
                      from unnest(%s::bigint[]) with ordinality as u(pid, k)) s""",
                [base, challenge.pk, n, days.opens_at(challenge.date), n, members],
            )
            base += len(members)
        cur.execute("set session_replication_role = origin")
        cur.execute("vacuum analyze leaderboard_result")


def main() -> None:
    import datetime as dt

    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=1_000_000, help="ranked results on the measured day")
    parser.add_argument("--leagues", type=int, default=20)
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--history", type=int, default=HISTORY_DAYS, help="days each member also played")
    args = parser.parse_args()
    setup_django("BENCH_REDIS")
    from django.conf import settings
    from django.core.handlers.wsgi import WSGIHandler

    from bench import provenance
    from challenges import services as challenge_services
    from challenges.models import Player
    from harness.wsgi_client import Client
    from leaderboard import selectors as board
    from leaderboard import services
    from leagues import hints, selectors

    # The code measured, named when the run starts (the tree may change while it runs).
    measured_code = provenance.commit("leagues", "leaderboard", "challenges", "config", "bench/leagues_scale.py")
    print(f"commit {measured_code} · {provenance.machine()} · load at start {provenance.load_average()}", flush=True)
    settings.ALLOWED_HOSTS = ["*"]
    rng = random.Random(28)
    # A closed week of the past (FIRST_DAY's is the first there is): browsable, settled.
    first = settings.FIRST_DAY
    monday = first - dt.timedelta(days=first.weekday()) + dt.timedelta(days=7 * 4)
    t = time.perf_counter()
    challenges = fill(args.size, monday)
    filled = time.perf_counter() - t
    measured = challenges[3]
    t = time.perf_counter()
    from leaderboard import rank_index

    if rank_index.is_ready(measured.pk) and rank_index.size(measured.pk) == args.size:
        built = float("nan")  # kept by BENCH_REDIS from an earlier run of the same day
    else:
        services.rebuild_index(challenge_id=measured.pk)
        built = time.perf_counter() - t
    Player.objects.filter(name="Bench Requester").delete()
    requester, token = challenge_services.player_create(name="Bench Requester")
    leagues = make_leagues(args.leagues, args.size, args.members, requester, rng)
    t = time.perf_counter()
    add_history(leagues, monday, args.history)
    filled += time.perf_counter() - t

    day_text, week_text = measured.date.isoformat(), selectors.week_of(monday)
    # Correct before fast: the board is the members' global order, with the global ranks SQL counts.
    first_board = selectors.day_board(leagues[0].pk, measured.date, member=requester)
    entries = first_board["entries"]
    assert len(entries) == args.members - 1 and [e["rank"] for e in entries] == list(range(1, len(entries) + 1))
    assert [e["global_rank"] for e in entries] == sorted(e["global_rank"] for e in entries)
    results = {
        r.player_id: r
        for r in board.ranked_results(measured.pk).filter(player_id__in=[e["player_id"] for e in entries[:5]])
    }
    for e in entries[:5]:
        assert e["global_rank"] == board.sql_rank(results[e["player_id"]])
    week = selectors.week_standings(leagues[0].pk, monday, member=requester)
    assert len(week["entries"]) == args.members and week["entries"][0]["days"] >= 1

    # The site's WSGI application called in process (no socket, no server), as bench.ask_cpu
    # does: Django's test client adds its own work (signals, template capture) to each request.
    client = Client(WSGIHandler())
    status, body = client("GET", f"/api/leagues/{leagues[0].pk}/leaderboard/{day_text}", token=token)
    assert status == 200 and body["entries"] == entries

    cpu: dict[str, list[float]] = {}
    servers: dict[str, tuple[float | None, float | None]] = {}
    from django.db import connection

    # The calls take turns, in blocks of BLOCK requests each, so that a machine whose speed
    # drifts during the run (seen here: a board's median moved by half within a minute)
    # weighs on every call alike, and the ratios between them hold.
    block = max(1, min(100, args.samples // 10))
    wall: dict[str, list[float]] = {}
    used_pg: dict[str, float | None] = {}
    used_redis: dict[str, float | None] = {}

    def timed(fn, label: str, first: int) -> None:
        """Wall times of ``block`` requests; this process's CPU times kept beside them (a
        loaded machine's wall time is mostly waiting for a core, its own CPU time much less
        so), and the CPU the requests cost Postgres' backend and redis-server: a request's
        wall time is the three processes' work, one after the other or side by side, and
        their wake-ups."""
        connection.ensure_connection()
        pg_pid = connection.connection.info.backend_pid
        pg0, redis0 = process_cpu(pg_pid), rank_index_cpu()
        out, used = wall.setdefault(label, []), cpu.setdefault(label, [])
        for n in range(first, first + block):
            league = leagues[n % len(leagues)]
            t, c = time.perf_counter(), time.process_time()
            fn(league)
            out.append(time.perf_counter() - t)
            used.append(time.process_time() - c)
        pg1, redis1 = process_cpu(pg_pid), rank_index_cpu()
        same_backend = connection.connection is not None and connection.connection.info.backend_pid == pg_pid
        for kept, before, after, alike in ((used_pg, pg0, pg1, same_backend), (used_redis, redis0, redis1, True)):
            so_far = kept.get(label, 0.0)
            if before is None or after is None or not alike or so_far is None:
                kept[label] = None  # unknown for one block: unknown
            else:
                kept[label] = so_far + after - before

    def serial_board(lg):
        # Without asking the rank index ahead of the query (leagues.hints.BoardHints): as a
        # league's first read in a process is. The hints stay, for the other calls.
        hints.board_hints.asking = False
        try:
            return selectors.day_board(lg.pk, measured.date, member=requester)
        finally:
            hints.board_hints.asking = True

    calls = {
        "day board, selector": lambda lg: selectors.day_board(lg.pk, measured.date, member=requester),
        "day board, selector, ranks after query": serial_board,
        "week standings, selector": lambda lg: selectors.week_standings(lg.pk, monday, member=requester),
        "GET /api/leagues/<id>/leaderboard/<date>": lambda lg: client(
            "GET", f"/api/leagues/{lg.pk}/leaderboard/{day_text}", token=token, parse=False
        ),
        "GET /api/leagues/<id>/week/<week>": lambda lg: client(
            "GET", f"/api/leagues/{lg.pk}/week/{week_text}", token=token, parse=False
        ),
    }
    for call in calls.values():
        call(leagues[0])  # a request may open a new connection (conn_max_age): not measured
    # What every gunicorn worker does once started: the process's objects so far out of the
    # collector's reach. Without it a full collection here scans Django and the bench's data:
    # 55-80 ms on one request in each run (the API day board's max), where the site's workers
    # pause ~10 ms.
    from config.gunicorn import post_worker_init

    post_worker_init(None)
    for start in range(0, args.samples - block + 1, block):
        for label, call in calls.items():
            timed(call, label, start)
    runs = wall

    def per_request(used: float | None, samples: list[float]) -> float | None:
        return None if used is None else used / len(samples)

    for label, samples in runs.items():
        servers[label] = (per_request(used_pg[label], samples), per_request(used_redis[label], samples))

    def server_ms(sql: str, params) -> tuple[float, float, bool]:
        """Postgres' planning and execution times of a board's query (EXPLAIN ANALYZE, the
        medians of 20, leagues in turn) and whether it compiled it (JIT). The selectors run
        it prepared, with a generic plan: they pay no planning (leagues.selectors._rows)."""
        planning, execution, jit = [], [], False
        for n in range(20):
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, SUMMARY, FORMAT JSON) " + sql, params(leagues[n % len(leagues)]))
                plan = cursor.fetchone()[0][0]
            planning.append(plan["Planning Time"])
            execution.append(plan["Execution Time"])
            jit = jit or "JIT" in plan
        return statistics.median(planning), statistics.median(execution), jit

    day_sql = server_ms(
        selectors._sql(selectors._DAY_SQL), lambda lg: ["peche", measured.date, lg.pk, lg.pk, requester.pk]
    )
    week_sql = server_ms(
        selectors._sql(selectors._WEEK_SQL),
        lambda lg: ["peche", monday, monday + dt.timedelta(days=6), lg.pk, lg.pk, requester.pk],
    )
    print(f"load at the end {provenance.load_average()}")
    print(
        f"{args.size:,} ranked results on {day_text} ({WEEK_PLAYERS:,} on each other day of {week_text}, "
        f"and each member's on {args.history} more days); {args.leagues} leagues of {args.members} members; {args.samples} requests each, leagues in turn; "
        f"fill {filled:.0f} s, rank index build {built:.1f} s"
    )
    print(f"{'wall time, and this process CPU time':<44} | {'p50 ms':>7} | {'p99 ms':>7} | {'max ms':>7} | "
          f"{'CPU p50':>7} | {'CPU p99':>7} | {'PG CPU':>6} | {'Redis':>6}")  # fmt: skip
    for label, samples in runs.items():
        p50, p99 = percentiles(samples)
        c50, c99 = percentiles(cpu[label])
        pg, redis = (f"{x * 1000:>6.2f}" if x is not None else f"{'n/a':>6}" for x in servers[label])
        print(
            f"{label:<44} | {p50:>7.2f} | {p99:>7.2f} | {max(samples) * 1000:>7.2f} | {c50:>7.2f} | {c99:>7.2f} | "
            f"{pg} | {redis}"
        )
    print("PG CPU, Redis: the CPU time of Postgres' backend and of redis-server per request, mean ms")
    for name, (planning, execution, jit) in (("day board", day_sql), ("week", week_sql)):
        print(
            f"Postgres, {name} query (EXPLAIN ANALYZE, medians of 20): planning {planning:.2f} ms (not paid: "
            f"prepared), execution {execution:.2f} ms{', JIT' if jit else ', no JIT'}"
        )


if __name__ == "__main__":
    main()
