"""CPU of one ask in process (not a test): where an ask's CPU goes without the network,
gunicorn or other processes competing for the cores.

    .venv/bin/python -m bench.ask_cpu --blocks 8 --asks 300

Calls the WSGI application directly (every middleware, DRF, token auth, the service, the
JSON) on the `bench` Postgres database, and measures side by side, in interleaved blocks
(the median block is reported, which keeps a noisy machine's swings out):
- an ask, the whole request;
- the same request with the service replaced by a canned answer (framework share);
- the ask service alone (read, replay, compare-and-set write) and the view it returns;
- GET /healthz (the smallest request: the floor of any request);
- a new player and its attempt (POST /api/players + POST .../attempt), per game;
- a browser's ask (session cookie + CSRF header): the session read from Redis (Django's
  cached_db), then user and player in one query; and with the session's cached copy gone
  (its row read from the database, the copy put back).
Uses Redis database 13 for the verification queue of finished games, emptied at the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from bench.pgdb import setup_django
from harness.wsgi_client import Client

# One deal wherever this runs (a checkout's own seed secret file would deal another): an
# ask's cost depends on the deal, and trees are compared side by side.
os.environ.setdefault("DAILY_SEED_SECRET", "bench-ask-cpu")
# One client makes every player and every ask: per-IP and per-player limits would stop it.
for _limit in ("RATE_LIMIT_PLAYERS", "RATE_LIMIT_ASKS"):
    os.environ[_limit] = "off"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, default=8)
    parser.add_argument("--asks", type=int, default=300, help="asks per block")
    parser.add_argument(
        "--profile",
        metavar="SUBJECT",
        help="instead of the table: cProfile (CPU time) of --asks calls of the subject whose name starts so",
    )
    parser.add_argument("--profile-out", metavar="FILE", help="with --profile: also write the raw profile (pstats)")
    parser.add_argument(
        "--no-freeze",
        action="store_true",
        help="leave the garbage collector as a plain process has it (gunicorn's workers freeze it)",
    )
    parser.add_argument(
        "--layers",
        action="store_true",
        help="instead of the table: what each middleware adds to an ask (the service replaced), by leaving it out",
    )
    args = parser.parse_args()

    setup_django("BENCH_REDIS_ASK")
    from django.core.cache import caches
    from django.core.handlers.wsgi import WSGIHandler

    from challenges import api, selectors, services
    from challenges.models import Player
    from config.redis_client import redis_client

    client = Client(WSGIHandler())
    games = {"n": 0, "cpu": 0.0}

    def new_game():
        t = time.process_time()
        status, me = client("POST", "/api/players", {"name": f"cpu {time.time_ns() % 10**12}"})
        assert status == 201, me
        status, view = client("POST", "/api/challenges/today/attempt", token=me["token"])
        assert status == 201, view
        games["cpu"] += time.process_time() - t
        games["n"] += 1
        return me, view

    state = {"me": None, "view": {"status": "over"}}

    def next_ask():
        """(token, attempt id, body) of the next ask, starting a new game when one ends."""
        if state["view"].get("status") != "playing":
            state["me"], state["view"] = new_game()
        view = state["view"]
        return state["me"], view["id"], {"rank": view["hand"][0][:-1], "move": view["move"]}

    def ask_request():
        me, attempt_id, body = next_ask()
        status, state["view"] = client("POST", f"/api/attempts/{attempt_id}/asks", body, me["token"])
        assert status == 200, state["view"]

    players: dict[int, Player] = {}

    def ask_service():
        me, attempt_id, body = next_ask()
        player = players.get(me["id"]) or players.setdefault(me["id"], Player.objects.get(pk=me["id"]))
        attempt, game_state, events = services.attempt_ask(attempt_id=attempt_id, player=player, **body)
        state["view"] = selectors.attempt_view(attempt, game_state, events=events)

    canned = {}

    def ask_framework():
        me, attempt_id, body = state["me"], canned["id"], {"rank": "A", "move": 0}
        real, api.services.attempt_ask = api.services.attempt_ask, lambda **kw: canned["answer"]
        try:
            status, _ = client("POST", f"/api/attempts/{attempt_id}/asks", body, me["token"])
        finally:
            api.services.attempt_ask = real
        assert status == 200

    browser = {"cookies": None, "view": {"status": "over"}}

    def browser_ask(cached=True):
        if browser["view"].get("status") != "playing":
            t = time.process_time()
            browser["cookies"] = {}
            status, _ = client(
                "POST", "/api/players", {"name": f"cpu b {time.time_ns() % 10**12}"}, cookies=browser["cookies"]
            )
            assert status == 201
            status, browser["view"] = client("POST", "/api/challenges/today/attempt", cookies=browser["cookies"])
            assert status == 201, browser["view"]
            games["cpu"] += time.process_time() - t
            games["n"] += 1
        view = browser["view"]
        if not cached:  # evicted from Redis: the session's row is read
            caches["default"].delete("django.contrib.sessions.cached_db" + browser["cookies"]["sessionid"])
        status, browser["view"] = client(
            "POST",
            f"/api/attempts/{view['id']}/asks",
            {"rank": view["hand"][0][:-1], "move": view["move"]},
            cookies=browser["cookies"],
        )
        assert status == 200, browser["view"]

    def healthz():
        assert client("GET", "/healthz")[0] == 200

    # Warm up every path (imports, caches, connections), and make the canned answer.
    for _ in range(100):
        ask_request()
    me, attempt_id, body = next_ask()
    player = Player.objects.get(pk=me["id"])
    canned["id"] = attempt_id
    canned["answer"] = services.attempt_ask(attempt_id=attempt_id, player=player, **body)
    state["view"] = {"status": "over"}
    if not args.no_freeze:
        # As every gunicorn worker does once started (config/gunicorn.py, post_worker_init):
        # without it a full collection scans every Django object and lands on some request.
        import gc

        gc.collect()
        gc.freeze()

    subjects = {
        "ask, whole request": ask_request,
        "ask, service replaced (framework)": ask_framework,
        "ask service + view, no HTTP": ask_service,
        "GET /healthz": healthz,
        "browser ask (session from Redis)": browser_ask,
        "browser ask, session not cached": lambda: browser_ask(cached=False),
    }
    if args.layers:
        layers(client, canned, state["me"], args)
        return
    if args.profile:
        import cProfile
        import pstats

        name = next(n for n in subjects if n.startswith(args.profile))
        fn = subjects[name]
        for _ in range(50):
            fn()
        # CPU time, not wall time: a busy machine's waits do not count.
        profile = cProfile.Profile(time.process_time)
        profile.runcall(lambda: [fn() for _ in range(args.asks)])
        print(f"cProfile of {args.asks} x {name!r} (CPU seconds; includes new games when one ends):")
        if args.profile_out:  # for pstats, side by side with another tree's profile
            profile.dump_stats(args.profile_out)
        stats = pstats.Stats(profile).strip_dirs()
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(40)
        return
    blocks: dict[str, list[float]] = {name: [] for name in subjects}
    games["n"], games["cpu"] = 0, 0.0
    for _ in range(args.blocks):
        for name, fn in subjects.items():
            t, creating = time.process_time(), games["cpu"]
            for _ in range(args.asks):
                fn()
            # A game that ended mid-block started a new one: that is counted per game below.
            blocks[name].append((time.process_time() - t - (games["cpu"] - creating)) / args.asks)
    per_game = games["cpu"] / max(1, games["n"])

    print(f"CPU per request, median of {args.blocks} interleaved blocks of {args.asks} (ms):")
    for name, values in blocks.items():
        print(
            f"  {name:<36} {statistics.median(values) * 1000:7.3f}   "
            f"(blocks {min(values) * 1000:.3f} .. {max(values) * 1000:.3f})"
        )
    print(f"  {'new player + attempt, per game':<36} {per_game * 1000:7.3f}   ({games['n']} games)")
    client_redis = redis_client()
    if client_redis is not None:
        client_redis.flushdb()


# Left in by --layers: without them a browser's request does not reach the view at all.
_NEEDED = ("SessionMiddleware", "PrefetchMiddleware", "AuthenticationMiddleware", "CsrfViewMiddleware")


def layers(client: Client, canned: dict, me: dict, args) -> None:
    """Each middleware's share of a token ask (the service replaced by its canned answer),
    as the difference between the whole stack and the stack without it, in interleaved
    blocks; and the whole stack without any middleware that can go."""
    from django.conf import settings
    from django.core.handlers.wsgi import WSGIHandler

    from challenges import api

    every = list(settings.MIDDLEWARE)
    optional = [m for m in every if not m.endswith(_NEEDED)]

    def handler(middleware: list[str]) -> Client:
        settings.MIDDLEWARE = middleware
        try:
            return Client(WSGIHandler())
        finally:
            settings.MIDDLEWARE = every

    variants = {"every middleware": client, "only the needed ones": handler([m for m in every if m.endswith(_NEEDED)])}
    variants.update({f"without {m.rsplit('.', 1)[1]}": handler([x for x in every if x != m]) for m in optional})
    real, api.services.attempt_ask = api.services.attempt_ask, lambda **kw: canned["answer"]
    blocks: dict[str, list[float]] = {name: [] for name in variants}
    try:
        for _ in range(args.blocks):
            for name, variant in variants.items():
                t = time.process_time()
                for _ in range(args.asks):
                    status, _ = variant(
                        "POST", f"/api/attempts/{canned['id']}/asks", {"rank": "A", "move": 0}, me["token"]
                    )
                blocks[name].append((time.process_time() - t) / args.asks)
                assert status == 200, (name, status)
    finally:
        api.services.attempt_ask = real
    whole = statistics.median(blocks["every middleware"])
    print(f"A token ask with the service replaced, median of {args.blocks} interleaved blocks of {args.asks} (ms CPU):")
    for name, values in blocks.items():
        median = statistics.median(values)
        share = "" if name == "every middleware" else f"   (the layer: {(whole - median) * 1000:+.3f})"
        print(f"  {name:<44} {median * 1000:7.3f}{share}")


if __name__ == "__main__":
    main()
