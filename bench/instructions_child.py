"""Run by bench.instructions under callgrind, in the measured tree's code (PYTHONPATH):
    python bench/instructions_child.py ASKS SUBJECT...
Each subject's ASKS requests run inside ``sys.call_tracing``, the only code callgrind
counts; everything before (start-up, migrations, warm-up, the games) runs uncounted."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

# The measured tree's modules, not this file's directory.
sys.path.pop(0)
_spec = importlib.util.spec_from_file_location("wsgi_client", Path(__file__).parents[1] / "harness" / "wsgi_client.py")
assert _spec and _spec.loader
wsgi_client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(wsgi_client)

import django  # noqa: E402

django.setup()
from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.core.management import call_command  # noqa: E402

call_command("migrate", verbosity=0)
client = wsgi_client.Client(WSGIHandler())


class Game:
    """One player's ranked game of today, played by token or as a browser."""

    def __init__(self, browser: bool) -> None:
        self.token = None
        self.cookies: dict | None = {} if browser else None
        status, me = client("POST", "/api/players", {"name": f"instr {time.time_ns() % 10**12}"}, cookies=self.cookies)
        assert status == 201, me
        if not browser:
            self.token = me["token"]
        status, self.view = client("POST", "/api/challenges/today/attempt", token=self.token, cookies=self.cookies)
        assert status == 201, self.view

    def ask(self) -> None:
        body = {"rank": self.view["hand"][0][:-1], "move": self.view["move"]}
        path = f"/api/attempts/{self.view['id']}/asks"
        status, self.view = client("POST", path, body, token=self.token, cookies=self.cookies)
        assert status == 200, self.view

    @property
    def playing(self) -> bool:
        return self.view.get("status") == "playing"


def asks_over(games: list[Game], n: int):
    """n asks in turns over the games still being played (a game lasts a few dozen asks)."""

    def run() -> None:
        done = 0
        while done < n:
            playing = [g for g in games if g.playing]
            assert playing, "every game ended: make more games"
            for game in playing[: n - done]:
                game.ask()
                done += 1

    return run


def healthz_times(n: int):
    def run() -> None:
        for _ in range(n):
            assert client("GET", "/healthz")[0] == 200

    return run


def main() -> None:
    asks, subjects = int(sys.argv[1]), sys.argv[2:]
    for subject in subjects:
        if subject == "healthz":
            healthz_times(50)()
            measured = healthz_times(asks)
        else:
            browser = subject == "browser ask"
            asks_over([Game(browser) for _ in range(4)], 40)()  # warm-up: every path once
            games = [Game(browser) for _ in range(asks // 5 + 2)]
            # Each game's first ask uncounted: a new player's first request may read its
            # rows where later ones read their shared copy (challenges/auth.py); that is the
            # new player's cost (bench.ask_cpu counts it per game), not an ask's.
            asks_over(games, len(games))()
            measured = asks_over(games, asks)
        sys.call_tracing(measured, ())


main()
