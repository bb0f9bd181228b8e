"""The clairvoyance detector (games/fairplay/, docs/fairplay.md). Pure: no Django, no database."""

from __future__ import annotations

import math
import random

import pytest

from games import fairplay
from games.fairplay import players
from games.fairplay.posterior import Posterior
from games.rules import peche
from games.rules.base import ReplayError
from games.rules.cards import shuffled_deck
from games.rules.peche import ENGINE, OPPONENT


def _play(seed: str, chooser, name: str):
    return players.play(shuffled_deck(seed), chooser, random.Random(f"{seed}/{name}"))


@pytest.mark.parametrize("style", ["random", "leftmost", "rightmost"])
def test_a_watched_game_is_the_engines_game(style):
    """The watcher only looks: a game played with it is, ask after ask, the game the engine
    plays alone, and it records one ask per move, before it is played."""
    pick = players.TIES[style]
    for i in range(40):
        seed = f"watched-{i}"
        rng = random.Random(seed)
        watcher = fairplay.Watcher()
        watched = peche.deal(shuffled_deck(seed), watcher)
        alone = ENGINE.new(seed=seed)
        moves = []
        while not watched.over:
            rank = pick(list(watched.hands[0]), rng)
            moves.append(rank)
            peche.ask(watched, rank, watcher)
            ENGINE.apply(alone, rank)
            assert [dict(h) for h in watched.hands] == [dict(h) for h in alone.hands]
            assert watched.history == alone.history
        assert alone.over
        assert [a.rank for a in watcher.asks] == moves
        assert [a.index for a in watcher.asks] == list(range(len(moves)))


def test_the_chances_never_depend_on_cards_the_player_has_not_seen():
    """Two deals that differ only in the order of the lake's last two cards show the player
    the same table until one of them is drawn: the chances are the same at every ask until
    then (nothing reads a hidden card)."""
    compared = 0
    for i in range(20):
        deck = shuffled_deck(f"hidden-{i}")
        other = list(deck)
        other[50], other[51] = other[51], other[50]
        a, b = fairplay.Watcher(), fairplay.Watcher()
        sa, sb = peche.deal(list(deck), a), peche.deal(other, b)
        while not sa.over and sa.lake_next < 50:
            rank = next(iter(sa.hands[0]))
            peche.ask(sa, rank, a)
            peche.ask(sb, rank, b)
            assert a.asks[-1].chances == b.asks[-1].chances
            compared += 1
    assert compared > 300


def test_the_chances_count_a_rank_the_opponent_asked_and_kept_as_sure():
    """A rank the opponent asked for and was refused is in its hand until it pairs it or
    gives it away: chance 1, as any player who remembers knows."""
    seen = 0
    for i in range(40):
        posterior = Posterior()
        memory = players.Memory()
        state = peche.deal(shuffled_deck(f"sure-{i}"), peche.Observers(posterior, memory))
        while not state.over:
            ranks = tuple(state.hands[0])
            for rank, chance in zip(ranks, posterior.chances(ranks)):
                if rank in memory.known:
                    assert chance == pytest.approx(1.0)
                    assert rank in state.hands[OPPONENT]
                    seen += 1
            peche.ask(state, ranks[-1], peche.Observers(posterior, memory))
    assert seen > 20


def test_honest_players_hit_as_often_as_the_table_says_whatever_their_habit():
    """The fact the detector rests on: for a player who uses only the table, the chance of
    a hit at each ask is the table's chance. Pooled over 400 games of the perfect-memory
    player who breaks ties by the leftmost card (the habit a model-based detector took for a
    peek) and 400 of the random one, the excess of hits stays within 3 standard errors.
    Leaving out what the opponent's choices reveal puts it beyond 10 standard errors."""
    for name, chooser in (("memory, ties leftmost", players.expert("leftmost")), ("random", players.uniform)):
        excess = spread = 0.0
        for i in range(400):
            _, assessed, _ = _play(f"calibration-{i}", chooser, name)
            for a in assessed.asks:
                if a.counted:
                    excess += a.held - a.public_chance
                    spread += a.public_chance * (1 - a.public_chance)
        assert abs(excess / math.sqrt(spread)) < 3.0, name


@pytest.mark.parametrize("name", [name for name, _ in players.PANEL])
def test_no_honest_habit_of_the_panel_is_flagged(name):
    chooser = dict(players.PANEL)[name]
    games = [_play(f"panel-{i}", chooser, name)[1] for i in range(25)]
    assert not any(g.flagged for g in games)
    assert not fairplay.accumulate(games[:5]).flagged and not fairplay.accumulate(games[5:12]).flagged


def test_a_player_who_sees_the_cards_is_flagged_most_games_and_every_week():
    games = [_play(f"full-{i}", players.CHEATERS[0][1], "full")[1] for i in range(20)]
    assert sum(g.flagged for g in games) >= 12
    assert all(fairplay.accumulate(games[w : w + 5]).flagged for w in range(0, 20, 5))
    assert all(g.cheat_rate >= 0.5 for g in games if g.flagged)


def test_a_quiet_peeker_is_caught_by_the_week_not_by_a_game():
    """A held rank on 70 % of the asks, memory otherwise: most games pass, the weeks do not."""
    chooser = dict(players.CHEATERS)["peek 70 %, memory otherwise"]
    games = [_play(f"quiet-{i}", chooser, "quiet")[1] for i in range(25)]
    weeks = [fairplay.accumulate(games[w : w + 5]) for w in range(0, 25, 5)]
    assert sum(g.flagged for g in games) < 15
    assert sum(w.flagged for w in weeks) >= 4


def test_what_verification_stores_is_what_the_week_reads():
    """The stored evidence (rounded, JSON) gives the week the figure the assessments give."""
    chooser = dict(players.CHEATERS)["peek 50 %, random otherwise"]
    games = [_play(f"stored-{i}", chooser, "stored")[1] for i in range(5)]
    stored = [fairplay.profile_of(g.evidence()) for g in games]
    assert all(p is not None for p in stored)
    direct, read = fairplay.accumulate(games), fairplay.accumulate([p for p in stored if p is not None])
    assert read.suspicion == pytest.approx(direct.suspicion, abs=1e-3) and read.flagged == direct.flagged
    assert fairplay.profile_of(None) is None and fairplay.profile_of({"profile": [1.0]}) is None


def test_an_asks_weight_is_its_share_of_the_game_at_the_likeliest_rate():
    """The inspector's weights add up to the game's profile at its likeliest peek rate; a
    forced ask (one rank) or a sure pair weighs nothing."""
    moves, assessed, _ = _play("weights-0", players.CHEATERS[0][1], "full")
    rate = assessed.cheat_rate
    assert rate > 0
    total = sum(a.weight for a in assessed.asks)
    assert total == pytest.approx(assessed.profile[fairplay.THETAS.index(rate)])
    assert all(a.weight == 0 for a in assessed.asks if not a.counted)
    assert [a.rank for a in assessed.asks] == moves


def test_one_replay_gives_the_result_and_the_assessment():
    moves, played, outcome = _play("replay-0", players.CHEATERS[0][1], "full")
    seed = "replay-0"
    state, assessed = fairplay.replay_assessed(seed, moves)
    assert ENGINE.outcome(state) == outcome
    assert assessed.profile == played.profile == fairplay.assess(seed, moves).profile
    with pytest.raises(ReplayError):
        fairplay.replay_assessed(seed, moves[:-1])
    partial = fairplay.assess(seed, moves[:-1], partial=True)
    assert len(partial.asks) == len(moves) - 1
