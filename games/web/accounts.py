"""What the casual app holds about a named player, for the account's export and deletion
(challenges/accounts.py reaches these through challenges/hooks.py: challenges sits below
this app and never imports it)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from .models import CasualGame, CasualOwner


def _when(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def player_casual_games(player: Any) -> list[dict[str, Any]]:
    return [
        {
            "id": game.pk,
            "game": game.game,
            "status": game.status,
            "result": game.result or None,
            "options": game.options,
            "moves": list(game.moves),
            # A game still being played keeps its deal to itself (its next cards).
            "seed": game.seed if game.status != CasualGame.Status.PLAYING else None,
            "created_at": _when(game.created_at),
            "updated_at": _when(game.updated_at),
        }
        for game in CasualGame.objects.filter(owner__player=player).order_by("id")
    ]


def player_casual_delete(player: Any) -> None:
    CasualOwner.objects.filter(player=player).delete()  # its games go with it (CASCADE)
