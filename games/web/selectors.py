"""Reads for casual games: the owner's current game, its seat-0 view and the tally."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q

from games.rules.events import Event

from .models import CasualGame, CasualOwner

# The browser session's anonymous owner (its id; the session is the browser's secret).
SESSION_OWNER = "casual_owner"


def casual_current(*, owner, game: str) -> CasualGame | None:
    """The owner's latest game of that kind that was not abandoned (it may be over)."""
    if owner is None:
        return None
    return (
        CasualGame.objects.filter(owner=owner, game=game)
        .exclude(status=CasualGame.Status.ABANDONED)
        .order_by("-id")
        .first()
    )


def owner_of_visitor(*, player, session) -> CasualOwner | None:
    """Whose casual games a page shows, read only: the player's owner, else the session's
    anonymous one (the API adopts a session's games on a player's first casual request)."""
    if player is not None:
        owner = CasualOwner.objects.filter(player=player).first()
        if owner is not None:
            return owner
    anonymous_id = session.get(SESSION_OWNER) if session is not None else None
    if anonymous_id is None:
        return None
    return CasualOwner.objects.filter(pk=anonymous_id, player__isnull=True).first()


def casual_tally(*, owner, game: str) -> dict[str, int]:
    if owner is None:
        return {"win": 0, "loss": 0, "draw": 0}
    counts = CasualGame.objects.filter(owner=owner, game=game, status=CasualGame.Status.OVER).aggregate(
        win=Count("id", filter=Q(result="win")),
        loss=Count("id", filter=Q(result="loss")),
        draw=Count("id", filter=Q(result="draw")),
    )
    return {k: counts[k] or 0 for k in ("win", "loss", "draw")}


def casual_view(game: CasualGame, eng, state, events: list[Event] | None = None) -> dict[str, Any]:
    """Seat 0's view of a game; ``move`` is the number of moves made, which the next move
    sends back (as in the daily API; ``moves`` is the same count, the page's move counter).
    ``number`` is 1 for the owner's first game of that kind (the first-game hint)."""
    return {
        "id": game.pk,
        "game": game.game,
        "status": game.status,
        "result": game.result or None,
        "move": len(game.moves),
        "moves": len(game.moves),
        "number": CasualGame.objects.filter(owner_id=game.owner_id, game=game.game, pk__lte=game.pk).count(),
        "view": eng.view(state, 0),
        "events": [eng.event_view(e, 0) for e in events or []],
        "tally": casual_tally(owner=game.owner_id, game=game.game),
    }
