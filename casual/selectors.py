"""Reads for casual games: whose games a visitor's are, a game with its place among its
owner's games (its number, the tally), and its seat-0 view."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from challenges.play import game_view
from games.rules.events import Event

from .models import CasualGame, CasualOwner

# The browser session's anonymous owner (its id; the session is the browser's secret).
SESSION_OWNER = "casual_owner"
TALLY = ("win", "loss", "draw")


def _count(rows: QuerySet) -> Coalesce:
    return Coalesce(Subquery(rows.order_by().values("owner_id").annotate(n=Count("id")).values("n")), 0)


def _with_standing(rows: QuerySet) -> QuerySet:
    """Each game with its ``number`` (1 for the owner's first game of its kind) and the
    owner's tally of that kind, read by the game's own query: a move's answer asks no
    query of its own for them."""
    kind = CasualGame.objects.filter(owner_id=OuterRef("owner_id"), game=OuterRef("game"))
    over = kind.filter(status=CasualGame.Status.OVER)
    return rows.annotate(
        number=_count(kind.filter(pk__lte=OuterRef("pk"))),
        **{f"tally_{side}": _count(over.filter(result=side)) for side in TALLY},
    )


def _standing(game: CasualGame | None) -> CasualGame | None:
    if game is not None:
        game.tally = {side: getattr(game, f"tally_{side}") for side in TALLY}
        game.tallied_status = game.status  # the tally counts this game only if it was over
    return game


def casual_current(*, owner, game: str) -> CasualGame | None:
    """The owner's latest game of that kind that was not abandoned (it may be over)."""
    if owner is None:
        return None
    return _standing(
        _with_standing(CasualGame.objects.filter(owner=owner, game=game))
        .exclude(status=CasualGame.Status.ABANDONED)
        .order_by("-id")
        .first()
    )


def casual_game(*, game_id: int) -> CasualGame | None:
    """A game with its number and tally (a new one, as its creation's answer shows it)."""
    return _standing(_with_standing(CasualGame.objects.filter(pk=game_id)).first())


def visitor_game(*, player, anonymous_id: int | None, game: str, game_id: int) -> CasualGame | None:
    """One of the visitor's games, with its number and tally, in one query: the player's,
    else the browser session's anonymous owner's (None: not theirs, or no such game)."""
    if player is not None:
        rows = CasualGame.objects.filter(owner__player=player)
    elif anonymous_id is not None:
        rows = CasualGame.objects.filter(owner_id=anonymous_id, owner__player__isnull=True)
    else:
        return None
    return _standing(_with_standing(rows.filter(pk=game_id, game=game)).first())


def player_owner(*, player) -> CasualOwner | None:
    # A query, not ``player.casual_owner``: a player object may be shared by requests
    # (challenges/auth.py) and would keep the answer it cached.
    return CasualOwner.objects.filter(player=player).first()


def anonymous_owner(*, owner_id: int) -> CasualOwner | None:
    """A browser session's anonymous owner (None once its games went to a player)."""
    return CasualOwner.objects.filter(pk=owner_id, player__isnull=True).first()


def owner_of_visitor(*, player, session) -> CasualOwner | None:
    """Whose casual games a page shows, read only: the player's owner, else the session's
    anonymous one (its games move to the player at log-in: accounts.adopt_at_login)."""
    if player is not None:
        owner = player_owner(player=player)
        if owner is not None:
            return owner
    anonymous_id = session.get(SESSION_OWNER) if session is not None else None
    return anonymous_owner(owner_id=anonymous_id) if anonymous_id is not None else None


def casual_tally(*, owner, game: str) -> dict[str, int]:
    if owner is None:
        return dict.fromkeys(TALLY, 0)
    counts = CasualGame.objects.filter(owner=owner, game=game, status=CasualGame.Status.OVER).aggregate(
        **{side: Count("id", filter=Q(result=side)) for side in TALLY}
    )
    return {side: counts[side] or 0 for side in TALLY}


def casual_view(game: CasualGame, state: Any = None, events: list[Event] | None = None) -> dict[str, Any]:
    """Seat 0's view of a game read with its standing (``visitor_game``, ``casual_current``,
    ``casual_game``): the stored game's view (challenges/play.py ``GameView``) and the
    casual game's own fields: ``result`` (win, loss or draw once over), ``number`` (1 for the
    owner's first game of that kind: the first-game hint) and the owner's ``tally`` of that
    kind. ``state``: the state after its moves if the caller holds it (else replayed)."""
    eng = game.engine()
    if state is None:
        state = game.state()
    tally = dict(game.tally)
    if game.status == CasualGame.Status.OVER and game.tallied_status != CasualGame.Status.OVER:
        tally[game.result] += 1  # the move just answered ended it, after the tally was read
    return {
        **game_view(game, eng, state, events),
        "result": game.result or None,
        "number": game.number,
        "tally": tally,
    }


def new_game_view(game: CasualGame) -> dict[str, Any]:
    """A new game's view, with what its deal played before seat 0's first decision (every
    engine keeps those events: Kitten's opening flip, Go Fish's simulated seats)."""
    state = game.state()
    return casual_view(game, state, list(state.opening_events))
