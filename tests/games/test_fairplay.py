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
        memory = peche.Knowledge(OPPONENT)
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


_OPEN = 1 << _R  # a block of draws not told apart yet (the next draw joins it)


class BlockByBlock(Observer):
    """The posterior kept the plain way, one weight per hand of named ranks in blocks (no
    free ranks lumped): the definition the lumped one must agree with. A hand is a tuple of
    blocks, oldest first, each a mask of ranks (plus _OPEN for the last block of draws not
    told apart yet); within a block every order is alike."""

    __slots__ = ("belief", "unseen")

    def __init__(self) -> None:
        self.belief: dict[tuple[int, ...], float] = {(): 1.0}
        self.unseen = [4] * _R

    @staticmethod
    def held(hand: tuple[int, ...]) -> int:
        out = 0
        for b in hand:
            out |= b
        return out & ~_OPEN

    def weigh(self, ranks: Iterable[str]) -> tuple[tuple[float, ...], float]:
        bits = [1 << RANK_INDEX[r] for r in ranks]
        mask = sum(bits)
        sums = [0.0] * len(bits)
        total = hit = 0.0
        for hand, w in self.belief.items():
            held = self.held(hand)
            total += w
            if held & mask:
                hit += w
            for j, b in enumerate(bits):
                if held & b:
                    sums[j] += w
        return tuple(x / total for x in sums), hit / total

    def _keep(self, belief: dict[tuple[int, ...], float]) -> None:
        total = sum(belief.values())
        assert total, "no deal is consistent with the table"
        self.belief = {hand: w / total for hand, w in belief.items()}

    def _add(self, out: dict[tuple[int, ...], float], hand: tuple[int, ...], w: float) -> None:
        hand = tuple(b for b in hand if b & ~_OPEN)
        out[hand] = out.get(hand, 0.0) + w

    def _without(self, hand: tuple[int, ...], bit: int) -> tuple[int, ...]:
        return tuple(b & ~bit for b in hand)

    def choice(self, state: PecheState, rank: str) -> None:
        known = state.knowledge.known
        bit = 1 << RANK_INDEX[rank]
        higher = 0
        if rank in known:
            tied = mask_of(known)
        else:
            n, d = opponent_miss(state, rank)
            higher, tied = mask_of(known), 0
            for q in RANKS:
                if q in known or state.pairs_by_rank[q] == 2:
                    continue
                n2, d2 = opponent_miss(state, q)
                if n2 * d < n * d2:
                    higher |= 1 << RANK_INDEX[q]
                elif n2 * d == n * d2:
                    tied |= 1 << RANK_INDEX[q]
        out: dict[tuple[int, ...], float] = {}
        for hand, w in self.belief.items():
            held = self.held(hand)
            if not held & bit or held & higher:
                continue
            i = next(i for i, b in enumerate(hand) if b & tied)  # its first block with a tied rank
            block = hand[i] & ~_OPEN
            if not block & bit:
                continue
            first = block & tied
            s = first.bit_count()
            others = block & ~tied
            b = others.bit_count()
            # r first of the block's tied ranks: the others before it (x of them) or after
            for x_mask in range(others + 1):
                if x_mask & ~others:
                    continue
                x = x_mask.bit_count()
                weight = w * math.factorial(x) * math.factorial(b - x + s - 1) / math.factorial(b + s)
                if s == 1:
                    weight = w if x_mask == 0 else 0.0
                    new = hand
                else:
                    new = (*hand[:i], x_mask, bit, (others ^ x_mask) | (first ^ bit), *hand[i + 1 :])
                if weight:
                    self._add(out, new, weight)
        self._keep(out)

    def asked(self, state: PecheState, seat: int, rank: str, given: str | None, fished: bool) -> None:
        r = RANK_INDEX[rank]
        bit = 1 << r
        if given is None:
            if seat == PLAYER:
                self._keep({h: w for h, w in self.belief.items() if not self.held(h) & bit})
            return
        out: dict[tuple[int, ...], float] = {}
        for hand, w in self.belief.items():
            if self.held(hand) & bit:
                self._add(out, self._without(hand, bit), w)
        self._keep(out)
        self.unseen[r] -= 1

    def received(self, state: PecheState, seat: int, card: str, from_deck: bool, paired: bool) -> None:
        if not from_deck:
            return
        unseen = self.unseen
        r = RANK_INDEX[RANK_OF[card]]
        bit = 1 << r
        out: dict[tuple[int, ...], float] = {}
        if seat == PLAYER:
            c = unseen[r]
            for hand, w in self.belief.items():
                left = c - 1 if self.held(hand) & bit else c
                if left:
                    out[hand] = w * left
            unseen[r] = c - 1
        elif paired:
            for hand, w in self.belief.items():
                if self.held(hand) & bit:
                    self._add(out, self._without(hand, bit), w * (unseen[r] - 1))
            unseen[r] -= 2
        else:
            dealing = state.lake_next == 10
            for hand, w in self.belief.items():
                held = self.held(hand)
                for q in range(_R):
                    b = 1 << q
                    if held & b or not unseen[q]:
                        continue
                    new: tuple[int, ...]
                    if dealing:
                        new = (hand[0] | b,) if hand else (b,)
                    elif hand and hand[-1] & _OPEN:
                        new = (*hand[:-1], hand[-1] | b)
                    else:
                        new = (*hand, b | _OPEN)
                    self._add(out, new, w * unseen[q])
        self._keep(out)


def test_the_lumped_posterior_is_the_plain_one():
    """Free ranks kept as one entry change nothing: at every ask of 40 games, the chances
    and the chance of any rank held agree with the plain posterior to rounding."""
    worst = 0.0
    for i in range(40):
        lumped, plain = Posterior(), BlockByBlock()
        both = peche.Observers(lumped, plain)
        state = peche.deal(shuffled_deck(f"lumped-{i}"), both)
        rng = random.Random(i)
        while not state.over:
            ranks = tuple(state.hands[0])
            (a, qa), (b, qb) = lumped.weigh(ranks), plain.weigh(ranks)
            worst = max(worst, abs(qa - qb), *(abs(x - y) for x, y in zip(a, b)))
            peche.ask(state, rng.choice(ranks), both)
    assert worst < 1e-9


def _copy(posterior: Posterior) -> Posterior:
    twin = Posterior()
    twin.belief, twin.unseen, twin.free = dict(posterior.belief), list(posterior.unseen), posterior.free
    return twin


class ChoiceCheck(Observer):
    """Before each choice of the opponent: the posterior's mass that ``choice`` keeps for
    each rank the opponent could ask, and ``opponent_finds``."""

    def __init__(self, posterior: Posterior) -> None:
        self.posterior = posterior
        self.worst = 0.0
        self.checked = 0

    def choice(self, state: PecheState, rank: str) -> None:
        before = sum(self.posterior.belief.values())
        shares = {}
        for r in RANKS:
            twin = _copy(self.posterior)
            try:
                twin.choice(state, r)
            except AssertionError:  # no hand would ask it
                continue
            shares[r] = sum(twin.belief.values()) / before
        finds = sum(p for r, p in shares.items() if r in state.hands[PLAYER])
        self.worst = max(self.worst, abs(sum(shares.values()) - 1), abs(finds - self.posterior.opponent_finds(state)))
        self.checked += 1


def test_the_chance_the_opponent_finds_is_the_choice_the_posterior_learns_from():
    """``opponent_finds`` and ``choice`` read the opponent's rule alike: before each of its
    choices in 40 games, the shares of the posterior that ``choice`` keeps for each rank it
    could ask add up to 1, and those of the player's ranks to ``opponent_finds``."""
    worst, checked = 0.0, 0
    for i in range(40):
        posterior = Posterior()
        check = ChoiceCheck(posterior)
        both = peche.Observers(check, posterior)  # the check reads before the posterior learns
        state = peche.deal(shuffled_deck(f"finds-{i}"), both)
        rng = random.Random(i)
        while not state.over:
            peche.ask(state, rng.choice(tuple(state.hands[0])), both)
        worst, checked = max(worst, check.worst), checked + check.checked
    assert checked > 400
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
