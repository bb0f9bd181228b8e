"""Reads for casual games: the player's current game, its seat-0 view and the tally."""
from __future__ import annotations

from typing import Any

from django.db.models import Count, Q

from .models import CasualGame


def casual_current(*, player, game: str) -> CasualGame | None:
    """The player's latest game of that kind that was not abandoned (it may be over)."""
    return (CasualGame.objects.filter(player=player, game=game)
            .exclude(status=CasualGame.Status.ABANDONED).order_by("-id").first())


def casual_tally(*, player, game: str) -> dict[str, int]:
    counts = CasualGame.objects.filter(player=player, game=game, status=CasualGame.Status.OVER).aggregate(
        win=Count("id", filter=Q(result="win")),
        loss=Count("id", filter=Q(result="loss")),
        draw=Count("id", filter=Q(result="draw")),
    )
    return {k: counts[k] or 0 for k in ("win", "loss", "draw")}


def casual_view(game: CasualGame, eng, state, events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Seat 0's view of a game; ``moves`` is the count the next move must send as ``expected``.
    ``number`` is 1 for the player's first game of that kind (the first-game hint)."""
    return {
        "id": game.pk,
        "game": game.game,
        "status": game.status,
        "result": game.result or None,
        "moves": len(game.moves),
        "number": CasualGame.objects.filter(player_id=game.player_id, game=game.game, pk__lte=game.pk).count(),
        "view": eng.view(state, 0),
        "events": [eng.event_view(e, 0) for e in events or []],
        "tally": casual_tally(player=game.player_id, game=game.game),
    }
