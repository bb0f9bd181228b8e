"""Lessons from a finished game: the asks where what the table showed offered better.

Only public information counts (what the player could know when asking: the table's chances, games/fairplay/posterior.py
computes it), so a lesson never says "the opponent held a 7" — it says a 7 was a sure
pair, or that a rank could not be there, or that a likelier rank was in hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import detector as fairplay

SURE = 0.999  # chances are floats: "certain" and "impossible" up to rounding
NONE = 0.001
WEAK_GAP = 0.25  # a likelier rank by this much: asking the other one mostly told the opponent


@dataclass(frozen=True, slots=True)
class Lesson:
    index: int  # 0-based ask
    kind: str  # "sure_pair" | "impossible" | "weak"
    asked: str
    asked_chance: float
    better: str  # the rank public information favoured
    better_chance: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kind": self.kind,
            "asked": self.asked,
            "asked_chance": self.asked_chance,
            "better": self.better,
            "better_chance": self.better_chance,
        }


def lessons(seed: str, moves: list[str]) -> list[Lesson]:
    found = []
    for ask in fairplay.assess(seed, moves).asks:
        best = max(range(len(ask.ranks)), key=lambda i: ask.chances[i])
        better, best_chance = ask.ranks[best], ask.chances[best]
        if better == ask.rank or best_chance - ask.public_chance < NONE:
            continue
        if best_chance >= SURE:
            kind = "sure_pair"
        elif ask.public_chance <= NONE:
            kind = "impossible"
        elif best_chance - ask.public_chance >= WEAK_GAP:
            kind = "weak"
        else:
            continue
        found.append(Lesson(ask.index, kind, ask.rank, ask.public_chance, better, best_chance))
    return found
