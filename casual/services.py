"""Writes for casual games; one mechanism for every game of the registry."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from django.db import transaction

from challenges.play import one_move, play_stored
from games.rules.base import DomainError
from games.rules.events import Event
from games.rules.registry import engine
from games.rules.session import Session, play_to_end

from .models import CasualGame, CasualOwner


def owner_create() -> CasualOwner:
    """A new anonymous owner: a browser's first casual game."""
    return CasualOwner.objects.create()


def owner_of_player(player) -> CasualOwner:
    """The player's owner row, created the first time (two racing requests get one)."""
    owner, _ = CasualOwner.objects.get_or_create(player=player)
    return owner


@transaction.atomic
def owner_adopt(*, anonymous_id: int, player) -> CasualOwner:
    """A browser's casual games follow the player who signs in on it (at log-in:
    accounts.adopt_at_login): they move to the player's owner and the browser's anonymous
    owner goes. Of each kind, only the newest unfinished game stays unfinished (it is the
    one the page resumes)."""
    owner = owner_of_player(player)
    anonymous = CasualOwner.objects.select_for_update().filter(pk=anonymous_id, player__isnull=True).first()
    if anonymous is None or anonymous.pk == owner.pk:
        return owner
    CasualOwner.objects.select_for_update().filter(pk=owner.pk).first()
    CasualGame.objects.filter(owner=anonymous).update(owner=owner)
    anonymous.delete()
    playing = CasualGame.objects.filter(owner=owner, status=CasualGame.Status.PLAYING)
    for kind in set(playing.values_list("game", flat=True)):
        newest = playing.filter(game=kind).order_by("-id").values_list("id", flat=True)[0]  # kind is playing
        playing.filter(game=kind).exclude(pk=newest).update(status=CasualGame.Status.ABANDONED)
    return owner


@transaction.atomic
def casual_create(
    *,
    owner: CasualOwner,
    game: str,
    options: dict[str, Any] | None = None,
    next_options: Callable[[int], dict[str, Any]] | None = None,
) -> CasualGame:
    """Deal a new game and abandon the owner's unfinished games of that kind.

    ``next_options(n)`` gives the engine options of the owner's game number ``n``
    (0-based; e.g. Kitten's alternating first player); it is called under the owner's
    row lock so that two concurrent creations cannot both be game ``n``. Options are
    checked by the engine (bad ones are a 400)."""
    CasualOwner.objects.select_for_update().filter(pk=owner.pk).first()
    played = CasualGame.objects.filter(owner=owner, game=game)
    opts = dict(options or {})
    if next_options is not None:
        opts.update(next_options(played.count()))
    seed = secrets.token_hex(16)
    try:
        Session(engine(game), {"seed": seed, **opts}).new()
    except TypeError as exc:  # an option the engine does not take
        raise DomainError("bad_options", str(exc)) from None
    played.filter(status=CasualGame.Status.PLAYING).update(status=CasualGame.Status.ABANDONED)
    return CasualGame.objects.create(owner=owner, game=game, seed=seed, options=opts)


def casual_move(*, game: CasualGame, play: Any, move: int):
    """Apply seat 0's ``play`` (the stored-game service, challenges/play.py: ``move`` is
    the number of moves made, a stale one is refused and changes nothing).

    Returns (engine, state, events)."""
    return play_stored(game, move=move, play=one_move(play))


def _to_the_end(eng, state) -> tuple[list[Any], list[Event]]:
    return play_to_end(eng, state)  # the rules' one "See result" (games/rules/session.py)


def casual_play_to_end(*, game: CasualGame, move: int):
    """ "See result": make seat 0's moves until the game is over, for games where seat 0
    never has a choice (its only legal move is played, exactly as by hand). The moves
    are stored like hand-made ones, so the result is the one replay gives.

    Returns (engine, state, events of the last move). A game with decisions is
    a 400 ``has_decisions``."""
    return play_stored(game, move=move, play=_to_the_end)
