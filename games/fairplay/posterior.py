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
when it leaves the range of floats. At most C(13, 6) = 1,716 sets; a game's posterior costs
a few milliseconds (docs/fairplay.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from games.rules.cards import RANK_INDEX, RANK_OF, RANKS
from games.rules.peche import PLAYER, Observer, PecheState, opponent_miss

_R = len(RANKS)


def mask_of(ranks: Iterable[str]) -> int:
    out = 0
    for r in ranks:
        out |= 1 << RANK_INDEX[r]
    return out


class Posterior(Observer):
    """The posterior over the opponent's hand, kept by the loop's hooks (a peche.Observer).

    ``belief``: {set of ranks as a mask: weight}; ``unseen[r]``: the copies of r the player
    has not seen (in the opponent's hand or the lake). Only public facts reach it: the rank
    of a card the opponent drew is read only when it paired (the pair is on the table).
    """

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
