"""What challenges needs from the apps built on it, without importing them.

Dependencies run one way (games <- challenges <- leaderboard <- frontend, and the casual
app casual beside leaderboard: it stores its games with challenges.play), yet some of
challenges' work ends in their data:
- leaderboard's: verifying an attempt writes its result, an attempt's view shows its rank,
  and the sweeper also catches the rank index up;
- the casual app's: a player's export lists their casual games, and deleting the account
  deletes them;
- the leagues': the export lists the player's leagues, and deleting the account removes
  their memberships (an owned league passes to its oldest member, or goes).
Each app plugs its functions in here from its AppConfig.ready(); calling a hook nobody
provided is a configuration error, never a silent no-op (a verified attempt without its
result would be lost, a deleted account would keep its casual games).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import ImproperlyConfigured

# Each hook and the app that provides it (named in the error when it is missing).
PROVIDERS = {
    "record_results": "leaderboard",
    "result_rank": "leaderboard",
    "after_sweep": "leaderboard",
    "player_casual_games": "casual",
    "player_casual_delete": "casual",
    "player_leagues": "leagues",
    "player_leagues_delete": "leagues",
}
NAMES = tuple(PROVIDERS)
_provided: dict[str, Callable[..., Any]] = {}


def provide(**functions: Callable[..., Any]) -> None:
    unknown = set(functions) - set(NAMES)
    if unknown:
        raise ImproperlyConfigured(f"unknown challenges hooks: {sorted(unknown)}")
    _provided.update(functions)


def _hook(name: str) -> Callable[..., Any]:
    try:
        return _provided[name]
    except KeyError:
        raise ImproperlyConfigured(
            f"no installed app provides challenges.hooks.{name} ({PROVIDERS[name]} does)"
        ) from None


def record_results(*, verified: list[tuple]) -> list[Any]:
    """Write each verified attempt's result from ``(attempt, outcome, assessment or None)``;
    the caller holds the attempts' row locks inside its transaction."""
    return _hook("record_results")(verified=verified)


def result_rank(result: Any) -> int | None:
    """A result's rank on its day (None when it does not rank)."""
    return _hook("result_rank")(result)


def after_sweep() -> None:
    """The sweeper's second half: what the apps above must catch up on after it."""
    _hook("after_sweep")()


def player_casual_games(player: Any) -> list[dict[str, Any]]:
    """The player's casual games as their export lists them (JSON-ready dicts, oldest first)."""
    return _hook("player_casual_games")(player)


def player_casual_delete(player: Any) -> None:
    """Delete the player's casual games; the caller's transaction deletes the account."""
    _hook("player_casual_delete")(player)


def player_leagues(player: Any) -> list[dict[str, Any]]:
    """The player's leagues as their export lists them (JSON-ready dicts)."""
    return _hook("player_leagues")(player)


def player_leagues_delete(player: Any) -> None:
    """Remove the player's memberships (an owned league passes on, or goes when empty);
    the caller's transaction deletes the account."""
    _hook("player_leagues_delete")(player)
