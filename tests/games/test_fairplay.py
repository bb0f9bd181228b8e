"""The clairvoyance detector (games/fairplay/, docs/fairplay.md). Pure: no Django, no database."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable

import pytest

from games import fairplay
from games.fairplay import players
from games.fairplay.posterior import Posterior, mask_of
from games.rules import peche
from games.rules.base import ReplayError
from games.rules.cards import RANK_INDEX, RANK_OF, RANKS, shuffled_deck
from games.rules.peche import ENGINE, OPPONENT, PLAYER, Observer, PecheState, opponent_miss


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


_R = len(RANKS)


class SetBySet(Observer):
    """The posterior kept the plain way, one weight per set of ranks: the definition the
    lumped one (free ranks as one entry) must agree with."""

    __slots__ = ("belief", "unseen")

    def __init__(self) -> None:
        self.belief: dict[int, float] = {0: 1.0}
        self.unseen = [4] * _R

    # --- reading ---------------------------------------------------------------------

    def chances(self, ranks: Iterable[str]) -> tuple[float, ...]:
        """For each of ``ranks``, the chance that the opponent holds one."""
        bits = [1 << RANK_INDEX[r] for r in ranks]
        sums = [0.0] * len(bits)
        total = 0.0
        for held, w in self.belief.items():
            total += w
            for j, bit in enumerate(bits):
                if held & bit:
                    sums[j] += w
        return tuple(s / total for s in sums)

    def weigh(self, ranks: Iterable[str]) -> tuple[tuple[float, ...], float]:
        """What the detector reads at an ask, in one pass over the sets: ``chances(ranks)``,
        and the chance that the opponent holds at least one of ``ranks``."""
        bits = [1 << RANK_INDEX[r] for r in ranks]
        mask = sum(bits)
        sums = [0.0] * len(bits)
        total = hit = 0.0
        for held, w in self.belief.items():
            total += w
            mine = held & mask
            if not mine:
                continue
            hit += w
            for j, b in enumerate(bits):
                if mine & b:
                    sums[j] += w
        return tuple(x / total for x in sums), hit / total

    def _keep(self, belief: dict[int, float]) -> None:
        total = sum(belief.values())
        if not total:  # no deal agrees with the table: a bug in a fact, never a game
            raise AssertionError("no deal is consistent with the table")
        if total < 1e-200 or total > 1e200:
            belief = {held: w / total for held, w in belief.items()}
        self.belief = belief

    # --- the loop's hooks: public facts only ------------------------------------------

    def choice(self, state: PecheState, rank: str) -> None:
        known = state.knowledge.known
        bit = 1 << RANK_INDEX[rank]
        known_mask = mask_of(known)
        if rank in known:
            # The first rank of ``known`` in its hand: one of those it holds, r among them.
            self._keep({h: w / (h & known_mask).bit_count() for h, w in self.belief.items() if h & bit})
            return
        n, d = opponent_miss(state, rank)
        higher = known_mask  # ranks it cannot hold, having chosen ``rank``
        tied = 0
        pairs_by_rank = state.pairs_by_rank
        for q in RANKS:
            if q in known or pairs_by_rank[q] == 2:
                continue
            n2, d2 = opponent_miss(state, q)
            if n2 * d < n * d2:  # a strictly higher chance
                higher |= 1 << RANK_INDEX[q]
            elif n2 * d == n * d2:
                tied |= 1 << RANK_INDEX[q]
        self._keep({h: w / (h & tied).bit_count() for h, w in self.belief.items() if h & bit and not h & higher})

    def asked(self, state: PecheState, seat: int, rank: str, given: str | None, fished: bool) -> None:
        r = RANK_INDEX[rank]
        bit = 1 << r
        if seat == PLAYER:
            held = given is not None
            self._keep({h: w for h, w in self.belief.items() if bool(h & bit) == held})
        if given is not None:  # the opponent's card leaves its hand, face up
            self.belief = {h ^ bit: w for h, w in self.belief.items()}
            self.unseen[r] -= 1

    def received(self, state: PecheState, seat: int, card: str, from_deck: bool, paired: bool) -> None:
        if not from_deck:
            return  # a given card: the ask's (``asked``)
        unseen = self.unseen
        if seat == PLAYER:  # the player sees the card: it was in the lake
            r = RANK_INDEX[RANK_OF[card]]
            bit = 1 << r
            c = unseen[r]
            self._keep({h: w * (c - 1 if h & bit else c) for h, w in self.belief.items() if c - (h >> r & 1) > 0})
            unseen[r] = c - 1
        elif paired:  # the opponent drew an r and laid the pair: it held the other
            r = RANK_INDEX[RANK_OF[card]]
            bit = 1 << r
            c = unseen[r] - 1
            self._keep({h ^ bit: w * c for h, w in self.belief.items() if h & bit})
            unseen[r] -= 2
        else:  # the opponent drew a card that paired with nothing: a rank it lacked
            grown: dict[int, float] = {}
            get = grown.get
            ranks = [(q, 1 << q, unseen[q]) for q in range(_R) if unseen[q]]
            for h, w in self.belief.items():
                for _q, bit, c in ranks:
                    if not h & bit:
                        g = h | bit
                        grown[g] = get(g, 0.0) + w * c
            self._keep(grown)


def test_the_lumped_posterior_is_the_set_by_set_one():
    """Free ranks kept as one entry change nothing: at every ask of 60 games, the chances
    and the chance of any rank held agree with the plain posterior to rounding."""
    worst = 0.0
    for i in range(60):
        lumped, plain = Posterior(), SetBySet()
        both = peche.Observers(lumped, plain)
        state = peche.deal(shuffled_deck(f"lumped-{i}"), both)
        rng = random.Random(i)
        while not state.over:
            ranks = tuple(state.hands[0])
            (a, qa), (b, qb) = lumped.weigh(ranks), plain.weigh(ranks)
            worst = max(worst, abs(qa - qb), *(abs(x - y) for x, y in zip(a, b)))
            peche.ask(state, rng.choice(ranks), both)
    assert worst < 1e-9


def test_a_hand_drawn_from_the_posterior_holds_each_rank_as_often_as_its_chance():
    """4,000 hands drawn at a position mid-game: each rank's share within 0.03 of its
    chance, and every hand as large as the opponent's."""
    posterior = Posterior()
    state = peche.deal(shuffled_deck("sample-0"), posterior)
    rng = random.Random(0)
    for _ in range(4):
        peche.ask(state, next(iter(state.hands[0])), posterior)
    chances = dict(zip(RANKS, posterior.chances(RANKS)))
    counts = dict.fromkeys(RANKS, 0)
    for _ in range(4000):
        hand = posterior.sample(rng)
        assert len(hand) == len(state.hands[OPPONENT]) and len(set(hand)) == len(hand)
        for rank in hand:
            counts[rank] += 1
    assert all(abs(counts[r] / 4000 - chances[r]) < 0.03 for r in RANKS), (counts, chances)
