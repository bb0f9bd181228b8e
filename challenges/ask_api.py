"""One ask, whichever transport brings it. The HTTP ask (api.py ``AskView``) and the game's
socket (consumers.py) are adapters over this pipeline, in this order:

1. the player, authenticated by the transport through challenges/auth.py (DRF's
   authenticators for HTTP, the socket's handshake: sockets.py);
2. the player's ask limit (settings.RATE_LIMITS["asks"]), one window for both transports:
   ``services.ask_lease``, one ask at a time over HTTP, a lease of a few for a socket;
   over it, ``rate_limited`` with the seconds to wait (``RateLimited``);
3. the body (``body``; a socket's message read by the API's JSON parser, ``decoded``): a JSON object of ``move`` and ``rank`` only, AskIn's fields;
4. the stored-game service: ``services.attempt_ask`` (the socket's held game skips the
   read and the replay; on the socket's event loop the same compare-and-set runs on its
   own connection, socket_writes.py, and the finished game's verification is enqueued here);
5. the answer, the attempt's view after the ask (``selectors.attempt_view``), or a
   refusal ``{"error": code, "detail": text}`` with the API's codes (``refusal``); both
   written by the API's renderer (``encoded``).

Each ask's time and outcome (``ok`` or the refusal's code) is counted once, here, by
transport (``over_http``, ``Game.ask``; config/metrics.py).

Over HTTP a refusal's status and Retry-After come from its code (config/errors.py); a
socket sends the refusal itself, ``retry_after`` and, for ``stale_move``, the stored
game's ``view`` in it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from django.db import InterfaceError, OperationalError
from django.utils import timezone
from rest_framework.exceptions import ParseError

from config import metrics, parsers
from config.errors import ApiError
from config.inputs import Choice, Input, Whole, parsed
from config.renderers import compact
from games.rules.base import DomainError
from games.rules.cards import RANKS

from . import selectors, services, socket_writes
from .models import Attempt, Player

log = logging.getLogger(__name__)


class AskIn(Input):
    """One ask: a rank, and the number of asks made so far."""

    # A string that is no rank is the engine's `bad_move` too: the same answer whoever
    # sees it first.
    rank = Choice(RANKS, outside="bad_move", help_text="A rank in the player's hand.")
    move = Whole(help_text="The number of asks already made (the view's `move`).")


FIELDS = frozenset(AskIn._declared_fields)


class RateLimited(DomainError):
    """Over the player's ask limit: ``retry_after`` seconds until the window closes."""

    def __init__(self, retry_after: float) -> None:
        super().__init__("rate_limited", "too many asks")
        self.retry_after = max(1, int(retry_after))


UNAVAILABLE = DomainError("unavailable", "the database is unavailable; try again shortly")


def decoded(text: str) -> Any:
    """A socket message's JSON, read by the API's parser (config/parsers.py: bounded
    nesting, no NaN), or ApiError ``bad_json``."""
    try:
        return parsers.loads(text.encode())
    except ParseError:
        raise ApiError("bad_json", "the message is not JSON") from None


def body(data: Any) -> tuple[int, str]:
    """(move, rank) of an ask's body, or its refusal (ApiError: ``bad_request``,
    ``unknown_field``, ``missing_field``, ``wrong_type``, ``bad_move``)."""
    if isinstance(data, dict) and not FIELDS.issuperset(data):
        unknown = sorted(str(name) for name in set(data) - FIELDS)[0]
        raise ApiError("unknown_field", f"unknown field '{unknown}': send only move and rank")
    checked = parsed(AskIn, _Body(data))
    return checked["move"], checked["rank"]


class _Body:
    """What ``parsed`` reads a body from (a request's ``data``)."""

    __slots__ = ("data",)

    def __init__(self, data: Any) -> None:
        self.data = data


def refusal(exc: DomainError | ApiError) -> dict[str, Any]:
    """A refusal as the socket sends it (the HTTP API's body, config/errors.py, with
    ``retry_after`` where the HTTP answer has a Retry-After header)."""
    if isinstance(exc, ApiError):
        return {"error": exc.error_code, "detail": str(exc.detail)}
    found: dict[str, Any] = {"error": exc.code, "detail": exc.detail or exc.code}
    if isinstance(exc, RateLimited):
        found["retry_after"] = exc.retry_after
    return found


def encoded(data: dict[str, Any]) -> str:
    """An answer's JSON, as the HTTP API renders it (config/renderers.py)."""
    return compact(data).decode()


def take(player: Player) -> None:
    """One ask of the player's limit (the HTTP ask's), or RateLimited."""
    granted, seconds = services.ask_lease(player=player, most=1)
    if not granted:
        raise RateLimited(seconds)


def over_http(*, player: Player, attempt_id: int, data: Any) -> dict[str, Any]:
    """The HTTP ask: one ask of the player's limit, then ``ask``; its time and outcome counted
    (config/metrics.py) as the socket's are (``Game.ask``)."""
    started, outcome = time.perf_counter(), "error"
    try:
        take(player)
        found = ask(player=player, attempt_id=attempt_id, data=data)
        outcome = "ok"
        return found
    except DomainError as exc:
        outcome = exc.code
        raise
    except ApiError as exc:
        outcome = exc.error_code
        raise
    except (OperationalError, InterfaceError):
        outcome = UNAVAILABLE.code
        raise
    finally:
        metrics.ask_done("http", outcome, started)


def ask(*, player: Player, attempt_id: int, data: Any, held: services.HeldGame | None = None) -> dict[str, Any]:
    """The body checked, the ask applied and stored, the attempt's view after it (the limit
    is the caller's: ``take``, or a socket's lease)."""
    move, rank = body(data)
    attempt, state, events = services.attempt_ask(attempt_id=attempt_id, player=player, rank=rank, move=move, held=held)
    return selectors.attempt_view(attempt, state, events=events)


class Game:
    """A player's game held by a socket between asks (``services.HeldGame``: read and
    replayed once), with its lease of the player's limit: an ask then neither reads the
    attempt nor replays it, and takes a Redis round trip only once per lease.

    ``ask`` runs on the event loop: the usual ask stored through the loop's own connection
    (``writes``: Postgres only); the rest on a thread of the pool (``socket_writes.on_db``,
    Django's connection): the first ask, an ask that takes a lease or re-checks the
    credential, every ask after a refusal (the game read again first) or on another
    database. ``signed_in`` reads the socket's credential again (the player, or None and
    the refusal's code), every ``recheck_seconds``: a close the channel layer could not
    carry (``services.player_sockets_close``) still ends the socket."""

    def __init__(
        self,
        player: Player,
        attempt_id: int,
        *,
        signed_in: Callable[[], tuple[Player | None, str]],
        recheck_seconds: float,
    ) -> None:
        self.player, self.attempt_id = player, attempt_id
        self.signed_in, self.recheck_seconds = signed_in, recheck_seconds
        self.checked_at = time.monotonic()
        self.held: services.HeldGame | None = None
        self.unsure = False  # the held game may be ahead of the stored one: read it before the next ask
        self.leased, self.leased_until = 0, 0.0  # asks left of the lease, until this time.monotonic()
        self.writes: socket_writes.Writes | None = None

    def open(self) -> int:
        """The game read and replayed (``not_found`` for another player's); its move."""
        self.held = services.attempt_held(attempt_id=self.attempt_id, player=self.player)
        return len(self.held.attempt.moves)

    async def ask(self, data: Any) -> dict[str, Any]:
        """One ask: the attempt's view after it, or a refusal; its time and outcome counted
        (config/metrics.py) as the HTTP ask's are (``over_http``)."""
        started = time.perf_counter()
        found = await self.asked(data)
        metrics.ask_done("socket", found.get("error", "ok"), started)
        return found

    async def asked(self, data: Any) -> dict[str, Any]:
        held = self.held
        if held is None or self.writes is None or self.unsure or self.recheck_due():
            return await socket_writes.on_db(self.ask_here, data)
        if not self.leased or time.monotonic() >= self.leased_until:
            refused = await socket_writes.on_db(self.lease)
            if refused is not None:
                return refused
        self.leased -= 1
        try:
            move, rank = body(data)
        except ApiError as exc:
            return refusal(exc)
        attempt = held.attempt
        try:
            _, write = services.ask_write(attempt_id=attempt.pk, player=self.player, rank=rank, move=move, held=held)
            rows = await self.writes.rows(write.statement, write.params)
            _, state, events = services.attempt_asked(attempt, write, rows)
        except DomainError as exc:
            return await socket_writes.on_db(self.refused, exc)
        except socket_writes.Error as exc:
            log.warning("database unavailable on a socket ask attempt=%s: %s", attempt.pk, exc.__class__.__name__)
            return await socket_writes.on_db(self.refused, UNAVAILABLE)
        if attempt.status == Attempt.Status.VERIFYING:
            # Committed already. Should this process die right here, the attempt is
            # `verifying` without a message: the sweeper enqueues it.
            await socket_writes.on_db(services.enqueue_verification, attempt.pk)
        return selectors.attempt_view(attempt, state, events=events)

    def ask_here(self, data: Any) -> dict[str, Any]:
        """An ask on a thread of the pool, through Django's connection."""
        try:
            if self.unsure:
                self.open()
                self.unsure = False
            if self.recheck_due():
                again, refused = self.signed_in()
                if again is None or again.pk != self.player.pk:
                    self.held = None
                    return {"error": refused or "not_authenticated", "detail": "this socket's credential has ended"}
                self.checked_at = time.monotonic()
            if not self.leased or time.monotonic() >= self.leased_until:
                found = self.lease()
                if found is not None:
                    return found
            self.leased -= 1
            try:
                return ask(player=self.player, attempt_id=self.attempt_id, data=data, held=self.held)
            except ApiError as exc:
                return refusal(exc)
        except DomainError as exc:
            return self.refused(exc)
        except (OperationalError, InterfaceError):
            log.warning("database unavailable on a socket ask attempt=%s", self.attempt_id)
            return self.refused(UNAVAILABLE)

    def recheck_due(self) -> bool:
        return time.monotonic() - self.checked_at > self.recheck_seconds

    def lease(self) -> dict[str, Any] | None:
        """Asks of the player's limit, a few at a time (``services.ask_lease``); None if
        granted, else the refusal."""
        self.leased, seconds = services.ask_lease(player=self.player)
        if not self.leased:
            return refusal(RateLimited(seconds))
        self.leased_until = time.monotonic() + seconds
        return None

    def refused(self, exc: DomainError) -> dict[str, Any]:
        """After a refused ask (on a thread of the pool): the held state may have taken the
        ask before its write lost, so the game is read again (now, or at the next ask if
        the database cannot answer now). ``stale_move`` carries the stored game's view."""
        found = refusal(exc)
        self.unsure = True
        try:
            self.open()
            self.unsure = False
        except DomainError as gone:
            self.held = None
            return refusal(gone)
        except (OperationalError, InterfaceError):
            return found
        held = self.held
        assert held is not None
        if found["error"] == "stale_move":
            try:
                # The write found the day closed (Attempt.write_guard), not another ask.
                held.attempt.refuse_move(timezone.now())
            except DomainError as closed:
                return refusal(closed)
            found["view"] = selectors.attempt_view(held.attempt, held.state)
        return found
