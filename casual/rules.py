"""What differs between casual games, in one table: the options a player may choose and
the options of a player's next game. Everything else is shared (an outcome reads the same
way in every game: ``Outcome.side``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.rules import gofish


def _no_choice(body: dict[str, Any]) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class CasualRules:
    # Player's game number (0-based) -> engine options decided by the site.
    next_options: Callable[[int], dict[str, Any]] | None = None
    # Request body -> engine options the player chose; the engine judges their values.
    chosen_options: Callable[[dict[str, Any]], dict[str, Any]] = _no_choice
    # Extra context of the game's page (e.g. the engine's defaults for the setup form).
    page_context: Callable[[], dict[str, Any]] = dict


def _kitten_options(number: int) -> dict[str, Any]:
    # docs/rules.md §3: the very first game the player flips first, the next Kitten, and so on.
    return {"first": "player" if number % 2 == 0 else "opponent"}


def _gofish_options(body: dict[str, Any]) -> dict[str, Any]:
    """``players`` (absent: 2) and ``hand_size`` (absent or null: the engine's default)."""
    options = {"players": body.get("players", 2)}
    if body.get("hand_size") is not None:
        options["hand_size"] = body["hand_size"]
    return options


def _gofish_page() -> dict[str, Any]:
    return {
        "setup": {
            "min_players": gofish.MIN_PLAYERS,
            "max_players": gofish.MAX_PLAYERS,
            "hand_sizes": {n: gofish.default_hand_size(n) for n in range(gofish.MIN_PLAYERS, gofish.MAX_PLAYERS + 1)},
        }
    }


CASUAL_RULES: dict[str, CasualRules] = {
    "kitten": CasualRules(next_options=_kitten_options),
    "gofish": CasualRules(chosen_options=_gofish_options, page_context=_gofish_page),
}
