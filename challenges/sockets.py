"""Who may open a game socket and keep it open (challenges/consumers.py): the handshake's
checks, the count of a player's open sockets, and the log-out closes of this process's
sockets (``Closes``).

The handshake authenticates exactly as the HTTP API does (challenges/auth.py,
REST_FRAMEWORK's order): ``Authorization: Token …`` first, else the browser's session
cookie, read through the same session engine and checked by Django (``get_user``: the
password hash the session was made with). The Origin is checked as Django's CSRF check
reads it: the page's own host (one of ALLOWED_HOSTS) or one of CSRF_TRUSTED_ORIGINS. A
browser always sends an Origin with a socket, and only a browser sends cookies by
itself: a handshake without an Origin may authenticate by token only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections import Counter
from importlib import import_module
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

from channels.layers import DEFAULT_CHANNEL_LAYER, InMemoryChannelLayer, channel_layers, get_channel_layer
from django.conf import settings
from django.contrib.auth import get_user
from django.http import parse_cookie
from django.http.request import split_domain_port, validate_host

from . import services
from .auth import token_player
from .models import Player

log = logging.getLogger("challenges.consumers")  # the name operators filter on

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


def headers_of(scope: dict[str, Any]) -> dict[bytes, bytes]:
    return {name.lower(): value for name, value in scope.get("headers", [])}


def host_allowed(scope: dict[str, Any]) -> bool:
    """The Host header names one of ALLOWED_HOSTS, as Django requires of every request."""
    host = headers_of(scope).get(b"host", b"").decode("latin-1")
    domain, _ = split_domain_port(host)
    return bool(domain) and validate_host(domain, settings.ALLOWED_HOSTS)


def origin_of(scope: dict[str, Any]) -> str | None:
    origin = headers_of(scope).get(b"origin")
    return origin.decode("latin-1") if origin is not None else None


def origin_allowed(scope: dict[str, Any], origin: str) -> bool:
    """The page's own origin (same host and port as the handshake's Host), or one of
    CSRF_TRUSTED_ORIGINS (exact, or ``https://*.example.com``), as Django's CSRF check."""
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    for trusted in settings.CSRF_TRUSTED_ORIGINS:
        scheme, _, host = trusted.partition("://")
        if host.startswith("*.") and scheme == parts.scheme and parts.netloc.endswith(host[1:]):
            return True
    host = headers_of(scope).get(b"host", b"").decode("latin-1")
    return parts.netloc.lower() == host.lower() and host_allowed(scope)


def credential_of(scope: dict[str, Any]) -> str:
    """The credential the handshake presents, as sent (the Authorization header, else the
    session cookie), or "": a key to count sockets by before the database is asked whose
    it is. Nothing is granted on it."""
    headers = headers_of(scope)
    authorization = headers.get(b"authorization")
    if authorization:
        return "authorization:" + authorization.decode("latin-1")
    key = parse_cookie(headers.get(b"cookie", b"").decode("latin-1")).get(settings.SESSION_COOKIE_NAME)
    return f"session:{key}" if key else ""


def signed_in(scope: dict[str, Any]) -> tuple[Player | None, str]:
    """The handshake's credential read again: (its player, or None and the refusal's code)."""
    player, _, refused = scope_player(scope)
    return player, refused


def scope_player(scope: dict[str, Any]) -> tuple[Player | None, str, str]:
    """(player, how, refusal): ``how`` is "token" or "session"; without a player, the
    refusal's code (``bad_token``, ``not_authenticated``) as the HTTP API answers it."""
    headers = headers_of(scope)
    player, refused = token_player(headers.get(b"authorization", b""))
    if player is not None or refused:
        return player, "token", refused
    cookies = parse_cookie(headers.get(b"cookie", b"").decode("latin-1"))
    key = cookies.get(settings.SESSION_COOKIE_NAME)
    if not key:
        return None, "session", "not_authenticated"
    session = import_module(settings.SESSION_ENGINE).SessionStore(key)
    user = get_user(SimpleNamespace(session=session))  # type: ignore[arg-type]
    if not user.is_authenticated:
        return None, "session", "not_authenticated"
    try:
        return user.player, "session", ""
    except Player.DoesNotExist:
        return None, "session", "not_authenticated"


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
        self.sockets: dict[int, set[Any]] = {}
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

    def add(self, socket: Any) -> None:
        self.sockets.setdefault(socket.player.pk, set()).add(socket)

    def discard(self, socket: Any) -> None:
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
