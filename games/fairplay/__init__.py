"""Fair play: the clairvoyance detector, beside the rules and outside them (docs/fairplay.md).

``posterior`` keeps what the table tells the player about the opponent's hand; ``detector``
judges a game and a week against it; ``field`` judges each position of a deal once for
every game of it; ``players`` are the simulated players it is measured
on (honest panel, cheaters). Standard library only (tests/games/test_conformance.py).
"""

from .detector import (
    FLAG_THRESHOLD,
    GAME_LEVEL,
    HISTORY_LEVEL,
    HISTORY_THRESHOLD,
    SEGMENTS,
    THETAS,
    WEEK_LEVEL,
    WEEK_THRESHOLD,
    AskEvidence,
    GameAssessment,
    PlayerAssessment,
    Watcher,
    accumulate,
    figure,
    profile_of,
    replay_assessed,
)
from .field import Field, assess, judge, replay_judged

__all__ = [
    "FLAG_THRESHOLD",
    "GAME_LEVEL",
    "HISTORY_LEVEL",
    "HISTORY_THRESHOLD",
    "SEGMENTS",
    "THETAS",
    "WEEK_LEVEL",
    "WEEK_THRESHOLD",
    "AskEvidence",
    "GameAssessment",
    "PlayerAssessment",
    "Watcher",
    "accumulate",
    "assess",
    "figure",
    "profile_of",
    "replay_assessed",
    "Field",
    "judge",
    "replay_judged",
]
