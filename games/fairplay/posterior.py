"""What the table tells the player about the opponent's hand: the chance that the opponent
holds each rank, over the deals consistent with everything the player has seen.

A deal is a uniformly shuffled deck, and everything the player sees is a function of the
deck and its own asks; an honest player's asks are a function of what it saw. So, given
the player's view, every deal that would have shown exactly that view is equally likely,
and the chance that the opponent holds an r is the share of those deals in which it does.
That share is what an honest player, of any habit, hits on average when it asks r: the
fact the detector rests on (``detector``). It holds only if *every* public fact is
counted: the answers to the player's asks, which of the opponent's draws paired (and with
what), the opponent's choices (its rule is public), the cards the player drew, the sizes
of hands and lake.

The hidden part of a deal that matters is the set of ranks in the opponent's hand (a hand
holds one card a rank), so the posterior is kept exactly as a weight for each possible set
(a 13-bit mask), updated fact by fact:

- a card the player draws, of rank r: each set is weighted by the copies of r left in the
  lake beside it (the unseen copies of r, less the one in the opponent's hand);
- a card the opponent draws that pairs with nothing: each set grows by one rank q it lacks,
  weighted by the lake's copies of q; one that pairs with r: the set must hold r, weighted
  by the lake's copies of r, and loses it;
- an ask answered: the set holds the rank or not; a card given away leaves the set;
- the opponent's choice of r: the set holds r; if r is not a rank it knows the player
  holds, the set holds none of those and no rank with a strictly higher chance by the
  rules' formula (``peche.opponent_miss``). Its tie-break reads the hand's order, which a
  set does not keep: of the ranks that tie in the set, r is taken to be the first with
  chance 1/(how many tie), as if their order were random (and 1/(known ranks held) for the
  "first known rank" rule). That is the one approximation; docs/fairplay.md measures what
  it leaves (the honest panel's figure centred at 0).

Deterministic (no sampling), standard library only; a set's weight is a float renormalised
when it leaves the range of floats. The ranks no fact has named yet are alike, so the sets
that differ only in which of them they hold are kept as one entry (``Posterior``): the
same posterior (tests/games/test_fairplay.py compares it with the plain set-by-set one), a
fraction of the entries (docs/fairplay.md gives its cost).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from functools import cmp_to_key
from math import gcd

from games.rules.cards import RANK_INDEX, RANK_OF, RANKS
from games.rules.peche import PLAYER, Observer, PecheState, opponent_miss

_R = len(RANKS)
_HELD = (1 << _R) - 1  # an entry's key: the named ranks' mask, and k above it (k << _R)
_ONE_FREE = 1 << _R


def _reduced(n: int, d: int) -> tuple[int, int]:
    g = gcd(n, d)
    return n // g, d // g


def _compare(a: tuple[int, int], b: tuple[int, int]) -> int:
    return a[0] * b[1] - b[0] * a[1]


# Levels of the opponent's chance, highest first: the lowest N/D first, compared as integers.
_by_chance = cmp_to_key(_compare)


def mask_of(ranks: Iterable[str]) -> int:
    out = 0
    for r in ranks:
        out |= 1 << RANK_INDEX[r]
    return out


class Posterior(Observer):
    """The posterior over the opponent's hand, kept by the loop's hooks (a peche.Observer).

    ``belief``: {the ranks of the hand that facts have named, as a mask, plus k << 13, k
    how many ranks it holds of the ``free`` ones: weight} (one int, not a pair: the keys
    are made and hashed millions of times a day, and the masks read them as they are). A rank no fact has named yet (no card of it seen,
    asked for, chosen or paired) is ``free``: the free ranks are alike in everything the
    table showed, so the sets that differ only in which free ranks they hold are one entry,
    its weight their sum (each holds an equal share). A fact that names a free rank splits
    the entries first (``_name``). Early in a game, when nearly every set is still made of
    free ranks, this keeps dozens of entries instead of the 1,287 sets of five ranks.
    ``unseen[r]``: the copies of r the player has not seen (in the opponent's hand or the
    lake); 4 for a free rank. Only public facts reach it: the rank of a card the opponent
    drew is read only when it paired (the pair is on the table).
    """

    __slots__ = ("belief", "unseen", "free")

    def __init__(self) -> None:
        self.belief: dict[int, float] = {0: 1.0}
        self.unseen = [4] * _R
        self.free = (1 << _R) - 1

    def _name(self, mask: int) -> None:
        """Make the free ranks of ``mask`` named ones: an entry holding k of the n free
        ranks holds a given one with chance k/n."""
        free = self.free & mask
        while free:
            bit = free & -free
            free ^= bit
            n = self.free.bit_count()
            split: dict[int, float] = {}
            get = split.get
            for key, w in self.belief.items():
                k = key >> _R
                if k:
                    named = (key | bit) - _ONE_FREE
                    split[named] = get(named, 0.0) + w * k / n
                if k < n:
                    split[key] = get(key, 0.0) + w * (n - k) / n
            self.belief = split
            self.free ^= bit

    # --- reading ---------------------------------------------------------------------

    def chances(self, ranks: Iterable[str]) -> tuple[float, ...]:
        """For each of ``ranks``, the chance that the opponent holds one."""
        ranks = list(ranks)
        self._name(mask_of(ranks))
        return self.weigh(ranks)[0]

    def weigh(self, ranks: Iterable[str]) -> tuple[tuple[float, ...], float]:
        """What the detector reads at an ask, in one pass over the sets: ``chances(ranks)``,
        and the chance that the opponent holds at least one of ``ranks``."""
        bits = [1 << RANK_INDEX[r] for r in ranks]
        mask = sum(bits)
        self._name(mask)  # the player's ranks are named already (it saw them)
        sums = [0.0] * len(bits)
        total = hit = 0.0
        for key, w in self.belief.items():
            total += w
            mine = key & mask
            if not mine:
                continue
            hit += w
            for j, b in enumerate(bits):
                if mine & b:
                    sums[j] += w
        return tuple(x / total for x in sums), hit / total

    def sample(self, rng: random.Random) -> list[str]:
        """The ranks of an opponent hand drawn from the posterior: an entry by its weight,
        then which of the free ranks it holds, all alike (for an engine that plays deals
        consistent with the table: games/analysis/). Sorted by rank; the hand's order is
        not known."""
        entries = list(self.belief.items())
        u = rng.random() * sum(w for _, w in entries)
        chosen = entries[-1][0]  # rounding can leave u just above the last weight
        for key, w in entries:
            u -= w
            if u < 0:
                chosen = key
                break
        held, k = chosen & _HELD, chosen >> _R
        free = [q for q in range(_R) if self.free >> q & 1]
        ranks = [q for q in range(_R) if held >> q & 1] + rng.sample(free, k)
        return [RANKS[q] for q in sorted(ranks)]

    # --- the other outcomes hidden cards decide (the detector's channels) -------------

    def misses(self, state: PecheState) -> dict[str, tuple[int, int]]:
        """``opponent_miss`` of each rank the opponent could ask by its chance (not one it
        knows the player holds, nor one whose pairs are all down), as a reduced fraction: a
        level of chance is one key. The free ranks share one value, read once."""
        known = state.knowledge.known
        pairs_by_rank = state.pairs_by_rank
        free = self.free
        out: dict[str, tuple[int, int]] = {}
        free_value = None
        for q in RANKS:
            if q in known or pairs_by_rank[q] == 2:
                continue
            if free >> RANK_INDEX[q] & 1:
                if free_value is None:
                    free_value = _reduced(*opponent_miss(state, q))
                out[q] = free_value
            else:
                out[q] = _reduced(*opponent_miss(state, q))
        return out

    def opponent_finds(self, state: PecheState, misses: dict[str, tuple[int, int]] | None = None) -> float:
        """The table's chance that the opponent's coming ask names a rank the player holds:
        for each set, the opponent's rule (``choice`` reads it the same way) picks a rank
        it knows the player holds if it has one (a find), else one of its ranks with the
        highest chance by ``opponent_miss``, ties alike; a find when that rank is the
        player's. Call it before ``choice`` (the hook that learns from the answer), with
        ``misses`` if read already (``misses(state)``)."""
        if misses is None:
            misses = self.misses(state)
        mine = mask_of(state.hands[PLAYER])
        known_mask = mask_of(state.knowledge.known)
        # The ranks the opponent could ask, by level of its chance, highest first; the free
        # ranks share one level (no fact has told them apart) and none is the player's.
        free = self.free
        levels: dict[tuple[int, int], int] = {}
        free_level = None
        for q, value in misses.items():
            b = 1 << RANK_INDEX[q]
            if free & b:
                free_level = value
                levels.setdefault(value, 0)
            else:
                levels[value] = levels.get(value, 0) | b
        order = [(levels[key], key == free_level) for key in sorted(levels, key=_by_chance)]
        total = found = 0.0
        for h, w in self.belief.items():
            total += w
            if h & known_mask:
                found += w
                continue
            k = h >> _R
            for mask, with_free in order:
                top = h & mask
                count = top.bit_count() + (k if with_free else 0)
                if count:
                    found += w * (top & mine).bit_count() / count
                    break
        return found / total

    def draw_pairs(self, state: PecheState, seat: int, lake: int) -> float:
        """The table's chance that the card ``seat`` draws from a lake of ``lake`` cards
        pairs in its hand (before the posterior learns what it was): for the player, a rank
        it holds, of which the lake keeps the unseen copies less the opponent's; for the
        opponent, a rank of its set, of which the lake keeps the unseen copies less its own."""
        unseen = self.unseen
        total = pairs = 0.0
        if seat == PLAYER:
            ranks = [RANK_INDEX[r] for r in state.hands[PLAYER]]
            base = sum(unseen[r] for r in ranks)
            mask = sum(1 << r for r in ranks)
            for h, w in self.belief.items():
                total += w
                pairs += w * (base - (h & mask).bit_count())
        else:
            named = [(1 << r, unseen[r] - 1) for r in range(_R) if not self.free >> r & 1]
            for h, w in self.belief.items():
                total += w
                # a free rank it holds has 3 copies left in the lake
                pairs += w * (sum(c for b, c in named if h & b) + 3 * (h >> _R))
        return pairs / total / lake

    def _keep(self, belief: dict[int, float]) -> None:
        total = sum(belief.values())
        if not total:  # no deal agrees with the table: a bug in a fact, never a game
            raise AssertionError("no deal is consistent with the table")
        if total < 1e-200 or total > 1e200:
            belief = {key: w / total for key, w in belief.items()}
        self.belief = belief

    # --- the loop's hooks: public facts only ------------------------------------------

    def choice(self, state: PecheState, rank: str, misses: dict[str, tuple[int, int]] | None = None) -> None:
        """The opponent chose ``rank`` (``misses``: ``misses(state)``, if read already)."""
        known = state.knowledge.known
        bit = 1 << RANK_INDEX[rank]
        known_mask = mask_of(known)
        if rank in known:
            self._name(bit | known_mask)
            # The first rank of ``known`` in its hand: one of those it holds, r among them.
            self._keep({h: w / (h & known_mask).bit_count() for h, w in self.belief.items() if h & bit})
            return
        if misses is None:
            misses = self.misses(state)
        self._name(bit | known_mask)
        n, d = misses[rank]
        higher = known_mask  # named ranks it cannot hold, having chosen ``rank``
        tied = 0
        free = self.free
        free_higher = free_tied = False
        for q, (n2, d2) in misses.items():
            b = 1 << RANK_INDEX[q]
            if free & b:  # the free ranks share one chance: no fact has told them apart
                free_higher, free_tied = n2 * d < n * d2, n2 * d == n * d2
            elif n2 * d < n * d2:  # a strictly higher chance
                higher |= b
            elif n2 * d == n * d2:
                tied |= b
        kept = {
            h: w / ((h & tied).bit_count() + (h >> _R if free_tied else 0))
            for h, w in self.belief.items()
            if h & bit and not h & higher
        }
        if free_higher:  # it holds none of the free ranks
            kept = {h: w for h, w in kept.items() if h < _ONE_FREE}
        self._keep(kept)

    def asked(self, state: PecheState, seat: int, rank: str, given: str | None, fished: bool) -> None:
        r = RANK_INDEX[rank]
        bit = 1 << r
        self._name(bit)
        if given is None:
            if seat == PLAYER:
                self._keep({h: w for h, w in self.belief.items() if not h & bit})
            return
        # The opponent's card leaves its hand, face up (asked by the player: it held one).
        if seat == PLAYER:
            self._keep({h ^ bit: w for h, w in self.belief.items() if h & bit})
        else:
            self.belief = {h ^ bit: w for h, w in self.belief.items()}
        self.unseen[r] -= 1

    def received(self, state: PecheState, seat: int, card: str, from_deck: bool, paired: bool) -> None:
        if not from_deck:
            return  # a given card: the ask's (``asked``)
        unseen = self.unseen
        if seat == PLAYER:  # the player sees the card: it was in the lake
            r = RANK_INDEX[RANK_OF[card]]
            bit = 1 << r
            self._name(bit)
            c = unseen[r]
            self._keep({h: w * (c - 1 if h & bit else c) for h, w in self.belief.items() if c - (h >> r & 1) > 0})
            unseen[r] = c - 1
        elif paired:  # the opponent drew an r and laid the pair: it held the other
            r = RANK_INDEX[RANK_OF[card]]
            bit = 1 << r
            self._name(bit)
            c = unseen[r] - 1
            self._keep({h ^ bit: w * c for h, w in self.belief.items() if h & bit})
            unseen[r] -= 2
        else:  # the opponent drew a card that paired with nothing: a rank it lacked
            grown: dict[int, float] = {}
            get = grown.get
            free = self.free
            n = free.bit_count()
            copies = {1 << q: unseen[q] for q in range(_R) if unseen[q] and not free >> q & 1}
            named = sum(copies)
            for h, w in self.belief.items():
                lacked = named & ~h  # the named ranks it lacked with copies in the lake
                while lacked:
                    bit = lacked & -lacked
                    lacked ^= bit
                    key = h | bit
                    grown[key] = get(key, 0.0) + w * copies[bit]
                k = h >> _R
                if k < n:  # one of the free ranks it lacked, 4 copies each in the lake
                    key = h + _ONE_FREE
                    grown[key] = get(key, 0.0) + w * 4 * (n - k)
            self._keep(grown)
