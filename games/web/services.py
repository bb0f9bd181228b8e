"""Writes for casual games; one mechanism for every game of the registry."""
from __future__ import annotations

import secrets
from typing import Any, Callable

from django.db import transaction
from rest_framework import status

from config.errors import ApiError
from games.base import GameError
from games.registry import engine

from .models import CasualGame


def game_state(game: CasualGame):
    """(engine, state, opening events) after the stored moves."""
    eng = engine(game.game)
    state = eng.new(seed=game.seed, **game.options)
    opening = list(getattr(state, "opening_events", []) or [])
    for move in game.moves:
        eng.apply(state, move)
    return eng, state, opening


def casual_create(*, player, game: str, options: dict[str, Any]) -> CasualGame:
    """Deal a new game. Options are checked by the engine (bad ones are a 400)."""
    seed = secrets.token_hex(16)
    try:
        engine(game).new(seed=seed, **options)
    except GameError as exc:
        raise ApiError(exc.code, exc.detail or exc.code) from None
    except TypeError as exc:
        raise ApiError("bad_options", str(exc)) from None
    return CasualGame.objects.create(player=player, game=game, seed=seed, options=options)


@transaction.atomic
def casual_move(*, game_id: int, player, move: Any, expected: int, outcome_side: Callable[[dict], str]):
    """Apply seat 0's move; ``expected`` = moves already made (stale -> 409).

    Returns (game, engine, state, events)."""
    game = CasualGame.objects.select_for_update().filter(pk=game_id, player=player).first()
    if game is None:
        raise ApiError("not_found", "no such game", status.HTTP_404_NOT_FOUND)
    if game.status != CasualGame.Status.PLAYING:
        raise ApiError("game_over", "this game is over", status.HTTP_409_CONFLICT)
    if expected != len(game.moves):
        raise ApiError("stale_move", f"move is {len(game.moves)}, not {expected}", status.HTTP_409_CONFLICT)
    eng, state, _ = game_state(game)
    try:
        events = eng.apply(state, move)
    except GameError as exc:
        raise ApiError(exc.code, exc.detail or exc.code) from None
    before = list(game.moves)
    changes: dict[str, Any] = {"moves": [*before, move]}
    if eng.is_over(state):
        changes.update(status=CasualGame.Status.OVER, result=outcome_side(eng.outcome(state)))
    if not CasualGame.objects.filter(pk=game.pk, status=CasualGame.Status.PLAYING, moves=before).update(**changes):
        raise ApiError("stale_move", "another request changed this game first", status.HTTP_409_CONFLICT)
    for name, value in changes.items():
        setattr(game, name, value)
    return game, eng, state, events
