"""What the table tells the player about the opponent's hand: the chance that the opponent
holds each rank, over the deals consistent with everything the player has seen.

A deal is a uniformly shuffled deck, and everything the player sees is a function of the
deck and its own asks; an honest player's asks are a function of what it saw. So, given
the player's view, every deal that would have shown exactly that view is equally likely,
and the chance that the opponent holds an r is the share of those deals in which it does.
That share is what an honest player, of any habit, hits on average when it asks r: the
fact the detector rests on (``detector``). It holds only if *every* public fact is
counted: the answers to the player's asks, which of the opponent's draws paired (and with
what), the opponent's choices (its rule is public, its tie-break included), the cards the
player drew, the sizes of hands and lake.

The hidden part of a deal that matters is the opponent's hand: its ranks (a hand holds one
card a rank) and their order, the order the cards came in, which the opponent's tie-break
reads (docs/rules.md §2: the first tied rank in its hand). The order is known in part: a
card the opponent draws is younger than everything it holds, and each of its choices
tells which of the tied ranks it holds came first. So the hand is kept as a sequence of
*blocks*, oldest first: within a block the order is taken as unknown, all orders alike;
between blocks it is known. The five cards dealt are one block (dealt in an order nobody
saw); the cards drawn since the last choice that told them apart are one block after
everything older. A choice that picks r among tied ranks of one block splits it: the
ranks before r, r, the ranks after it (the tied ones among them), weighted by how many
orders of the block put them there. The block then holds nothing more: the next card
drawn starts a new one.

The posterior is kept as a weight for each possible block sequence, updated fact by fact:

- a card the player draws, of rank r: each hand is weighted by the copies of r left in
  the lake beside it (the unseen copies of r, less the one in the opponent's hand);
- a card the opponent draws that pairs with nothing: the hand grows by one rank q it
  lacks, into its last block of draws (the deal's block during the deal), weighted by the
  lake's copies of q; one that pairs with r: the hand must hold r, weighted by the lake's
  copies of r, and loses it;
- an ask answered: the hand holds the rank or not; a card given away leaves the hand;
- the opponent's choice of r: the hand holds r; if r is not a rank it knows the player
  holds, it holds none of those and no rank with a strictly higher chance by the rules'
  formula (``peche.opponent_miss``), and r is the first of the tied ranks it holds in
  its hand's order (the first of the known ranks it holds, for the "known rank" rule).

Two approximations are left, both in what the order of a block is taken to be. (1) The
cards drawn one after another are taken as in any order until a choice tells them apart,
though each was drawn after the last: keeping every draw a block of its own is exact but
costs four times as much (up to 45,000 entries in a game of long hands). (2) A card dealt
to the opponent of a rank it paired earlier in the deal (the third copy: about 2 % of
deals) came after that pair, and is taken as anywhere in the deal's block. Measured
(docs/fairplay.md, bench/calibration.py): the honest panel's outcomes, on every channel,
come as often as the table says, within noise, over 10,000 deals a policy; the set model
before it (ties as if at random) was off by up to 16 standard errors on the opponent's asks.

Deterministic (no sampling), standard library only; a weight is a float renormalised
when it leaves the range of floats. The ranks no fact has named yet are alike, so the
hands that differ only in which of them they hold are kept as one entry (``Posterior``):
tests/games/test_fairplay.py compares it with one kept rank by rank.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from functools import cmp_to_key
from math import comb, factorial, gcd
from typing import TypeVar

from games.rules.cards import RANK_INDEX, RANK_OF, RANKS
from games.rules.peche import PLAYER, Observer, PecheState, opponent_miss

_R = len(RANKS)
_HELD = (1 << _R) - 1  # a mask of named ranks, and k above it (k << _R): k free ranks
_ONE_FREE = 1 << _R
_FREE = 0xF << _R  # a block's free count
OPEN = 1 << (_R + 4)  # a block of draws not told apart yet: the next draw joins it
_FACTORIAL = [factorial(n) for n in range(2 * _R + 1)]

# An entry's key: (the hand's summary, block, block, …): the summary is the named ranks
# it holds, as a mask, plus k << 13, k how many free ranks it holds; each block, oldest
# first, the same for its cards. A block is never empty, and two blocks of free ranks
# only are never next to each other (they are one: the free ranks are alike).
Key = tuple[int, ...]
P = TypeVar("P", bound="Posterior")


def mask_of(ranks: Iterable[str]) -> int:
    out = 0
    for r in ranks:
        out |= 1 << RANK_INDEX[r]
    return out


def _canon(summary: int, blocks: Iterable[int]) -> Key:
    """The key of a hand: empty blocks dropped, neighbouring free-only blocks made one."""
    out = [summary]
    free_before = False
    for b in blocks:
        if not b & ~OPEN:
            continue
        if not b & (_HELD | OPEN):
            if free_before:
                out[-1] += b
                continue
            free_before = True
        else:
            free_before = False
        out.append(b)
    return tuple(out)


def _without(key: Key, bit: int) -> Key:
    """The hand less its card of the rank ``bit`` (which it holds)."""
    for i in range(1, len(key)):
        b = key[i]
        if b & bit:
            b ^= bit
            if b & _HELD:  # still a named rank in the block: nothing to merge
                return (key[0] ^ bit, *key[1:i], b, *key[i + 1 :])
            return _canon(key[0] ^ bit, (*key[1:i], b, *key[i + 1 :]))
    raise AssertionError("the hand does not hold the rank")


def _dealt(key: Key, block: int) -> Key:
    """The hand with a card dealt (``block``: its bit, or _ONE_FREE), in the deal's block."""
    return (key[0] + block, key[1] + block) if len(key) > 1 else (block, block)


def _by_chance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Two chances of a miss, n/d, compared exactly (a sort key)."""
    return a[0] * b[1] - b[0] * a[1]


def _submasks(mask: int) -> Iterable[int]:
    sub = mask
    while True:
        yield sub
        if not sub:
            return
        sub = (sub - 1) & mask


class Posterior(Observer):
    """The posterior over the opponent's hand, kept by the loop's hooks (a peche.Observer).

    ``belief``: {key: weight}, a key as above (a tuple of ints, not objects: the keys are
    made and hashed millions of times a day). A rank no fact has named yet (no card of it
    seen, asked for, chosen or paired) is ``free``: the free ranks are alike in everything
    the table showed, so the hands that differ only in which free ranks they hold are one
    entry, its weight their sum (each holds an equal share). A fact that names a free rank
    splits the entries first (``_name``). ``unseen[r]``: the copies of r the player has
    not seen (in the opponent's hand or the lake); 4 for a free rank. Only public facts
    reach it: the rank of a card the opponent drew is read only when it paired (the pair is
    on the table).
    """

    __slots__ = ("belief", "unseen", "free")

    def __init__(self) -> None:
        self.belief: dict[Key, float] = {(0,): 1.0}
        self.unseen = [4] * _R
        self.free = (1 << _R) - 1

    def fork(self) -> Posterior:
        """A posterior that goes on from this one (a position shared by several games: the
        field's, the analysis's): the belief is shared, never written in place (every fact
        builds a new one), the copies seen are copied."""
        return self._fork_into(Posterior())

    def _fork_into(self, twin: P) -> P:
        twin.belief, twin.unseen, twin.free = self.belief, list(self.unseen), self.free
        return twin

    def _name(self, mask: int) -> None:
        """Make the free ranks of ``mask`` named ones: a hand holding k of the n free ranks
        holds a given one with chance k/n, as any one of the free cards of its blocks."""
        free = self.free & mask
        while free:
            bit = free & -free
            free ^= bit
            n = self.free.bit_count()
            split: dict[Key, float] = {}
            get = split.get
            for key, w in self.belief.items():
                summary = key[0]
                k = summary >> _R
                if k < n:
                    split[key] = get(key, 0.0) + w * (n - k) / n
                if not k:
                    continue
                named = (summary | bit) - _ONE_FREE
                for i in range(1, len(key)):
                    b = key[i]
                    f = (b & _FREE) >> _R
                    if f:
                        new = (named, *key[1:i], (b | bit) - _ONE_FREE, *key[i + 1 :])
                        split[new] = get(new, 0.0) + w * f / n
            self.belief = split
            self.free ^= bit

    # --- reading ---------------------------------------------------------------------

    def chances(self, ranks: Iterable[str]) -> tuple[float, ...]:
        """For each of ``ranks``, the chance that the opponent holds one."""
        ranks = list(ranks)
        self._name(mask_of(ranks))
        return self.weigh(ranks)[0]

    def weigh(self, ranks: Iterable[str]) -> tuple[tuple[float, ...], float]:
        """What the detector reads at an ask, in one pass over the hands: ``chances(ranks)``,
        and the chance that the opponent holds at least one of ``ranks``."""
        bits = [1 << RANK_INDEX[r] for r in ranks]
        mask = sum(bits)
        self._name(mask)  # the player's ranks are named already (it saw them)
        sums = [0.0] * len(bits)
        total = hit = 0.0
        for key, w in self.belief.items():
            total += w
            mine = key[0] & mask
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
        consistent with the table: games/analysis/). Sorted by rank."""
        entries = list(self.belief.items())
        u = rng.random() * sum(w for _, w in entries)
        chosen = entries[-1][0]  # rounding can leave u just above the last weight
        for key, w in entries:
            u -= w
            if u < 0:
                chosen = key
                break
        held, k = chosen[0] & _HELD, chosen[0] >> _R
        free = [q for q in range(_R) if self.free >> q & 1]
        ranks = [q for q in range(_R) if held >> q & 1] + rng.sample(free, k)
        return [RANKS[q] for q in sorted(ranks)]

    # --- the other outcomes hidden cards decide (the detector's channels) -------------

    def _levels(self, state: PecheState, exclude: int) -> list[tuple[int, bool]]:
        """The ranks the opponent could ask (named, not in ``exclude``, not paired twice) by
        level of their chance by the rules, highest first: (mask, whether the free ranks
        are at that level). Exact: a level is a reduced fraction."""
        levels: dict[tuple[int, int], int] = {}
        pairs_by_rank = state.pairs_by_rank
        free = self.free
        for q in RANKS:
            b = 1 << RANK_INDEX[q]
            if exclude & b or free & b or pairs_by_rank[q] == 2:
                continue
            n, d = opponent_miss(state, q)
            g = gcd(n, d)
            key = (n // g, d // g)
            levels[key] = levels.get(key, 0) | b
        free_level = None
        if free:
            n, d = opponent_miss(state, RANKS[(free & -free).bit_length() - 1])
            g = gcd(n, d)
            free_level = (n // g, d // g)
            levels.setdefault(free_level, 0)
        # the highest chance is the lowest chance of a miss, n/d
        order = sorted(levels, key=cmp_to_key(_by_chance))
        return [(levels[key], key == free_level) for key in order]

    def opponent_finds(self, state: PecheState) -> float:
        """The table's chance that the opponent's coming ask names a rank the player holds:
        for each hand, the opponent's rule (``choice`` reads it the same way) picks the
        first rank in its hand's order that it knows the player holds, if any (a find),
        else the first of its ranks with the highest chance by ``opponent_miss``; where the
        order within a block is not known, each of the block's tied ranks alike. A find
        when that rank is the player's. Call it before ``choice`` (the hook that learns
        from the answer)."""
        mine = mask_of(state.hands[PLAYER])
        known_mask = mask_of(state.knowledge.known)
        order = self._levels(state, known_mask)
        total = found = 0.0
        for key, w in self.belief.items():
            total += w
            h = key[0]
            if h & known_mask:
                found += w  # every rank it knows the player holds is the player's
                continue
            k = h >> _R
            for mask, with_free in order:
                top = h & mask
                count = top.bit_count() + (k if with_free else 0)
                if not count:
                    continue
                if not top & mine:
                    break  # no rank of the level is the player's
                if count == 1:
                    found += w
                    break
                for b in key[1:]:  # the first block that holds a rank of the level
                    t = b & mask
                    c = t.bit_count() + ((b & _FREE) >> _R if with_free else 0)
                    if c:
                        found += w * (t & mine).bit_count() / c
                        break
                break
        return found / total

    def draw_pairs(self, state: PecheState, seat: int, lake: int) -> float:
        """The table's chance that the card ``seat`` draws from a lake of ``lake`` cards
        pairs in its hand (before the posterior learns what it was): for the player, a rank
        it holds, of which the lake keeps the unseen copies less the opponent's; for the
        opponent, a rank of its hand, of which the lake keeps the unseen copies less its own."""
        unseen = self.unseen
        total = pairs = 0.0
        if seat == PLAYER:
            ranks = [RANK_INDEX[r] for r in state.hands[PLAYER]]
            base = sum(unseen[r] for r in ranks)
            mask = sum(1 << r for r in ranks)
            for key, w in self.belief.items():
                total += w
                pairs += w * (base - (key[0] & mask).bit_count())
        else:
            named = [(1 << r, unseen[r] - 1) for r in range(_R) if not self.free >> r & 1]
            by_hand: dict[int, float] = {}  # the hands' ranks are all that matter here
            for key, w in self.belief.items():
                by_hand[key[0]] = by_hand.get(key[0], 0.0) + w
            for h, w in by_hand.items():
                total += w
                # a free rank it holds has 3 copies left in the lake
                pairs += w * (sum(c for b, c in named if h & b) + 3 * (h >> _R))
        return pairs / total / lake

    def _keep(self, belief: dict[Key, float]) -> None:
        total = sum(belief.values())
        if not total:  # no deal agrees with the table: a bug in a fact, never a game
            raise AssertionError("no deal is consistent with the table")
        if total < 1e-200 or total > 1e200:
            belief = {key: w / total for key, w in belief.items()}
        self.belief = belief

    # --- the loop's hooks: public facts only ------------------------------------------

    def choice(self, state: PecheState, rank: str) -> None:
        known = state.knowledge.known
        bit = 1 << RANK_INDEX[rank]
        known_mask = mask_of(known)
        self._name(bit | known_mask)
        higher = 0  # named ranks it cannot hold, having chosen ``rank``
        free_higher = free_tied = False
        if rank in known:
            tied = known_mask  # the first rank of ``known`` in its hand
        else:
            n, d = opponent_miss(state, rank)
            higher = known_mask
            tied = 0
            pairs_by_rank = state.pairs_by_rank
            free = self.free
            for q in RANKS:
                b = 1 << RANK_INDEX[q]
                if q in known or pairs_by_rank[q] == 2 or free & b:
                    continue
                n2, d2 = opponent_miss(state, q)
                if n2 * d < n * d2:  # a strictly higher chance
                    higher |= b
                elif n2 * d == n * d2:
                    tied |= b
            if free:  # the free ranks share one chance: no fact has told them apart
                n2, d2 = opponent_miss(state, RANKS[(free & -free).bit_length() - 1])
                free_higher, free_tied = n2 * d < n * d2, n2 * d == n * d2
        kept: dict[Key, float] = {}
        get = kept.get
        fact = _FACTORIAL
        for key, w in self.belief.items():
            h = key[0]
            if not h & bit or h & higher or (free_higher and h >= _ONE_FREE):
                continue
            if (h & tied).bit_count() + (h >> _R if free_tied else 0) == 1:
                kept[key] = get(key, 0.0) + w  # no tie: r is the only one
                continue
            # ``rank`` is the first tied rank in its hand: it is in the first block that
            # holds one, and first of that block's tied ranks.
            i = 1
            while True:
                b = key[i]
                t = b & tied
                f = (b & _FREE) >> _R if free_tied else 0
                if t or f:
                    break
                i += 1
            if not t & bit:
                continue
            s = t.bit_count() + f
            if s == 1:
                kept[key] = get(key, 0.0) + w
                continue
            # The block's orders with ``rank`` first of its tied ranks, 1/s of them, by
            # which of its other ranks come before it (X, any order) and which after (with
            # the other tied ones, any order): x!·(others − x + s − 1)! orders each.
            others = b & _HELD & ~tied
            free_others = 0 if free_tied else (b & _FREE) >> _R
            after_tied = (t ^ bit) | (f << _R)
            nothers = others.bit_count() + free_others
            scale = w / fact[nothers + s]
            head, tail = key[1:i], key[i + 1 :]
            for sub in _submasks(others):
                xn = sub.bit_count()
                for xf in range(free_others + 1):
                    x = xn + xf
                    weight = scale * comb(free_others, xf) * fact[x] * fact[nothers - x + s - 1]
                    before = sub | xf << _R
                    after = (others ^ sub) | (free_others - xf) << _R | after_tied
                    new = _canon(h, (*head, before, bit, after, *tail))
                    kept[new] = get(new, 0.0) + weight
        self._keep(kept)

    def asked(self, state: PecheState, seat: int, rank: str, given: str | None, fished: bool) -> None:
        r = RANK_INDEX[rank]
        bit = 1 << r
        self._name(bit)
        if given is None:
            if seat == PLAYER:
                self._keep({key: w for key, w in self.belief.items() if not key[0] & bit})
            return
        # The opponent's card leaves its hand, face up (asked by the player: it held one;
        # asked for by the opponent: its choice held one).
        gone: dict[Key, float] = {}
        get = gone.get
        for key, w in self.belief.items():
            if key[0] & bit:
                new = _without(key, bit)
                gone[new] = get(new, 0.0) + w
        self._keep(gone)
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
            self._keep(
                {key: w * (c - 1 if key[0] & bit else c) for key, w in self.belief.items() if c - (key[0] >> r & 1) > 0}
            )
            unseen[r] = c - 1
        elif paired:  # the opponent drew an r and laid the pair: it held the other
            r = RANK_INDEX[RANK_OF[card]]
            bit = 1 << r
            self._name(bit)
            c = unseen[r] - 1
            gone: dict[Key, float] = {}
            get = gone.get
            for key, w in self.belief.items():
                if key[0] & bit:
                    new = _without(key, bit)
                    gone[new] = get(new, 0.0) + w * c
            self._keep(gone)
            unseen[r] -= 2
        else:  # the opponent drew a card that paired with nothing: a rank it lacked
            dealing = state.lake_next == 10  # dealt: the deal's block (order unseen)
            grown: dict[Key, float] = {}
            get = grown.get
            free = self.free
            n = free.bit_count()
            copies = [(1 << q, unseen[q]) for q in range(_R) if unseen[q] and not free >> q & 1]
            for key, w in self.belief.items():
                h = key[0]
                k = h >> _R
                if dealing:
                    for bit, c in copies:
                        if not h & bit:
                            new = _dealt(key, bit)
                            grown[new] = get(new, 0.0) + w * c
                    if k < n:  # one of the free ranks it lacked, 4 copies each in the lake
                        new = _dealt(key, _ONE_FREE)
                        grown[new] = get(new, 0.0) + w * 4 * (n - k)
                    continue
                last = key[-1] if len(key) > 1 else 0
                if last & OPEN:  # it joins the draws not told apart yet
                    head = key[1:-1]
                    for bit, c in copies:
                        if not h & bit:
                            new = (h | bit, *head, last | bit)
                            grown[new] = get(new, 0.0) + w * c
                    if k < n:
                        new = (h + _ONE_FREE, *head, last + _ONE_FREE)
                        grown[new] = get(new, 0.0) + w * 4 * (n - k)
                    continue
                body = key[1:]
                for bit, c in copies:
                    if not h & bit:
                        new = (h | bit, *body, bit | OPEN)
                        grown[new] = get(new, 0.0) + w * c
                if k < n:
                    new = (h + _ONE_FREE, *body, _ONE_FREE | OPEN)
                    grown[new] = get(new, 0.0) + w * 4 * (n - k)
            self._keep(grown)
