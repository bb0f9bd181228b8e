"""The day's explorer at scale (issue 48, item 4; not a test): p50/p99 of
``GET /api/challenges/<date>/positions?moves=…`` through Django's test client (the whole
Django stack in process: middleware, view, queries; no socket), on a closed day of
``--games`` simulated ranked games of one deal. Aim: p99 ≤ 20 ms at 10,000 games.

    .venv/bin/python -m bench.explorer [--games 10000] [--samples 2000] [--analysed 20]

The field is the honest panel's mix (``games.fairplay.players.PANEL``, round-robin, each
player its own rng), as a day's players share positions; ``--analysed`` of its games are
analysed for real (games.analysis.game.analyse, about a second each) and stored, so the
positions they pass through answer with the engine's values. The day is written into a
database of its own on the benchmarks' Postgres (``--db``, bench/pgdb.py) as day BENCH_DAY, replaced on each
run, with DEBUG off (production's cursor, no query log).

Reported: the first request (the tree built from the day's rows), then ``--samples``
requests at positions drawn as replays show them (a random game of the day, a random ask
of it), with and without the engine's values; the fingerprint query alone; the tree's size.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import random
import time
import tracemalloc

from bench import pgdb
from bench.provenance import commit, load_average, machine
from harness.stats import percentiles

BENCH_DAY = dt.date(2026, 1, 2)  # a closed day (FIRST_DAY is 2026-01-01) nobody else writes here


def field(seed: str, games: int) -> list[tuple[list[str], int, int, int]]:
    """``games`` games of the panel on the deal of ``seed``: (asks, score, own pairs, theirs)."""
    from games.fairplay import players

    deck = players.deal(seed)
    out = []
    for i in range(games):
        _, chooser = players.PANEL[i % len(players.PANEL)]
        moves, _, outcome = players.play(deck, chooser, random.Random(f"explorer-{i}"))
        out.append((moves, outcome.score, outcome.counts[0], outcome.counts[1]))
    return out


def fill(lines: list[tuple[list[str], int, int, int]], analysed: int):
    """The day BENCH_DAY with one verified ranked game (attempt and result) per line,
    ``analysed`` of them analysed and stored; the day's earlier rows deleted first."""
    from django.db import transaction
    from django.utils import timezone

    from challenges import services
    from challenges.models import Attempt, GameAnalysis, Player
    from games.analysis import game as analysis_game
    from leaderboard.models import Result

    challenge = services.challenge_for_day(day=BENCH_DAY)
    assert challenge.is_revealed(timezone.now())
    with transaction.atomic():
        Result.objects.filter(challenge=challenge).delete()
        Attempt.objects.filter(challenge=challenge).delete()
        Player.objects.filter(name_key__startswith="bench explorer ").delete()
        made = Player.objects.bulk_create(
            Player(
                name=f"Explorer {i}",
                name_key=f"bench explorer {i}",
                token_hash=hashlib.sha256(f"bench-explorer-{i}".encode()).hexdigest(),
            )
            for i in range(len(lines))
        )
        finished = challenge.closes_at - dt.timedelta(hours=1)
        attempts = Attempt.objects.bulk_create(
            Attempt(player=p, challenge=challenge, ranked=True, status="verified", moves=m, finished_at=finished)
            for p, (m, *_) in zip(made, lines)
        )
        Result.objects.bulk_create(
            Result(
                attempt=a,
                challenge=challenge,
                player=a.player,
                ranked=True,
                score=score,
                player_pairs=mine,
                opponent_pairs=theirs,
                asks=len(moves),
                finished_at=finished,
                indexed=True,
            )
            for a, (moves, score, mine, theirs) in zip(attempts, lines)
        )
    for a in attempts[:analysed]:
        found = analysis_game.analyse(challenge.seed, list(a.moves))
        GameAnalysis.objects.create(
            attempt=a,
            accuracy=found.accuracy,
            luck=found.luck,
            asks=[x.as_dict() for x in found.asks],
            version=analysis_game.VERSION,
        )
    return challenge


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--analysed", type=int, default=20)
    parser.add_argument("--again", action="store_true", help="simulate and write the day even if it is there")
    parser.add_argument("--db", default="bench_explorer", help="its own database on the benchmarks' Postgres")
    args = parser.parse_args()
    # A database of its own: the shared `bench` one is rebuilt by other benchmarks' runs.
    pgdb.DB, pgdb.URL = args.db, f"{pgdb.PG}/{args.db}"
    pgdb.setup_django("BENCH_REDIS")
    from django.conf import settings
    from django.test import Client

    from challenges.models import DailyChallenge
    from leaderboard import explorer, positions

    settings.DEBUG = False  # production's cursor: no query log
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    print(f"commit {commit()}, {dt.date.today()}, {machine()}, load average {load_average()}")
    from challenges.models import GameAnalysis
    from leaderboard.models import Result

    kept = DailyChallenge.objects.filter(game="peche", date=BENCH_DAY).first()
    rows = Result.objects.filter(challenge=kept).values_list("attempt__moves", "score") if kept else []
    if (
        kept
        and len(rows) == args.games
        and GameAnalysis.objects.filter(attempt__challenge=kept).count() == args.analysed
        and not args.again
    ):
        # The day an earlier run wrote (the field is deterministic: the same games).
        challenge, lines = kept, [(list(m), score) for m, score in rows]
        print(f"field: the {args.games} games an earlier run wrote, {args.analysed} analysed")
    else:
        t = time.perf_counter()
        seed = DailyChallenge.of_day(BENCH_DAY).seed
        played = field(seed, args.games)
        print(f"field: {args.games} panel games simulated in {time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        challenge = fill(played, args.analysed)
        print(f"written with {args.analysed} analysed in {time.perf_counter() - t:.1f} s")
        lines = [(m, score) for m, score, *_ in played]
    from django.db import connection

    with connection.cursor() as cursor:  # as autovacuum leaves a closed day's rows: counted, all visible
        cursor.execute("vacuum analyze leaderboard_result")
        cursor.execute("vacuum analyze challenges_attempt")

    client = Client()
    url = f"/api/challenges/{BENCH_DAY.isoformat()}/positions"
    positions.forget()
    t = time.perf_counter()
    first = client.get(url)
    build = time.perf_counter() - t
    assert first.status_code == 200 and first.json()["players"] == args.games, first.content

    tracemalloc.start()
    tree = explorer.build((m, s) for m, s, *_ in lines)
    memory = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()
    asks = sum(len(m) for m, *_ in lines)
    print(
        f"tree: {tree.nodes:,} positions for {asks:,} asks ({tree.nodes / asks:.0%}), "
        f"{memory:.1f} MiB; first request (built from the rows) {build * 1000:.0f} ms"
    )

    rng = random.Random(48)
    picks = []
    for _ in range(args.samples):
        moves = rng.choice(lines)[0]
        picks.append(moves[: rng.randrange(len(moves))])
    with_engine, without = [], []
    for moves in picks:
        t = time.perf_counter()
        answer = client.get(url, {"moves": ",".join(moves)})
        took = time.perf_counter() - t
        assert answer.status_code == 200 and answer.json()["players"] >= 1
        (with_engine if answer.json()["engine"] else without).append(took)
    every = with_engine + without
    ms = lambda s: "{:.2f} / {:.2f}".format(*percentiles(s)) if s else "none"  # noqa: E731
    print(
        f"requests (p50 / p99 ms): all {ms(every)} ({len(every)}), with the engine's values {ms(with_engine)} "
        f"({len(with_engine)}), without {ms(without)} ({len(without)})"
    )
    fingerprints = []
    for _ in range(200):
        t = time.perf_counter()
        positions._fingerprint(challenge.pk)
        fingerprints.append(time.perf_counter() - t)
    lookups = []
    for moves in picks:
        t = time.perf_counter()
        tree.answer(moves)
        lookups.append(time.perf_counter() - t)
    print(f"of which: the fingerprint query {ms(fingerprints)}, the tree's answer {ms(lookups)}")


if __name__ == "__main__":
    main()
