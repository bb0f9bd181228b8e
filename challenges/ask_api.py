"""One ask, whichever transport brings it. The HTTP ask (api.py ``AskView``) and the game's
socket (consumers.py) are adapters over this pipeline, in this order:

1. the player, authenticated by the transport through challenges/auth.py (DRF's
   authenticators for HTTP, the socket's handshake: sockets.py);
2. the player's ask limit (settings.RATE_LIMITS["asks"]), one window for both transports:
   ``services.ask_lease``, one ask at a time over HTTP, a lease of a few for a socket;
   over it, ``rate_limited`` with the seconds to wait (``RateLimited``);
3. the body (``body``; a socket's message read by the API's JSON parser, ``decoded``): a JSON object of ``move`` and ``rank`` only, AskIn's fields;
4. the stored-game service: ``services.ask_stored``, the one write of an ask, through a
   writer (config/db.py): Django's connection (``services.attempt_ask``, which enqueues a
   finished game's verification once committed), or the socket's own libpq runner on its
   event loop (socket_game.py ``Game``, which holds the game between asks: no read, no
   replay);
5. the answer, the attempt's view after the ask (``selectors.attempt_view``), or a
   refusal ``{"error": code, "detail": text}`` with the API's codes (``refusal``); both
   written by the API's renderer (``encoded``).

Each ask's time and outcome (``ok`` or the refusal's code) is counted once, here, by
transport (``over_http``, socket_game.py ``Game.ask``; config/metrics.py).

Over HTTP a refusal's status and Retry-After come from its code (config/errors.py); a
socket sends the refusal itself, ``retry_after`` and, for ``stale_move``, the stored
game's ``view`` in it.
"""

from __future__ import annotations

import time
from typing import Any

from django.db import InterfaceError, OperationalError
from rest_framework.exceptions import ParseError

from config import metrics, parsers
from config.errors import ApiError
from config.inputs import Choice, Input, Whole, parsed
from config.renderers import compact
from games.rules.base import DomainError
from games.rules.cards import RANKS

from . import selectors, services
from .models import Player


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
    nesting, no NaN), or ApiError ``bad_json`` with the parser's words, as over HTTP."""
    try:
        return parsers.loads(text.encode())
    except ParseError as exc:
        raise ApiError("bad_json", str(exc.detail)) from None


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
    (config/metrics.py) as the socket's are (socket_game.py ``Game.ask``)."""
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
