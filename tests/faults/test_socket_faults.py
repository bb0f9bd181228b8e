"""Faults under games played over the game's WebSocket (``/ws/attempts/<id>``: uvicorn
behind nginx, scripts/stack): Redis down for 30 s, Postgres restarted, a client that opens
1,000 sockets, a frame of 1 MB. The servers broken are the tests' own (harness/servers.py).

Each player is an API client (its token) playing today's game over its socket, one ask at
a time, and keeps a ledger: the asks the server acknowledged, plus any it stored without
the answer reaching the player (a database error or a cut socket under the ask; settled
from the stored game, as the page does). Every test first proves that the fault met games
in flight (asks acknowledged before, during and after it), then that every stored game is
its player's ledger exactly: no acknowledged ask lost, none applied twice.

Every player plays the same deal the same way (the first rank in hand), so every game has
the same length: a pilot game measures it, and the players' pace is set so that their
games span the fault. Waits are on what the test observes, and bounded; nothing asserts
how fast anything was."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import threading
import time

import psycopg
import pytest
import websockets
from django.conf import settings

from tests.conftest import fresh_session_redis, in_own_thread, wait_for

from .conftest import Client

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# What a socket that cannot be opened, or breaks under an ask, raises at the client.
CUT = (OSError, TimeoutError, websockets.ConnectionClosed, websockets.InvalidHandshake)
REDIS_DOWN_SECONDS = 30  # what the socket must ride out (docs/reliability.md)
POSTGRES_DOWN_SECONDS = 5
BOUND = 300  # seconds any one scenario may take before it fails


class SocketPlayer:
    """An API client that signs up, starts today's attempt over HTTP and asks over the
    game's socket. ``ledger`` is the game as this player knows it stored."""

    def __init__(self, port: int, name: str) -> None:
        self.port, self.name = port, name
        self.http = Client(port)
        status, me = self.http.call("POST", "/api/players", {"name": name})
        assert status == 201, (status, me)
        self.http.token = me["token"]
        status, self.view = self.http.call("POST", "/api/challenges/today/attempt")
        assert status == 201, (status, self.view)
        self.id = self.view["id"]
        self.ledger: list[str] = []  # the ranks stored, in order
        self.acked: list[float] = []  # when each acknowledged answer came
        self.unanswered = 0  # asks stored whose answer never came
        self.errors: list[tuple[float, str]] = []  # (when, error code) of the server's refusals
        self.cuts: list[tuple[float, int | None]] = []  # (when, close code) of sockets that broke
        self.opened: list[float] = []  # when each socket came to hold the game
        self.pending: str | None = None  # the rank of the ask on its way
        self.ws = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/attempts/{self.id}"

    async def connect(self, timeout: float = 10):
        return await websockets.connect(
            self.url,
            additional_headers={"Authorization": f"Token {self.http.token}"},
            open_timeout=timeout,
            compression=None,
        )

    async def open(self, deadline: float) -> None:
        """A socket that holds the game; tried again until one does (the server may be
        down), then the ask on its way is settled from the stored game it reports."""
        while True:
            try:
                ws = await self.connect()
                hello = json.loads(await asyncio.wait_for(ws.recv(), 10))
            except CUT as exc:
                self.cuts.append((time.monotonic(), close_code(exc)))
                assert time.monotonic() < deadline, f"{self.name}: no socket opened: {exc!r}"
                await asyncio.sleep(0.2)
                continue
            if hello.get("ready"):
                break
            self.errors.append((time.monotonic(), hello.get("error")))
            with contextlib.suppress(*CUT):
                await ws.close()
            assert time.monotonic() < deadline, f"{self.name}: refused: {hello}"
            await asyncio.sleep(0.2)
        self.ws = ws
        self.opened.append(time.monotonic())
        await self.settle(hello["move"])

    async def settle(self, stored: int) -> None:
        """``stored`` asks are in the database: the one on its way is stored or not."""
        if self.pending is not None and stored == len(self.ledger) + 1:
            self.ledger.append(self.pending)
            self.unanswered += 1
        self.pending = None
        assert stored == len(self.ledger), f"{self.name}: {stored} asks stored, {len(self.ledger)} known"
        if stored != self.view["move"]:
            self.view = await asyncio.to_thread(self.read_view)

    def read_view(self) -> dict:
        for _ in range(100):
            status, view = self.http.call("GET", f"/api/attempts/{self.id}")
            if status == 200:
                return view
            time.sleep(0.2)
        raise AssertionError(f"{self.name}: the game could not be read")

    async def play(self, pause: float, deadline: float, asks: int | None = None) -> None:
        """Ask the first rank in hand every ``pause`` seconds until the game is over (or
        ``asks`` more asks were acknowledged)."""
        goal = len(self.acked) + asks if asks is not None else None
        while self.view["status"] == "playing" and (goal is None or len(self.acked) < goal):
            assert time.monotonic() < deadline, f"{self.name}: the game did not end in time"
            if self.ws is None:
                await self.open(deadline)
                continue
            await asyncio.sleep(pause)
            move, rank = self.view["move"], self.view["hand"][0][:-1]
            self.pending = rank
            try:
                await self.ws.send(json.dumps({"move": move, "rank": rank}))
                answer = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
            except CUT as exc:
                # Stored or not, the next socket's `ready` says.
                self.cuts.append((time.monotonic(), close_code(exc)))
                await self.drop()
                continue
            now = time.monotonic()
            if "error" not in answer:
                assert answer["move"] == move + 1, (self.name, move, answer)
                self.ledger.append(rank)
                self.acked.append(now)
                self.pending = None
                self.view = answer
                continue
            self.errors.append((now, answer["error"]))
            if answer["error"] == "stale_move":
                self.view = answer["view"]
                await self.settle(self.view["move"])
            elif answer["error"] in ("unavailable", "rate_limited"):
                await asyncio.sleep(0.2)  # the same ask again: its move number keeps it from counting twice
            else:
                raise AssertionError(f"{self.name}: {answer}")

    async def drop(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(*CUT):
                await self.ws.close()
        self.ws = None

    def acked_between(self, start: float, end: float) -> int:
        return sum(1 for t in self.acked if start <= t <= end)


def close_code(exc: BaseException) -> int | None:
    frame = getattr(exc, "rcvd", None)
    return frame.code if frame is not None else None


def query(database_url: str, sql: str, params=()) -> list[tuple]:
    """On a fresh connection: the server may have been restarted since."""
    with psycopg.connect(database_url, autocommit=True, connect_timeout=10) as conn:
        return conn.execute(sql, params).fetchall()


def stored_games(database_url: str, ids: list[int]) -> dict[int, tuple[str, list[str]]]:
    from challenges.models import Attempt

    rows = query(database_url, f"SELECT id, status, moves FROM {Attempt._meta.db_table} WHERE id = ANY(%s)", [ids])
    return {pk: (status, list(moves)) for pk, status, moves in rows}


def assert_ledgers_stored(database_url: str, players: list[SocketPlayer]) -> None:
    """Nothing acknowledged lost, nothing applied twice: each stored game is its ledger."""
    stored = stored_games(database_url, [p.id for p in players])
    for p in players:
        assert stored[p.id][1] == p.ledger, (p.name, len(stored[p.id][1]), len(p.ledger), p.unanswered)
        assert p.view["status"] != "playing", p.name


def wait_verified(database_url: str, players: list[SocketPlayer]) -> None:
    ids = [p.id for p in players]
    wait_for(
        lambda: {s for s, _ in stored_games(database_url, ids).values()} == {"verified"}, timeout=120, interval=0.5
    )


def game_length(port: int) -> int:
    """Asks in a whole game (every game here is the same deal played the same way)."""
    pilot = SocketPlayer(port, "Pilot")
    in_own_thread(asyncio.run, pilot.play(0.0, time.monotonic() + BOUND))
    return len(pilot.ledger)


async def together(*coroutines) -> list:
    return await asyncio.gather(*coroutines)


async def started(players: list[SocketPlayer]) -> None:
    """Until every player has an acknowledged ask: their games are in flight."""
    deadline = time.monotonic() + 60
    while not all(p.acked for p in players):
        assert time.monotonic() < deadline, "the games did not start"
        await asyncio.sleep(0.05)


def database_of(stack) -> str:
    return stack.env["DATABASE_URL"]


class Background:
    """An event loop on a thread of its own, for the players' sockets, while the test's
    thread breaks and restarts servers: a server started from a short-lived thread would
    die with it (harness/servers.py's children get SIGTERM when the thread that started
    them ends)."""

    def __enter__(self) -> Background:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        return self

    def spawn(self, coroutine) -> concurrent.futures.Future:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def run(self, coroutine, timeout: float = BOUND):
        return self.spawn(coroutine).result(timeout)

    def __exit__(self, *exc) -> None:
        async def cancel_the_rest() -> None:
            for task in asyncio.all_tasks() - {asyncio.current_task()}:
                task.cancel()

        self.run(cancel_the_rest(), 30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)
        self.loop.close()


def test_redis_down_30s_while_games_are_played_over_sockets(stack_factory, own_redis):
    """Redis carries the sockets' channel layer (the log-out close), the ask limit's
    counters, the sessions and the verification queue. With it gone, open sockets play
    on, new ones open, games finish; their verification waits for Redis to return."""
    stack = stack_factory(own_redis.url)
    database = database_of(stack)
    length = game_length(stack.port)
    early = [SocketPlayer(stack.port, f"Early {i}") for i in range(10)]
    late = [SocketPlayer(stack.port, f"Late {i}") for i in range(5)]
    # The early games last the outage and some more; the late ones begin and end inside it.
    pace = (REDIS_DOWN_SECONDS + 10) / length
    with Background() as loop:
        deadline = time.monotonic() + BOUND
        games = [loop.spawn(p.play(pace, deadline)) for p in early]
        loop.run(started(early))
        own_redis.kill()
        down = time.monotonic()
        assert not own_redis.answers()
        loop.run(together(*(p.play(0.02, deadline) for p in late)))
        time.sleep(max(0.0, REDIS_DOWN_SECONDS - (time.monotonic() - down)))
        statuses = stored_games(database, [p.id for p in late])
        up = time.monotonic()
        own_redis.start()  # empty: no queue, no counters, no channels
        for game in games:
            game.result(BOUND)
    # The outage met games in flight: the early games took asks before, during and after it
    # on the sockets they had opened before it; the late ones opened sockets and finished
    # while Redis was down, and could not be verified then (no queue).
    for p in early:
        assert p.acked[0] < down and p.acked_between(down, up) and p.acked[-1] > up, p.name
    for p in late:
        assert down < p.opened[0] and p.acked[-1] < up, p.name
        assert statuses[p.id] == ("verifying", p.ledger), p.name
    # No socket broke and no ask was refused, Redis or not.
    assert [(p.name, p.cuts, p.errors) for p in early + late if p.cuts or p.errors] == []
    assert_ledgers_stored(database, early + late)
    wait_verified(database, early + late)


def test_postgres_restarted_while_games_are_played_over_sockets(own_postgres, stack_factory):
    """Postgres (a cluster of the test's own) stopped for a few seconds and started again:
    the asks meanwhile are refused `unavailable` and nothing else; the sockets stay open
    and play on once it is back."""
    database = own_postgres.url("own")
    stack = stack_factory(fresh_session_redis(12), database)
    length = game_length(stack.port)
    players = [SocketPlayer(stack.port, f"Restart {i}") for i in range(10)]
    pace = (POSTGRES_DOWN_SECONDS + 10) / length
    with Background() as loop:
        deadline = time.monotonic() + BOUND
        games = [loop.spawn(p.play(pace, deadline)) for p in players]
        loop.run(started(players))
        down = time.monotonic()
        own_postgres.stop("fast")
        time.sleep(POSTGRES_DOWN_SECONDS)
        restarting = time.monotonic()
        own_postgres.start()
        up = time.monotonic()
        for game in games:
            game.result(BOUND)
    # In flight: every game had asks acknowledged before the stop and after the start,
    # and the asks sent while the database was down were refused `unavailable`.
    for p in players:
        assert p.acked[0] < down and p.acked[-1] > up, p.name
    refused = [code for p in players for t, code in p.errors if down <= t <= restarting]
    assert "unavailable" in refused, refused
    assert {code for p in players for _, code in p.errors} <= {"unavailable", "stale_move"}
    # The sockets outlived the restart: each game was played on the one it opened first.
    assert [(p.name, p.cuts) for p in players if p.cuts or len(p.opened) != 1] == []
    assert_ledgers_stored(database, players)
    wait_verified(database, players)


def test_a_client_opening_1000_sockets_is_capped_and_others_play_on(stack_factory):
    """One player's client opens 1,000 sockets on its game at once and holds what it gets.
    The proxy lets a few hundred per address through (429 for the rest), the app holds a
    few of those (settings.GAME_SOCKET["per_player"]) and refuses the others with
    `too_many_sockets`; the other players' games go on, and a page opened meanwhile gets
    its socket."""
    stack = stack_factory(settings.REDIS_URL)
    database = database_of(stack)
    length = game_length(stack.port)
    players = [SocketPlayer(stack.port, f"Neighbour {i}") for i in range(6)]
    newcomer = SocketPlayer(stack.port, "Newcomer")
    flooder = SocketPlayer(stack.port, "Flooder")
    pace = 20 / length
    held: list = []
    outcomes: list[str] = []
    marks: dict[str, float] = {}

    async def one_socket() -> None:
        try:
            # Waited for long: on a loaded machine a thousand handshakes take a while, and
            # one given up would still hold its place until the server hears of it.
            ws = await flooder.connect(timeout=120)
            hello = json.loads(await asyncio.wait_for(ws.recv(), 120))
        except websockets.InvalidStatus as exc:  # refused at the handshake, by the proxy
            outcomes.append(f"status {exc.response.status_code}")
            return
        except CUT as exc:
            outcomes.append(f"cut {exc.__class__.__name__} {close_code(exc)}")
            return
        if hello.get("ready"):
            outcomes.append("ready")
            held.append(ws)
            return
        try:
            await asyncio.wait_for(ws.recv(), 10)
        except websockets.ConnectionClosed as exc:
            outcomes.append(f"{hello.get('error')} {close_code(exc)}")

    async def scenario() -> None:
        deadline = time.monotonic() + BOUND
        games = [asyncio.create_task(p.play(pace, deadline)) for p in players]
        await started(players)
        marks["flood"] = time.monotonic()
        await asyncio.gather(*(one_socket() for _ in range(1000)))
        marks["flooded"] = time.monotonic()
        # While the flooder holds what it got: a new page opens its socket and plays.
        await newcomer.play(0.0, deadline, asks=5)
        # The flooder's own sockets still play its game.
        ws = held[0]
        await ws.send(json.dumps({"move": 0, "rank": flooder.view["hand"][0][:-1]}))
        marks["flooder_answer"] = json.loads(await asyncio.wait_for(ws.recv(), 30))["move"]
        # Held until every other game has had an ask acknowledged since the flood began: on
        # a quiet machine the thousand handshakes can be over within one neighbour's pace.
        held_until = time.monotonic() + 60
        while not all(p.acked_between(marks["flood"], time.monotonic()) for p in players):
            assert time.monotonic() < held_until, "the other games took no ask while the sockets were held"
            await asyncio.sleep(0.05)
        marks["held_after"] = time.monotonic()
        for ws in held:
            with contextlib.suppress(*CUT):
                await ws.close()
        await asyncio.gather(*games, newcomer.play(0.0, deadline))

    in_own_thread(asyncio.run, scenario())
    cap = int(settings.GAME_SOCKET["per_player"])
    counts = {outcome: outcomes.count(outcome) for outcome in set(outcomes)}
    # Each of the 1,000 was answered: held, refused by the app once open (with its code),
    # or refused by the proxy at the handshake (past its limit per address). None cut.
    print(f"1,000 sockets of one player: {counts}")
    assert len(outcomes) == 1000 and counts["ready"] == cap, counts
    assert set(counts) <= {"ready", "too_many_sockets 4429", "status 429"}, counts
    assert marks["flooder_answer"] == 1
    # In flight: the other games took asks while the 1,000 sockets were opened and held.
    for p in players:
        assert p.acked[0] < marks["flood"] and p.acked_between(marks["flood"], marks["held_after"]), p.name
    assert newcomer.opened[0] < marks["held_after"]
    assert [(p.name, p.cuts, p.errors) for p in [*players, newcomer] if p.cuts or p.errors] == []
    assert_ledgers_stored(database, [*players, newcomer])
    assert stored_games(database, [flooder.id])[flooder.id] == ("playing", [flooder.view["hand"][0][:-1]])


@pytest.mark.parametrize("kind", ["text", "binary"])
def test_a_frame_of_1mb_closes_that_socket_and_changes_nothing(stack_factory, kind):
    """A 1 MB frame is cut by the server (uvicorn's --ws-max-size) with close code 1009,
    message too big, before the app reads it: the game is as it was, the page reopens
    and plays on; other games never notice."""
    stack = stack_factory(settings.REDIS_URL)
    database = database_of(stack)
    length = game_length(stack.port)
    players = [SocketPlayer(stack.port, f"Bystander {i}") for i in range(4)]
    sender = SocketPlayer(stack.port, "Sender")
    pace = 8 / length
    marks: dict[str, float] = {}
    frame = json.dumps({"move": 3, "rank": "7" * (1 << 20)})
    closed: list[int | None] = []
    after: dict[int, tuple[str, list[str]]] = {}

    async def scenario() -> None:
        deadline = time.monotonic() + BOUND
        games = [asyncio.create_task(p.play(pace, deadline)) for p in players]
        await started(players)
        await sender.play(0.0, deadline, asks=3)
        marks["sent"] = time.monotonic()
        try:
            await sender.ws.send(frame if kind == "text" else frame.encode())
        except websockets.ConnectionClosed as exc:
            closed.append(("sending", close_code(exc)))
        else:
            try:
                await asyncio.wait_for(sender.ws.recv(), 30)
            except websockets.ConnectionClosed as exc:
                closed.append(("sent", close_code(exc)))
        marks["closed"] = time.monotonic()
        after.update(await asyncio.to_thread(stored_games, database, [sender.id]))
        await sender.drop()
        await sender.open(deadline)
        marks["reopened"] = time.monotonic()
        await asyncio.gather(*games, sender.play(0.0, deadline))

    in_own_thread(asyncio.run, scenario())
    # The server closes with 1009 (message too big) and never answers the frame. When it
    # closes while the megabyte is still on its way (a busy machine), the close frame is
    # lost in the reset of the connection: the cut is all the client can see.
    assert len(closed) == 1 and closed[0][1] in (1009, None), closed
    # Nothing changed: the game stored is the three asks acknowledged before the frame.
    assert after[sender.id] == ("playing", sender.ledger[:3]) and sender.unanswered == 0
    assert len(sender.opened) == 2
    for p in players:
        assert p.acked[0] < marks["sent"] and p.acked[-1] > marks["closed"], p.name
    assert [(p.name, p.cuts, p.errors) for p in [*players, sender] if p.cuts or p.errors] == []
    assert_ledgers_stored(database, [*players, sender])
