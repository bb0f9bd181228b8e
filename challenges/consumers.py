"""The daily game over a WebSocket: ``/ws/attempts/<id>``.

One socket per open game page. The handshake authenticates as the HTTP API does and
checks the Origin (challenges/sockets.py); the player's attempt is read and replayed
once, then held by the connection (``services.HeldGame``), so an ask neither
authenticates again, nor reads the session or the attempt, nor replays the game.

A message ``{"move": n, "rank": "7"}`` is one ask through the very service of the HTTP
ask (``services.attempt_ask``), stored by the same compare-and-set before the answer is
sent: the answer is the HTTP ask's JSON (the attempt's view after it, with its events).
A refusal is ``{"error": code, "detail": text}`` with the HTTP API's codes, and changes
nothing; ``stale_move`` also carries the stored game's ``view`` (another tab asked first).
After any refusal of the service the connection reads its game again from the database.

Per ask, on the event loop alone: the rules on the held state, the compare-and-set on the
socket's own Postgres connection (challenges/socket_writes.py), the answer encoded once.
The player's ask limit is taken from a lease of a few asks (``services.ask_lease``, one
Redis round trip per lease). The pool's threads (``on_db``) serve what happens once per
game or after an error: the handshake, a lease, a refusal's re-read of the game, the
credential's re-check, the finished game's verification.

Messages of the server besides answers: ``{"ready": true, "move": n}`` once the game is
held (a page asks only after it), and before it closes the socket on its own an error
whose code says why (``not_authenticated``, ``bad_token``, ``not_found``, ``signed_out``,
``idle``), with the close codes below.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
import weakref
from collections import Counter
from functools import partial
from types import SimpleNamespace
from typing import Any

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import DEFAULT_CHANNEL_LAYER, InMemoryChannelLayer, channel_layers, get_channel_layer
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections
from django.utils import timezone

from config.errors import ApiError
from config.inputs import parsed
from games.rules.base import DomainError

from . import selectors, services, socket_writes, sockets
from .api import AskIn
from .models import Attempt

log = logging.getLogger(__name__)

# Close codes (4000-4999: the application's own), each after an error message saying why.
CLOSE_CODES = {
    "not_authenticated": 4401,
    "bad_token": 4401,
    "not_found": 4404,
    "signed_out": 4001,
    "idle": 4408,
    "slow": 4409,
    "too_many_sockets": 4429,
}
ASK_FIELDS = frozenset({"move", "rank"})
# Where the history's JSON goes in an answer's (no entry holds a NUL character).
HISTORY_MARK = "\x00history\x00"
HISTORY_MARK_JSON = json.dumps(HISTORY_MARK)
UNAVAILABLE = {"error": "unavailable", "detail": "the database is unavailable; try again shortly"}
# Open sockets (and handshakes under way) in this process, by player and by the credential
# presented (one uvicorn process holds them all here: scripts/stack, docker-compose). A
# count is checked and taken with no await in between. The credential's is checked before
# the database is asked anything: a client opening hundreds of sockets at once with one
# token costs a few database reads, not hundreds.
OPEN: Counter[tuple[str, Any]] = Counter()
# The channel layer (Redis) carries only the log-out close: while it cannot be reached, the
# process's listener (``Closes``) waits this long between tries and the sockets play on (GAME_SOCKET["recheck_seconds"] still
# ends one whose credential ended meanwhile).
LAYER_RETRY_SECONDS = 1.0
LAYER_TIMEOUT = 0.5
# The listener's own join may take longer than a socket waits for it: on a saturated machine
# a join cut at 0.5 s and retried a second later left every socket of the process deaf to
# log-outs (seen in full test runs at load 11-17). A socket opens after LAYER_TIMEOUT
# either way; the join goes on in the background.
JOIN_TIMEOUT = 10.0
# A join is one Redis round trip a process: a minute bounds how long a Redis restarted
# empty leaves the sockets deaf to log-outs (as GAME_SOCKET["recheck_seconds"] does).
REJOIN_SECONDS = 60.0


async def on_db(function, *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` on a thread of the loop's pool, its database
    connections tidied before and after as Channels does. Not Channels' default, one thread
    for every sync call of the process: there each ask waited for every other socket's round
    trips to Postgres and Redis (on 2 cores, ~180 asks/s with the CPU 28% idle;
    docs/benchmarks.md). Nor asgiref's SyncToAsync, built anew per call: its wrapper and
    context copy cost ~10% of the socket process's CPU per ask (py-spy), for nothing a
    socket uses. One consumer still takes one message at a time, so its game is never
    touched by two threads at once; each pool thread keeps its own connection."""
    return await asyncio.get_running_loop().run_in_executor(None, partial(_tidied, function, args, kwargs))


def _tidied(function, args: tuple, kwargs: dict) -> Any:
    close_old_connections()
    try:
        return function(*args, **kwargs)
    finally:
        close_old_connections()


def limit(name: str) -> float:
    return float(settings.GAME_SOCKET[name])


def encoded(data: dict[str, Any]) -> str:
    """JSON as the HTTP API renders it (DRF's compact separators, characters unescaped)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


class Closes:
    """The close messages of ``services.player_sockets_close`` for this event loop's sockets
    (one uvicorn process: one loop): one channel of the layer, in the group every
    process's sockets listen on (``services.SOCKETS_GROUP``), joined once and again every
    REJOIN_SECONDS (``join``). A message names the player; the player's sockets here are
    closed. Not a channel and a group per socket:
    joining and leaving a group cost two Redis round trips per game, and each socket's
    wait on the layer a task per wake-up (6-10% of the socket process's CPU, py-spy)."""

    def __init__(self, layer: Any) -> None:
        self.layer = layer
        self.sockets: dict[int, set[AttemptConsumer]] = {}
        self.joined = asyncio.Event()
        self.channel: str | None = None  # the listener's, once it has one
        self.task = asyncio.ensure_future(self.listen())

    @classmethod
    async def of_loop(cls) -> Closes | None:
        """The running loop's listener (None without a channel layer), joined to the group
        or given up on after LAYER_TIMEOUT (the layer may be down: sockets play on)."""
        layer = get_channel_layer()
        if layer is None:
            return None
        loop = asyncio.get_running_loop()
        found = _closes.get(loop)
        if found is None or found.task.done():
            found = _closes[loop] = cls(_listening_layer(layer))
        if not found.joined.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(LAYER_TIMEOUT):
                    await found.joined.wait()
        return found

    def add(self, socket: AttemptConsumer) -> None:
        self.sockets.setdefault(socket.player.pk, set()).add(socket)

    def discard(self, socket: AttemptConsumer) -> None:
        held = self.sockets.get(socket.player.pk)
        if held is not None:
            held.discard(socket)
            if not held:
                del self.sockets[socket.player.pk]

    async def listen(self) -> None:
        self.channel = channel = await self.layer.new_channel()
        joining = asyncio.ensure_future(self.join(channel))
        try:
            while True:
                try:
                    message = await self.layer.receive(channel)
                except Exception as exc:  # noqa: BLE001 (whatever the layer's client raises)
                    log.info("channel layer unavailable: %s", exc.__class__.__name__)
                    await asyncio.sleep(LAYER_RETRY_SECONDS)
                    continue
                if message.get("type") == "player.close":
                    for socket in list(self.sockets.get(message.get("player"), ())):
                        asyncio.ensure_future(socket.closed_by_layer(message))
        finally:
            joining.cancel()

    async def join(self, channel: str) -> None:
        """Into the group, and again every REJOIN_SECONDS beside the receiving: Redis forgets
        a group's members after a day, and all of them when it restarts empty (a restart
        left the process deaf to log-outs until the next join)."""
        while True:
            try:
                async with asyncio.timeout(JOIN_TIMEOUT):
                    await self.layer.group_add(services.SOCKETS_GROUP, channel)
            except Exception as exc:  # noqa: BLE001 (whatever the layer's client raises)
                log.info("channel layer unavailable: %s", exc.__class__.__name__)
                await asyncio.sleep(LAYER_RETRY_SECONDS)
                continue
            self.joined.set()
            await asyncio.sleep(REJOIN_SECONDS)


def _listening_layer(shared: Any) -> Any:
    """The layer a loop's listener receives on. A channels_redis instance receives on one
    event loop at a time (a second loop's ``receive`` raises "Two event loops are trying to
    receive()"), and the listener never stops receiving: a process with several loops (the
    tests: the live server's thread and each test's own) would leave all but the first deaf
    to log-outs. So each loop's listener has an instance of its own; a close sent through
    the shared one reaches it through Redis all the same. The in-memory layer (no Redis, one
    process) is the shared instance itself: a copy would be another memory."""
    if isinstance(shared, InMemoryChannelLayer):
        return shared
    return channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)


_closes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Closes] = weakref.WeakKeyDictionary()


class AttemptConsumer(AsyncWebsocketConsumer):
    held: services.HeldGame | None = None
    unsure = False  # the held game may be ahead of the stored one: read it before the next ask
    player: Any = None
    counted: tuple[tuple[str, Any], ...] = ()  # the OPEN counts this socket holds
    # The history of the last answer and its entries' JSON (``view_text``).
    history_known: tuple[list[Any], list[str]] = ([], [])
    # Asks left of the player's limit (services.ask_lease), until this time.monotonic().
    leased = 0
    leased_until = 0.0

    async def __call__(self, scope, receive, send) -> None:
        """Channels' own loop, with three differences. A message is not preceded by
        ``close_old_connections`` on Channels' one sync thread (a thread hop per ask): the
        database is used only on the pool's threads (``on_db``), which tidy their own, and
        on the socket's own connections (challenges/socket_writes.py). The socket's
        messages are awaited directly: Channels' loop made a task per message and waited
        on two sources for each. And the channel layer is not the socket's own: the
        process listens once for every socket (``Closes``), and hands a log-out's close to
        the player's sockets, each handled under the socket's ``turn`` like its messages;
        a layer that fails (Redis down) ends no socket."""
        self.scope = scope
        self.base_send = send
        self.turn = asyncio.Lock()
        try:
            while True:
                message = await receive()
                async with self.turn:
                    await self.dispatch(message)
        except StopConsumer:
            pass
        finally:
            closes = getattr(self, "closes", None)
            if closes is not None:
                closes.discard(self)
            for key in self.counted:
                OPEN[key] -= 1
                if OPEN[key] <= 0:
                    del OPEN[key]

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def closed_by_layer(self, message: dict[str, Any]) -> None:
        async with self.turn:
            await self.dispatch(message)

    async def connect(self) -> None:
        scope = self.scope
        origin = sockets.origin_of(scope)
        if not sockets.host_allowed(scope) or (origin is not None and not sockets.origin_allowed(scope, origin)):
            await self.close()  # refused at the handshake (HTTP 403): another site's page learns nothing
            return
        credential = sockets.credential_of(scope)
        if credential and not await self.count(("credential", credential)):
            return
        player, how, refused = await on_db(sockets.scope_player, scope)
        if player is None or (origin is None and how != "token"):
            # Without an Origin only a token is taken (only a browser sends cookies by itself).
            await self.refuse(refused or "not_authenticated", "authenticate with the session cookie or a token")
            return
        if not await self.count(("player", player.pk)):
            return
        self.player, self.how = player, how
        self.checked_at = time.monotonic()
        self.attempt_id = int(scope["url_route"]["kwargs"]["attempt_id"])
        try:
            self.held = await on_db(services.attempt_held, attempt_id=self.attempt_id, player=player)
        except DomainError as exc:
            await self.refuse(exc.code, exc.detail or exc.code)
            return
        self.closes = await Closes.of_loop()
        if self.closes is not None:
            self.closes.add(self)
        # The connection's limits, read once (settings.GAME_SOCKET).
        self.rate, self.burst, self.max_frame = limit("rate"), limit("burst"), limit("max_frame")
        self.recheck_seconds, self.send_timeout = limit("recheck_seconds"), limit("send_timeout")
        self.tokens = self.burst
        self.writes = socket_writes.writes()
        self.filled_at = time.monotonic()
        self.heard_at = time.monotonic()
        await self.accept()
        self.watch = asyncio.ensure_future(self.watch_idle())
        await self.send_json({"ready": True, "move": len(self.held.attempt.moves)})

    async def count(self, key: tuple[str, Any]) -> bool:
        """Take one of ``key``'s sockets (settings.GAME_SOCKET["per_player"]), or refuse."""
        if OPEN[key] >= limit("per_player"):
            await self.refuse("too_many_sockets", f"at most {int(limit('per_player'))} open game sockets per player")
            return False
        OPEN[key] += 1  # no await since the check: concurrent handshakes count one by one
        self.counted = (*self.counted, key)
        return True

    async def refuse(self, code: str, detail: str) -> None:
        """Accept, say why, close: the page tells a refusal (fall back to HTTP, whose
        answer is the same) from a socket that cannot open at all."""
        await self.accept()
        await self.send_json({"error": code, "detail": detail})
        await self.close(CLOSE_CODES.get(code, 4400))

    async def disconnect(self, code: int) -> None:
        watch = getattr(self, "watch", None)
        if watch is not None:
            watch.cancel()

    async def send_json(self, data: dict[str, Any], text: str | None = None) -> None:
        """``data`` (or its JSON ``text``, if made already). A client that does not read its
        answers is closed, not waited for."""
        try:
            async with asyncio.timeout(getattr(self, "send_timeout", None) or limit("send_timeout")):
                # No task per send, as wait_for makes.
                await self.send(text_data=text if text is not None else encoded(data))
        except TimeoutError:
            log.info("socket closed: slow reader attempt=%s", getattr(self, "attempt_id", None))
            await self.close(CLOSE_CODES["slow"])

    async def error(self, code: str, detail: str, **more: Any) -> None:
        await self.send_json({"error": code, "detail": detail, **more})

    async def watch_idle(self) -> None:
        idle = limit("idle_seconds")
        while True:
            await asyncio.sleep(max(1.0, idle - (time.monotonic() - self.heard_at)))
            if time.monotonic() - self.heard_at >= idle:
                await self.error("idle", "closed after a while without asks; reconnect to play on")
                await self.close(CLOSE_CODES["idle"])
                return

    async def player_close(self, message: dict[str, Any]) -> None:
        """A log-out, a password change or a new token (services.player_sockets_close)."""
        self.held = None
        await self.error("signed_out", "the credential of this socket changed; reconnect")
        await self.close(CLOSE_CODES["signed_out"])

    def take_token(self) -> float | None:
        """The connection's own limit (a bucket): None if the ask may go, else the wait."""
        now = time.monotonic()
        rate, burst = self.rate, self.burst
        self.tokens = min(burst, self.tokens + (now - self.filled_at) * rate)
        self.filled_at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return None
        return (1 - self.tokens) / rate

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        self.heard_at = time.monotonic()
        if self.held is None:
            return  # closing
        if text_data is not None:
            # A character is 1 to 4 bytes: encoded only when the count alone cannot tell.
            size = len(text_data) if len(text_data) * 4 <= self.max_frame else len(text_data.encode())
        else:
            size = len(bytes_data or b"")
        if size > self.max_frame:
            await self.error("too_large", f"a message is at most {int(self.max_frame)} bytes")
            return
        if text_data is None:
            await self.error("bad_json", "send text frames of JSON")
            return
        try:
            data = json.loads(text_data)
        except ValueError:
            await self.error("bad_json", "the message is not JSON")
            return
        if not isinstance(data, dict):
            await self.error("bad_request", "the message must be a JSON object")
            return
        unknown = sorted(set(data) - ASK_FIELDS)
        if unknown:
            await self.error("unknown_field", f"unknown field '{unknown[0]}': send only move and rank")
            return
        try:
            body = parsed(AskIn, SimpleNamespace(data=data))
        except ApiError as exc:
            await self.error(exc.error_code, str(exc.detail))
            return
        wait = self.take_token()
        if wait is not None:
            await self.error("rate_limited", "too many asks on this socket", retry_after=max(1, math.ceil(wait)))
            return
        answer = await self.ask(body["move"], body["rank"])
        if answer.get("error") in CLOSE_CODES:
            await self.send_json(answer)
            await self.close(CLOSE_CODES[answer["error"]])
            return
        await self.send_json(answer, self.view_text(answer) if "error" not in answer else None)

    def view_text(self, view: dict[str, Any]) -> str:
        """The view's JSON, its history's entries (every ask of the game so far, the bulk of
        the answer by the end) encoded once per socket: an entry equal to the one at its
        place in the last answer keeps that one's text. Comparing is ~10x cheaper than
        encoding (bench.socket_cpu)."""
        history = view.get("history")
        if type(history) is not list:
            return encoded(view)
        known, texts = self.history_known
        fresh = [
            texts[i] if i < len(known) and known[i] == entry else encoded(entry) for i, entry in enumerate(history)
        ]
        self.history_known = (history, fresh)
        text = encoded({**view, "history": HISTORY_MARK})
        return text.replace(HISTORY_MARK_JSON, "[" + ",".join(fresh) + "]", 1)

    async def ask(self, move: int, rank: str) -> dict[str, Any]:
        """One ask: the answer (the attempt's view after it), or a refusal. The usual ask
        is stored on the event loop (``self.writes``); the rest goes through ``answer`` on
        the pool's threads."""
        if self.writes is None or self.unsure or time.monotonic() - self.checked_at > self.recheck_seconds:
            return await on_db(self.answer, move, rank)
        if not self.leased or time.monotonic() >= self.leased_until:
            refusal = await on_db(self.lease)
            if refusal is not None:
                return refusal
        self.leased -= 1
        held = self.held
        assert held is not None
        attempt = held.attempt
        try:
            _, write = services.ask_write(attempt_id=attempt.pk, player=self.player, rank=rank, move=move, held=held)
            rows = await self.writes.rows(write.statement, write.params)
            _, state, events = services.attempt_asked(attempt, write, rows)
        except DomainError as exc:
            return await on_db(self.refused, {"error": exc.code, "detail": exc.detail or exc.code})
        except socket_writes.Error as exc:
            log.warning("database unavailable on a socket ask attempt=%s: %s", self.attempt_id, exc.__class__.__name__)
            return await on_db(self.refused, UNAVAILABLE)
        if attempt.status == Attempt.Status.VERIFYING:
            # Committed already. Should this process die right here, the attempt is
            # `verifying` without a message: the sweeper enqueues it.
            await on_db(services.enqueue_verification, attempt.pk)
        return selectors.attempt_view(attempt, state, events=events)

    def answer(self, move: int, rank: str) -> dict[str, Any]:
        """An ask on a thread of the pool, through Django's connection: the socket's first
        ask, one after a refusal (the game read again), one that takes a new lease of the
        player's limit or re-checks the credential, and every ask on a database other than
        Postgres."""
        player = self.player
        try:
            if self.unsure:
                self.held, self.unsure = services.attempt_held(attempt_id=self.attempt_id, player=player), False
            held = self.held
            assert held is not None
            if time.monotonic() - self.checked_at > self.recheck_seconds:
                # The credential is read again now and then: a close message the layer
                # could not carry (services.player_sockets_close) still ends this socket.
                again, _, refused = sockets.scope_player(self.scope)
                if again is None or again.pk != player.pk:
                    self.held = None
                    return {"error": refused or "not_authenticated", "detail": "this socket's credential has ended"}
                self.checked_at = time.monotonic()
            if not self.leased or time.monotonic() >= self.leased_until:
                refusal = self.lease()
                if refusal is not None:
                    return refusal
            self.leased -= 1
            attempt, state, events = services.attempt_ask(
                attempt_id=held.attempt.pk, player=player, rank=rank, move=move, held=held
            )
            return selectors.attempt_view(attempt, state, events=events)
        except DomainError as exc:
            return self.refused({"error": exc.code, "detail": exc.detail or exc.code})
        except (OperationalError, InterfaceError):
            log.warning("database unavailable on a socket ask attempt=%s", self.attempt_id)
            return self.refused(UNAVAILABLE)

    def lease(self) -> dict[str, Any] | None:
        """Asks of the player's limit, shared with the HTTP ask, a few at a time
        (``services.ask_lease``); None if granted, else the refusal."""
        self.leased, seconds = services.ask_lease(player=self.player)
        if not self.leased:
            return {"error": "rate_limited", "detail": "too many asks", "retry_after": int(seconds)}
        self.leased_until = time.monotonic() + seconds
        return None

    def refused(self, refusal: dict[str, Any]) -> dict[str, Any]:
        """After a refused ask (on a thread of the pool): the held state may have taken the
        ask before its write lost, so the game is read again (now, or at the next ask if
        the database cannot answer now). ``stale_move`` carries the stored game's view."""
        player = self.player
        refusal = dict(refusal)
        self.unsure = True
        try:
            self.held, self.unsure = services.attempt_held(attempt_id=self.attempt_id, player=player), False
        except DomainError as exc:
            self.held = None
            return {"error": exc.code, "detail": exc.detail or exc.code}
        except (OperationalError, InterfaceError):
            return refusal
        if refusal["error"] == "stale_move":
            try:
                # The write found the day closed (Attempt.write_guard), not another ask.
                self.held.attempt.refuse_move(timezone.now())
            except DomainError as exc:
                return {"error": exc.code, "detail": exc.detail or exc.code}
            refusal["view"] = selectors.attempt_view(self.held.attempt, self.held.state)
        return refusal
