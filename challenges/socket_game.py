"""The game a socket holds between asks (``Game``), and the socket's database: the usual
ask's compare-and-set on the event loop's own libpq connections (config/db.py ``runner``),
everything else on a thread of the loop's pool (``on_db``).

Only the write of an ask goes on the loop: the handshake, a lease of the player's limit, a
refusal's re-read, the credential's re-check and the verification's enqueue go to the
pool's threads through Django (``on_db``) (they happen once per game, once per few asks,
or after an error). On another database than Postgres every ask goes through Django, as
the HTTP ask does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from django.db import InterfaceError, OperationalError, close_old_connections
from django.utils import timezone

from config import db, metrics
from config.errors import ApiError
from games.rules.base import DomainError

from . import selectors, services
from .ask_api import UNAVAILABLE, RateLimited, ask, body, refusal
from .models import Attempt, Player

log = logging.getLogger(__name__)


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


class Game:
    """A player's game held by a socket between asks (``services.HeldGame``: read and
    replayed once), with its lease of the player's limit: an ask then neither reads the
    attempt nor replays it, and takes a Redis round trip only once per lease.

    ``ask`` runs on the event loop: the usual ask stored through the loop's own connections
    (``runner``: Postgres only); the rest on a thread of the pool (``on_db``, Django's
    connection): the first ask, an ask that takes a lease or re-checks the
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
        self.runner: db.Runner | None = None

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
        if held is None or self.runner is None or self.unsure or self.recheck_due():
            return await on_db(self.ask_here, data)
        if not self.leased or time.monotonic() >= self.leased_until:
            refused = await on_db(self.lease)
            if refused is not None:
                return refused
        self.leased -= 1
        try:
            move, rank = body(data)
        except ApiError as exc:
            return refusal(exc)
        try:
            attempt, state, events = await services.ask_stored(
                attempt_id=self.attempt_id, player=self.player, rank=rank, move=move, held=held, writer=self.runner
            )
        except DomainError as exc:
            return await on_db(self.refused, exc)
        except db.Error as exc:
            log.warning("database unavailable on a socket ask attempt=%s: %s", self.attempt_id, exc.__class__.__name__)
            return await on_db(self.refused, UNAVAILABLE)
        if attempt.status == Attempt.Status.VERIFYING:
            # Committed already. Should this process die right here, the attempt is
            # `verifying` without a message: the sweeper enqueues it.
            await on_db(services.enqueue_verification, attempt.pk)
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
