"""One deal judged once for its field (games/fairplay/field.py): every game gets, to the
bit, the figures it gets judged alone from the deal, whatever was judged before it and
whatever the field had to drop. Pure: no Django, no database."""

from __future__ import annotations

import random

import pytest

from games import fairplay
from games.fairplay import detector, field, players
from games.rules.base import ReplayError
from games.rules.cards import shuffled_deck
from games.rules.peche import ENGINE

SEED = "field-2026-12-07"


def _lines(seed: str, n: int) -> list[list[str]]:
    """A small field: the honest panel's habits in turn, plus players who ask at random."""
    rng = random.Random(seed)
    lines = players.field(shuffled_deck(seed), n, rng)
    for _ in range(n // 4):
        state, moves = ENGINE.new(seed=seed), []
        while not state.over:
            moves.append(rng.choice(ENGINE.legal_moves(state)))
            ENGINE.apply(state, moves[-1])
        lines.append(moves)
    return lines


def _figures(assessed: fairplay.GameAssessment) -> tuple:
    return (assessed.profile, assessed.evidence(), [a.as_dict() for a in assessed.asks], assessed.outcomes)


@pytest.mark.parametrize("snapshot_entries", [field.SNAPSHOT_ENTRIES, 50])
def test_a_game_judged_in_the_field_gets_the_figures_it_gets_alone(snapshot_entries):
    """Thirty games through one field, then each alone from the deal: equal to the bit —
    with room for every snapshot, and with almost none (each game then taken up from
    far back, positions played again)."""
    lines = _lines(SEED, 24)
    shared = field.Field(SEED, snapshot_entries=snapshot_entries)
    in_field = [_figures(shared.assess(moves)) for moves in lines]
    alone = [_figures(detector.assess(SEED, moves)) for moves in lines]
    assert in_field == alone
    assert any(a[1]["suspicion"] for a in alone), "the games say something"
    # the field shared positions: fewer asks judged than asked, each position once
    positions = {tuple(moves[: k + 1]) for moves in lines for k in range(len(moves))}
    assert shared.judged == len(positions) < sum(map(len, lines))


def test_a_field_that_starts_again_keeps_its_figures(monkeypatch):
    """Past its node budget the tree starts again from the deal: nothing but speed lost."""
    lines = _lines(SEED, 8)
    monkeypatch.setattr(field, "MAX_NODES", 40)
    shared = field.Field(SEED)
    for moves in lines + lines[::-1]:
        assert _figures(shared.assess(moves)) == _figures(detector.assess(SEED, moves))
        assert shared.nodes <= 40 + len(moves)


def test_verification_judges_through_the_field_and_refuses_as_the_rules_do():
    """``replay_judged``: the rules' state and the field's figure; a line the rules refuse
    raises their ReplayError, and nothing of it enters the field."""
    moves = _lines(SEED, 1)[0]
    state, assessed = fairplay.replay_judged(SEED, moves)
    assert state.over and _figures(assessed) == _figures(detector.assess(SEED, moves))
    with pytest.raises(ReplayError) as refused:
        fairplay.replay_judged(SEED, [*moves, "A"])
    assert (refused.value.code, refused.value.index) == ("extra_moves", len(moves))
    with pytest.raises(ReplayError):
        fairplay.replay_judged(SEED, moves[:-1])  # unfinished
