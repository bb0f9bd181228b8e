"""CPU per ask of the game's socket in one process (not a test): the consumer driven through
its ASGI interface, no server, no network but Postgres's and Redis's.

    .venv/bin/python -m bench.socket_cpu --games 40                 # CPU per ask, per game
    .venv/bin/python -m bench.socket_cpu --games 20 --profile 25    # and cProfile's top 25
    (cd /tmp/other-tree && /work/main/.venv/bin/python /work/main/bench/socket_cpu.py)  # another commit's

One simulated player (token, as a script would; no Origin) signs up once and plays whole
Pêche games over ``/ws/attempts/<id>``, one socket per game (today's, then the days before
as practice), asking the first rank of its hand. ``time.process_time`` (every thread of the
process: the event loop's and the pool's) over the asks of each game apart from its
handshake, median over the games: what one ask costs the socket's process (the consumer,
Django, the database and Redis clients), without the ASGI server's framing and the kernel's
socket work, which bench.socket_load measures on the whole stack. Settings: Postgres (a
database of its own), a redis-server of its own for the cache, the sessions, the rate
limits and the channel layer (bench/own_redis.py), as in production; the limits above what
one player asks in a closed loop (each ask still counted).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import datetime as dt
import json
import os
import pstats
import statistics
import sys
import time

sys.path.insert(0, os.getcwd())  # the tree this runs in (another commit's, from its directory)


def setup() -> None:
    from bench.own_redis import own_redis
    from bench.pgdb import PG

    db = f"bench_socket_cpu_{os.getpid()}"
    from bench.pgdb import fresh_database

    os.environ["DATABASE_URL"] = fresh_database(db)
    os.environ["REDIS_URL"] = own_redis("BENCH_REDIS_URL")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    os.environ["LOG_LEVEL"] = "WARNING"
    # The limits on, above what one closed-loop player asks (each ask is still counted).
    os.environ.update(RATE_LIMIT_ASKS="100000/minute", GAME_SOCKET_RATE="100000", GAME_SOCKET_BURST="100000")
    import atexit

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("ensure_challenges", verbosity=0)

    def drop() -> None:
        from django.db import connections

        connections.close_all()
        from bench.pgdb import drop_databases

        drop_databases(db)

    atexit.register(drop)
    del PG


async def play(games: int, profile: cProfile.Profile | None) -> list[tuple[int, float, float, float]]:
    """(asks, CPU seconds of the asks, CPU seconds of the handshake, of which the kernel's
    for the asks) per game."""
    from asgiref.sync import sync_to_async
    from asgiref.testing import ApplicationCommunicator

    from challenges import selectors, services
    from challenges.models import DailyChallenge
    from config.asgi import application

    player, token = await sync_to_async(services.player_create)(name=f"cpu {os.getpid()}")
    headers = [(b"host", b"localhost"), (b"authorization", f"Token {token}".encode())]
    day = (await sync_to_async(DailyChallenge.objects.order_by("-date").first)()).date
    out = []
    for n in range(games):
        challenge = await sync_to_async(services.challenge_for_day)(day=day - dt.timedelta(days=n + 1))
        attempt, _ = await sync_to_async(services.attempt_start)(player=player, challenge=challenge)
        path = f"/ws/attempts/{attempt.pk}"
        scope = {
            "type": "websocket",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "headers": headers,
            "subprotocols": [],
            "client": ("127.0.0.1", 50000),
            "server": ("localhost", 80),
        }
        t0 = time.process_time()
        socket = ApplicationCommunicator(application, scope)
        await socket.send_input({"type": "websocket.connect"})
        assert (await socket.receive_output(5))["type"] == "websocket.accept"
        hello = json.loads((await socket.receive_output(5))["text"])
        assert hello.get("ready"), hello
        handshake = time.process_time() - t0
        view = await sync_to_async(selectors.attempt_view)(attempt)
        asks = 0
        if profile:
            profile.enable()
        t0, times0 = time.process_time(), os.times()
        while view["status"] == "playing":
            text = json.dumps({"move": view["move"], "rank": view["hand"][0][:-1]})
            await socket.send_input({"type": "websocket.receive", "text": text})
            view = json.loads((await socket.receive_output(5))["text"])
            assert "error" not in view, view
            asks += 1
        spent, times1 = time.process_time() - t0, os.times()
        if profile:
            profile.disable()
        await socket.send_input({"type": "websocket.disconnect", "code": 1000})
        await socket.wait(5)
        out.append((asks, spent, handshake, times1.system - times0.system))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--profile", type=int, default=0, help="print cProfile's top N (cumulative) of the asks")
    args = parser.parse_args()
    setup()
    profile = cProfile.Profile(time.process_time) if args.profile else None
    try:  # the event loop uvicorn runs the sockets on (scripts/stack: --loop uvloop)
        import uvloop

        games = uvloop.run(play(args.games, profile))
    except ImportError:
        games = asyncio.run(play(args.games, profile))
    per_ask = [spent / asks * 1000 for asks, spent, _, _ in games]
    kernel = sum(k for *_, k in games) / sum(s for _, s, _, _ in games)
    print(
        f"{os.getcwd()}: {len(games)} games, {sum(g[0] for g in games)} asks; CPU per ask (median of games) "
        f"{statistics.median(per_ask):.3f} ms (quartiles {' '.join(f'{q:.3f}' for q in statistics.quantiles(per_ask))}); "
        f"{100 * kernel:.0f}% in the kernel; handshake {statistics.median(g[2] for g in games) * 1000:.2f} ms; "
        f"load {open('/proc/loadavg').read().split()[0]}"
    )
    from django.db import connection

    time.sleep(1)  # Postgres's statistics, flushed within a second
    with connection.cursor() as cursor:
        cursor.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'challenges_attempt'")
        updated, hot = cursor.fetchone()
    print(f"attempt rows updated {updated}, of which HOT (no index touched) {hot}")
    if profile:
        stats = pstats.Stats(profile)
        stats.sort_stats("cumulative").print_stats(args.profile)
        stats.sort_stats("tottime").print_stats(args.profile)


if __name__ == "__main__":
    main()
