"""What differs between casual games, in one table: the options of a player's next
game and how an outcome reads from seat 0's side. Everything else is shared."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class CasualRules:
    next_options: Callable[[int], dict[str, Any]]  # player's game number (0-based) -> engine options
    outcome_side: Callable[[dict[str, Any]], str]  # outcome -> "win" | "loss" | "draw"


def _kitten_options(number: int) -> dict[str, Any]:
    # RULES.md §3: the very first game the player flips first, the next Kitten, and so on.
    return {"first": "player" if number % 2 == 0 else "opponent"}


def _winner_side(outcome: dict[str, Any]) -> str:
    return {"player": "win", "opponent": "loss"}.get(outcome["winner"], "draw")


CASUAL_RULES: dict[str, CasualRules] = {
    "kitten": CasualRules(next_options=_kitten_options, outcome_side=_winner_side),
}
