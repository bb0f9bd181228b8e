"""The one Redis guard (config/redis_client.py): a failure in any use of Redis opens the
process's breaker for every use — rate limits, the sessions' cache, the verification
queue, the rank index — so none of them pays a timeout again until the break ends."""

from __future__ import annotations

import socket
import threading

import pytest
from django.core.cache import caches
from django.test import override_settings

from challenges import services
from config import rates
from config import redis_client as guard
from leaderboard import rank_index

pytestmark = pytest.mark.usefixtures("production_hot_timeout")  # what a silent Redis costs in production


class Silent:
    """Accepts connections and never answers; counts what it is sent."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.url = f"redis://127.0.0.1:{self.listener.getsockname()[1]}/0"
        self.sends = 0
        self.open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.open.append(conn)
            threading.Thread(target=self._swallow, args=(conn,), daemon=True).start()

    def _swallow(self, conn) -> None:
        try:
            while conn.recv(65536):
                self.sends += 1
        except OSError:
            pass

    def close(self) -> None:
        self.listener.close()
        for conn in self.open:
            conn.close()


@pytest.fixture
def silent():
    server = Silent()
    guard.reset_breakers()
    rates._HERE.clear()
    store = {"default": {"BACKEND": "config.cache.GuardedRedisCache", "LOCATION": server.url}}
    with override_settings(REDIS_URL=server.url, CACHES=store, RATE_LIMITS={"asks": "5/minute"}):
        yield server
    server.close()
    guard.reset_breakers()


def test_one_timeout_opens_the_breaker_for_every_use(silent):
    assert rates.hit("asks", "user:1") is None  # the store timed out: counted in memory
    assert silent.sends == 1 and guard.is_down(silent.url)
    assert not rank_index.available()
    # Every other use now fails at once, without a byte sent.
    sessions = caches["default"]  # the sessions' cache: a miss, then the database is read
    assert sessions.get("a session") is None and not sessions.has_key("a session")
    sessions.set("a session", {"x": 1})  # skipped
    with pytest.raises(guard.Unavailable):  # a copy that cannot go must not pass for gone
        sessions.delete("a session")
    assert rank_index.page(1, 0, 10) is None and not rank_index.is_ready(1) and rank_index.rank_of(1, 1) is None
    assert not rank_index.add(1, [(1, 1)])
    services.enqueue_verification(10**9)  # logged; the sweeper's job later
    assert [rates.hit("asks", "user:1") for _ in range(5)][-1] is not None  # the limit still holds
    assert silent.sends == 1
    assert guard.breaker(silent.url).skipped >= 8


def test_after_the_break_one_call_probes_and_an_answer_closes_it(silent):
    breaker = guard.breaker(silent.url)
    sessions = caches["default"]
    sessions.get("k")
    assert breaker.is_open() and silent.sends == 1
    breaker.open_until = 0.0  # the break is over
    sessions.get("k")  # the probe: still silent, open again
    assert silent.sends == 2 and breaker.is_open()
    sessions.get("k")
    assert silent.sends == 2

    breaker.open_until = 0.0
    breaker.answered()  # what a reply does (read_response)
    assert not breaker.is_open() and not guard.is_down(silent.url)
