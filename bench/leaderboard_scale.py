"""Leaderboard at scale (not a test): top-50 page and my-rank from the Redis rank index,
side by side with a plain Postgres count rank and a window function, at several sizes.

    .venv/bin/python -m bench.leaderboard_scale --sizes 100000 1000000 10000000

Uses its own database (`bench`, created on the local Postgres) and a redis-server of its
own (BENCH_REDIS to choose one, e.g. to --reuse-index across runs), so it never touches the
test or site data. Targets at 10M results in one day:
my-rank p99 <= 2 ms, top-50 p99 <= 5 ms.
"""

from __future__ import annotations

import argparse
import os
import random
import time

from bench.pgdb import setup_django
from harness.stats import percentiles


def timed(fn, args_list) -> list[float]:
    out = []
    for args in args_list:
        t = time.perf_counter()
        fn(*args)
        out.append(time.perf_counter() - t)
    return out


def fill(size: int):
    """A day with ``size`` ranked results (FK checks off while bulk-loading)."""
    import datetime as dt

    from django.db import connection

    from challenges import days, services

    day = dt.date(2000, 1, 1) + dt.timedelta(days=size % 997)
    challenge = services.challenge_for_day(day=day)
    with connection.cursor() as cur:
        cur.execute("select count(*) from leaderboard_result where challenge_id = %s", [challenge.pk])
        have = cur.fetchone()[0]
        if have != size:
            cur.execute("delete from leaderboard_result where challenge_id = %s", [challenge.pk])
            cur.execute("select coalesce(max(attempt_id), 0) from leaderboard_result")
            base = cur.fetchone()[0]
            cur.execute("set session_replication_role = replica")
            cur.execute("""
                insert into challenges_player (id, user_id, name, name_key, token_hash, created_at)
                select 1000000000 + g, 1000000000 + g, 'player ' || g, 'bench player ' || g,
                       md5(g::text) || md5((g + 1)::text), now()
                from generate_series(1, 1000) g on conflict do nothing""")
            opened = days.opens_at(day)
            cur.execute(
                """
                insert into leaderboard_result (attempt_id, challenge_id, player_id, ranked, score,
                  player_pairs, opponent_pairs, asks, finished_at, verified_at, disqualified, indexed,
                  suspicion, flagged)
                select %s + g, %s, 1000000001 + g %% 1000, true, 1000 + 30 * (p - (26 - p)), p, 26 - p,
                       15 + (g * 7919) %% 30, %s + ((g * 104729) %% 86400000) * interval '1 millisecond',
                       now() - interval '1 day', false, true, 0, false
                from (select g::bigint as g, 5 + (g::bigint * 31337) %% 17 as p from generate_series(1, %s) g) s""",
                [base, challenge.pk, opened, size],
            )
            cur.execute("set session_replication_role = origin")
            cur.execute("analyze leaderboard_result")
    return challenge


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--reuse-index", action="store_true", help="keep a day's index built by an earlier run")
    args = parser.parse_args()
    if args.reuse_index and not os.environ.get("BENCH_REDIS"):
        parser.error("--reuse-index needs BENCH_REDIS (a Redis that outlives the run; its own one does not)")
    setup_django("BENCH_REDIS")
    from django.db import connection

    from leaderboard import rank_index, selectors, services
    from leaderboard.models import Result

    client = rank_index._redis()
    rng = random.Random(7)
    print("p50/p99 in ms; index = the Redis rank index (+ one SQL fetch of the page's rows)")
    print(
        f"{'results':>10} | {'index my-rank':>15} | {'index top-50':>12} | {'index any page':>13} | "
        f"{'SQL count rank':>15} | {'SQL top-50':>12} | {'SQL any page':>15} | {'window fn rank':>17} | "
        f"{'index MiB':>9} | build s"
    )
    for size in args.sizes:
        challenge = fill(size)
        t = time.perf_counter()
        if (
            args.reuse_index
            and rank_index.is_ready(challenge.pk)
            and client.zcard(rank_index.key(challenge.pk)) == size
        ):
            build = float("nan")  # kept from an earlier run
        else:
            services.rebuild_index(challenge_id=challenge.pk)
            build = time.perf_counter() - t
        memory = client.memory_usage(rank_index.key(challenge.pk)) / 2**20  # sampled estimate: O(1)
        ids = (
            list(Result.objects.filter(challenge=challenge).values_list("id", flat=True).order_by("?")[: args.samples])
            if size <= 1_000_000
            else None
        )
        if ids is None:  # order_by('?') is slow on 10M rows: sample ids from the known range
            lo, hi = (
                Result.objects.filter(challenge=challenge).order_by("id").values_list("id", flat=True)[:1][0],
                Result.objects.filter(challenge=challenge).order_by("-id").values_list("id", flat=True)[:1][0],
            )
            ids = [rng.randint(lo, hi) for _ in range(args.samples)]
        results = Result.objects.in_bulk(ids)
        picks = [results[i] for i in ids if i in results]
        offsets = [(rng.randrange(0, max(1, size - 50)),) for _ in range(len(picks))]

        my_rank = timed(lambda r: rank_index.rank_of(challenge.pk, r.attempt_id) + 1, [(r,) for r in picks])
        page = lambda o: selectors.leaderboard_page(challenge_id=challenge.pk, offset=o, limit=50)  # noqa: E731
        top = timed(page, [(0,)] * len(picks))  # the top-50 page everyone opens
        deep = timed(page, offsets)  # any page: cold rows, the worst case
        # The SQL baselines cost O(rank) or O(n) per query: fewer samples at the large sizes.
        sql_picks = picks[: 200 if size <= 1_000_000 else 20]
        sql_rank = timed(selectors.sql_rank, [(r,) for r in sql_picks])
        rows = selectors.ranked_results(challenge.pk).select_related("player").order_by(*selectors.RANK_ORDER)
        sql_top = timed(lambda o: list(rows[o : o + 50]), [(0,)] * len(sql_picks))
        # A deep OFFSET walks every row before it: at 10M one page takes tens of seconds.
        sql_deep = timed(lambda o: list(rows[o : o + 50]), offsets[: 20 if size <= 1_000_000 else 0])
        window_n = 20 if size <= 1_000_000 else 3

        def window(result):
            with connection.cursor() as cur:
                cur.execute(
                    """select rank from (select id, rank() over (order by score desc, asks, finished_at, attempt_id)
                               from leaderboard_result where challenge_id = %s and ranked and not disqualified and not held) t
                               where id = %s""",
                    [challenge.pk, result.pk],
                )
                return cur.fetchone()[0]

        win = timed(window, [(r,) for r in picks[:window_n]])
        # The index and SQL agree on every sampled rank (the point of the shared order).
        for r in picks[: 20 if size <= 1_000_000 else 3]:
            assert rank_index.rank_of(challenge.pk, r.attempt_id) + 1 == selectors.sql_rank(r) == window(r)
        fmt = lambda s: "{:.2f}/{:.2f}".format(*percentiles(s)) if s else "not run"  # noqa: E731
        print(
            f"{size:>10,} | {fmt(my_rank):>15} | {fmt(top):>12} | {fmt(deep):>13} | {fmt(sql_rank):>15} | "
            f"{fmt(sql_top):>12} | {fmt(sql_deep):>15} | {fmt(win):>17} | {memory:>9.1f} | {build:.1f}"
        )


if __name__ == "__main__":
    main()
