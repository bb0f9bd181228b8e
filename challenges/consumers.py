"""The daily game over a WebSocket: ``/ws/attempts/<id>``, the socket's adapter over the
ask's pipeline (challenges/ask_api.py), as ``AskView`` is HTTP's.

One socket per open game page. The handshake authenticates as the HTTP API does and
checks the Origin (challenges/sockets.py); the player's game is read and replayed once,
then held with a lease of the player's ask limit (socket_game.py ``Game``), so an ask neither
authenticates again, nor reads the session or the attempt, nor replays the game.

A message ``{"move": n, "rank": "7"}`` is one ask, answered with the HTTP ask's JSON (the
attempt's view after it, with its events), or with its refusal ``{"error": code,
"detail": text}`` (the HTTP API's codes; ``retry_after`` for ``rate_limited``;
``stale_move`` also carries the stored game's ``view``: another tab asked first). A
refusal changes nothing.

What is the socket's own: a frame's size and its JSON (``too_large``, ``bad_json``), a
bucket of asks per socket (``rate_limited`` too), the count of a player's open sockets
(``too_many_sockets``), the idle timeout, and a slow reader closed rather than waited for.

Messages of the server besides answers: ``{"ready": true, "move": n}`` once the game is
held (a page asks only after it), and before it closes the socket on its own an error
whose code says why (``not_authenticated``, ``bad_token``, ``not_found``, ``signed_out``,
``idle``), with the close codes below.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from functools import partial
from typing import Any

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from config import db, metrics
from config.errors import ApiError
from games.rules.base import DomainError

from . import ask_api, sockets
from .socket_game import Game, on_db
from .sockets import OPEN, Closes

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


def limit(name: str) -> float:
    return float(settings.GAME_SOCKET[name])


class AttemptConsumer(AsyncWebsocketConsumer):
    game: Game | None = None
    player: Any = None
    counted: tuple[tuple[str, Any], ...] = ()  # the OPEN counts this socket holds

    async def __call__(self, scope, receive, send) -> None:
        """Channels' own loop, with three differences. A message is not preceded by
        ``close_old_connections`` on Channels' one sync thread (a thread hop per ask): the
        database is used only on the pool's threads (``socket_game.on_db``), which tidy
        their own, and on the loop's own connections (config/db.py ``runner``). The
        socket's messages are awaited directly: Channels' loop made a task per message and
        waited on two sources for each. And the channel layer is not the socket's own: the
        process listens once for every socket (``sockets.Closes``), and hands a log-out's
        close to the player's sockets, each handled under the socket's ``turn`` like its
        messages; a layer that fails (Redis down) ends no socket."""
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
            if self.game is not None:
                metrics.SOCKETS_OPEN.dec()
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
        self.player = player
        self.attempt_id = int(scope["url_route"]["kwargs"]["attempt_id"])
        game = Game(
            player,
            self.attempt_id,
            signed_in=partial(sockets.signed_in, scope),
            recheck_seconds=limit("recheck_seconds"),
        )
        try:
            move = await on_db(game.open)
        except DomainError as exc:
            await self.refuse(exc.code, exc.detail or exc.code)
            return
        game.runner = db.runner()
        self.game = game
        metrics.SOCKETS_OPEN.inc()
        self.closes = await Closes.of_loop()
        if self.closes is not None:
            self.closes.add(self)
        # The connection's limits, read once (settings.GAME_SOCKET).
        self.rate, self.burst, self.max_frame = limit("rate"), limit("burst"), limit("max_frame")
        self.send_timeout = limit("send_timeout")
        self.tokens = self.burst
        self.filled_at = self.heard_at = time.monotonic()
        await self.accept()
        self.watch = asyncio.ensure_future(self.watch_idle())
        await self.send_json({"ready": True, "move": move})

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
        await self.error(code, detail)
        await self.close(CLOSE_CODES.get(code, 4400))

    async def disconnect(self, code: int) -> None:
        watch = getattr(self, "watch", None)
        if watch is not None:
            watch.cancel()

    async def send_json(self, data: dict[str, Any]) -> None:
        """``data`` as the HTTP API writes it. A client that does not read its answers is
        closed, not waited for."""
        try:
            async with asyncio.timeout(getattr(self, "send_timeout", None) or limit("send_timeout")):
                # No task per send, as wait_for makes.
                await self.send(text_data=ask_api.encoded(data))
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
        if self.game is not None:
            self.game.held = None
        await self.error("signed_out", "the credential of this socket changed; reconnect")
        await self.close(CLOSE_CODES["signed_out"])

    def take_token(self) -> float | None:
        """The connection's own limit (a bucket): None if the ask may go, else the wait."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.filled_at) * self.rate)
        self.filled_at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return None
        return (1 - self.tokens) / self.rate

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        self.heard_at = time.monotonic()
        game = self.game
        if game is None or game.held is None:
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
            data = ask_api.decoded(text_data)
        except ApiError as exc:
            await self.send_json(ask_api.refusal(exc))
            return
        wait = self.take_token()
        if wait is not None:
            await self.error("rate_limited", "too many asks on this socket", retry_after=max(1, math.ceil(wait)))
            return
        answer = await game.ask(data)
        await self.send_json(answer)
        if answer.get("error") in CLOSE_CODES:
            await self.close(CLOSE_CODES[answer["error"]])
