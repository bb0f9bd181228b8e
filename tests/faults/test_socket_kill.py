"""Fault: the process holding the daily page's WebSocket (uvicorn, scripts/stack's `sockets`)
is SIGKILLed while an ask of the page is on its way. The page goes on over HTTP by itself,
opens a socket again once the process is back, and the game stored is the one the player
played: no ask lost, none applied twice.

No step waits on the machine's speed: another Postgres session holds the attempt's row
lock, so the socket's compare-and-set waits inside Postgres (the ask sent, not answered)
until the test has seen it wait and killed the process. Every wait is on something the
test observes, and bounded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from challenges.models import Attempt
from tests.browser.conftest import ARGS, CHROMIUM
from tests.browser.test_daily_socket import ask, my_turn
from tests.conftest import ROOT, in_own_thread, wait_for

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True)]

FAST = "window.PECHE_STEP_MS = 5; window.PECHE_POLL_MS = 150;"


def connect():
    db = connection.settings_dict
    return psycopg.connect(
        dbname=db["NAME"],
        user=db["USER"] or None,
        password=db["PASSWORD"] or None,
        host=db["HOST"] or None,
        port=db["PORT"] or None,
    )


def waiting_on_a_lock() -> int:
    with connect() as conn:
        query = (
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND query LIKE 'UPDATE%%'"
        )
        return conn.execute(query).fetchone()[0]


def socket_ready(page, seen: dict, since: int) -> int:
    """The number of the first socket from ``since`` on that came to hold the game."""
    for _ in range(800):
        ready = [i for i, m in seen["received"] if i >= since and m.get("ready")]
        if ready:
            return ready[0]
        page.wait_for_timeout(50)
    raise AssertionError(f"no socket from number {since} on became ready")


def test_the_socket_process_killed_under_an_ask_loses_and_doubles_nothing(stack_factory):
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium not found at {CHROMIUM}: run `make browser-deps`")
    from django.conf import settings

    stack = stack_factory(settings.REDIS_URL)
    run_dir = Path(stack.env["STACK_RUN_DIR"])
    pid = int((run_dir / "sockets.pid").read_text())
    # How scripts/stack started it, to start it again the same way.
    command = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
    environ = dict(
        line.split(b"=", 1) for line in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0") if b"=" in line
    )
    seen: dict = {"sockets": [], "received": [], "sent": []}

    def drive():
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_context(bypass_csp=True).new_page()
            page.add_init_script(FAST + "try { localStorage.setItem('peche:rules-seen', '1'); } catch (_) {}")

            def on_socket(ws):
                index = len(seen["sockets"])
                seen["sockets"].append(ws.url)
                ws.on("framereceived", lambda payload: seen["received"].append((index, json.loads(payload))))
                ws.on("framesent", lambda payload: seen["sent"].append((index, json.loads(payload))))

            page.on("websocket", on_socket)
            page.goto(f"http://127.0.0.1:{stack.port}/daily/")
            page.wait_for_selector("#name-input:focus")
            page.keyboard.type("Killed Kai")
            page.keyboard.press("Enter")
            page.wait_for_selector("#hand button:focus")
            socket_ready(page, seen, 0)
            presses = 0
            for _ in range(2):
                assert my_turn(page)
                presses += 1
                ask(page, presses)
            attempt = Attempt.objects.get(player__name="Killed Kai")

            with connect() as locker:
                locker.execute(f"SELECT id FROM {Attempt._meta.db_table} WHERE id = %s FOR UPDATE", [attempt.pk])
                assert my_turn(page)
                page.keyboard.press("Enter")  # the ask goes over the socket and waits on the lock
                presses += 1
                wait_for(lambda: waiting_on_a_lock() >= 1, timeout=30)
                assert sum(1 for i, m in seen["sent"] if i == 0) == presses, "the ask went over the socket"
                os.kill(pid, signal.SIGKILL)
                wait_for(lambda: not Path(f"/proc/{pid}").exists() or b"zombie" in _state(pid), timeout=30)
                locker.rollback()
            # The page settled the ask (stored or not, the stored game says) and goes on.
            page.wait_for_function(
                f"Number(document.getElementById('asks').textContent) >= {presses} && "
                "document.querySelector('#turn').dataset.turn !== 'busy'"
            )
            for _ in range(2):
                if my_turn(page):
                    presses += 1
                    ask(page, presses)  # over HTTP: no socket meanwhile
            # The process is back: the page opens a socket again by itself and asks over it.
            restarted = subprocess.Popen(
                [part.decode() for part in command],
                cwd=ROOT,
                env={k.decode(): v.decode() for k, v in environ.items()},
                stdout=open(run_dir / "sockets.log", "ab"),  # noqa: SIM115 (the process keeps it)
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            (run_dir / "sockets.pid").write_text(str(restarted.pid))  # the stack's stop ends it
            again = socket_ready(page, seen, 1)
            for _ in range(2):
                if my_turn(page):
                    presses += 1
                    ask(page, presses)
            assert any(i == again for i, _ in seen["sent"]), "asks go over the new socket"
            shown = int(page.locator("#asks").inner_text())
            browser.close()
        return attempt, presses, shown

    # Playwright's sync API in a thread of its own: the browser tests' Playwright holds this one.
    attempt, presses, shown = in_own_thread(drive)
    attempt.refresh_from_db()
    assert len(attempt.moves) == presses == shown


def _state(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/status").read_bytes()
    except OSError:
        return b"zombie"
