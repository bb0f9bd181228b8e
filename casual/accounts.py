"""What the casual app holds about a named player, for the account's export and deletion
(challenges/accounts.py reaches these through challenges/hooks.py: challenges sits below
this app and never imports it), and the browser's games that follow a player who signs in."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth.signals import user_logged_in

from challenges import hooks

from . import services
from .models import CasualGame, CasualOwner
from .selectors import SESSION_OWNER


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


def adopt_at_login(sender, request, user, **kwargs) -> None:
    """Django's ``user_logged_in`` (connect): the casual games the browser played before
    signing in (its session's anonymous owner) become the player's. Here rather than on a
    casual request, so that no read writes."""
    session = getattr(request, "session", None)
    player = getattr(user, "player", None)
    if session is None or player is None or SESSION_OWNER not in session:
        return  # no games before the log-in, or a user without a player (staff)
    services.owner_adopt(anonymous_id=session.pop(SESSION_OWNER), player=player)


def connect() -> None:
    """Plug the casual games into the account (CasualConfig.ready): its export and deletion
    (challenges/accounts.py) reach them through challenges/hooks.py, looked up at each call
    (a test's monkeypatch of a function here is what runs), and a browser's casual games
    follow the player who signs in on it."""
    hooks.provide(
        player_casual_games=lambda player: player_casual_games(player),
        player_casual_delete=lambda player: player_casual_delete(player),
    )
    user_logged_in.connect(adopt_at_login, dispatch_uid="casual-adopt-at-login")
