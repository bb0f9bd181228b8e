"""Clairvoyance detector (games/rules/fairplay.py, docs/fairplay.md §3). Pure: no Django, no database."""

from __future__ import annotations

import random

import pytest

from bench import fairplay as bench
from games.rules import fairplay
from games.rules.base import ReplayError
from games.rules.cards import shuffled_deck
from games.rules.peche import ENGINE

SEEDS = [f"watched-{i}" for i in range(150)]


def _same_state(watched, engine) -> None:
    a, b = watched.state, engine
    assert [list(h.items()) for h in a.hands] == [list(h.items()) for h in b.hands]
    assert a.pairs == b.pairs and a.pairs_by_rank == b.pairs_by_rank
    assert (a.lake_next, a.turn, a.asks, a.over) == (b.lake_next, b.turn, b.asks, b.over)
    assert a.history == b.history
    assert a.knowledge.snapshot() == b.knowledge.snapshot()


@pytest.mark.parametrize("style", ["random", "oldest", "newest"])
def test_a_watched_game_is_the_engines_game(style):
    """The watcher only looks: a game played with it (the Pêche loop with an observer) is,
    ask after ask, the game the engine plays alone, and the replay of its asks ends alike."""
    for seed in SEEDS:
        rng = random.Random(f"{seed}/{style}")
        deck = shuffled_deck(seed)
        game = fairplay.WatchedGame(list(deck))
        engine = ENGINE.new(deck=list(deck))
        _same_state(game, engine)
        moves = []
        while not game.over:
            ranks = game.ranks()
            assert list(ranks) == ENGINE.legal_moves(engine)
            rank = rng.choice(ranks) if style == "random" else ranks[0] if style == "oldest" else ranks[-1]
            moves.append(rank)
            game.ask(rank)
            ENGINE.apply(engine, rank)
            _same_state(game, engine)
        assert engine.over
        replayed = ENGINE.replay({"deck": list(deck)}, moves)
        assert ENGINE.outcome(replayed) == ENGINE.outcome(engine)
        # One record per ask, taken before it was played.
        assert [o.rank for o in game.observed] == moves
        assert [o.index for o in game.observed] == list(range(len(moves)))


def test_the_watcher_sees_the_opponents_choices_before_its_asks():
    """What the opponent's choices reveal is learnt before its ask changes the state: after
    an ask of a rank outside what it knows of the player, the view marks as absent every
    rank the opponent would have preferred (peche.opponent_choice's rule, in public)."""
    deck = shuffled_deck("watched-choice")
    game = fairplay.WatchedGame(list(deck))
    inferred = 0
    while not game.over:
        before = dict(game.knowledge.inferred)
        game.ask(game.ranks()[0])
        inferred += len(set(game.knowledge.inferred) - set(game.knowledge.absent) - set(before))
    assert inferred > 0


def test_the_view_never_depends_on_the_opponents_hidden_cards():
    """Two deals that differ only in which opponent card is where give the same chances
    as long as the public facts agree: here, the chances at the first ask depend only on
    the player's own cards (nothing else has happened)."""
    deck = shuffled_deck("view-0")
    swapped = list(deck)
    swapped[1], swapped[3] = swapped[3], swapped[1]  # two opponent cards, order only
    a, b = fairplay.WatchedGame(list(deck)), fairplay.WatchedGame(swapped)
    if a.state.history or b.state.history or a.ranks() != b.ranks():
        pytest.skip("the deal paired differently")
    assert a.chances(a.ranks()) == b.chances(b.ranks())
    assert a.chances(a.ranks(), inferred=False) == b.chances(b.ranks(), inferred=False)


def _play(seed: str, choose, name: str) -> tuple[float, list[str]]:
    """bench.fairplay.play, also returning the asks."""
    game = fairplay.WatchedGame(shuffled_deck(seed))
    table = bench.PublicTable(game)
    rng = random.Random(f"{seed}/{name}")
    moves: list[str] = []
    while not game.over:
        rank = choose(game, table, rng)
        moves.append(rank)
        game.ask(rank)
    return fairplay.judge(game.observed).suspicion, moves


# Fixed calibration deals (bench/fairplay.py --seed-base 0).
DEALS = ["fairplay-0", "fairplay-1", "fairplay-2"]


@pytest.mark.parametrize("seed", DEALS)
def test_the_bench_honest_players_stay_unflagged_and_a_full_cheater_is_flagged(seed):
    for name, chooser in bench.HONEST.items():
        suspicion, moves = _play(seed, bench.honest(chooser), name)
        assert suspicion < fairplay.FLAG_THRESHOLD, (name, suspicion)
        # What verification computes from seed and asks is what the bench measured.
        assert fairplay.assess(seed, moves).suspicion == pytest.approx(suspicion)
    suspicion, moves = _play(seed, bench.full_knowledge, "full knowledge")
    assessed = fairplay.assess(seed, moves)
    assert assessed.flagged and assessed.suspicion == pytest.approx(suspicion)
    assert assessed.suspicion >= fairplay.FLAG_THRESHOLD
    assert assessed.cheat_rate > 0.5


def test_a_clairvoyant_game_is_explained_by_its_held_ranks():
    """The evidence rows: every ask that hit a held rank where a miss was possible weighs
    for the cheater; a player who never chose differs from an honest one in nothing."""
    seed = DEALS[0]
    _, moves = _play(seed, bench.full_knowledge, "full knowledge")
    assessed = fairplay.assess(seed, moves)
    assert sum(a.llr for a in assessed.asks) == pytest.approx(assessed.suspicion, abs=1e-9)
    assert all(a.held for a in assessed.asks if a.held_ranks)
    assert assessed.informative_asks == sum(1 for a in assessed.asks if a.informative)
    one_choice = [a for a in assessed.asks if len(a.ranks) == 1]
    assert all(abs(a.llr) < 1e-9 for a in one_choice)


def test_one_replay_gives_the_result_and_the_assessment():
    """Verification's result and the fair-play figure from one replay are those of two."""
    seed = DEALS[1]
    _, moves = _play(seed, bench.full_knowledge, "full knowledge")
    state, assessed = fairplay.replay_assessed(seed, moves)
    assert ENGINE.outcome(state) == ENGINE.outcome(ENGINE.replay({"seed": seed}, moves))
    assert assessed.suspicion == fairplay.assess(seed, moves).suspicion and assessed.flagged
    with pytest.raises(ReplayError):
        fairplay.replay_assessed(seed, moves[:-1])
