"""Cards, the one seeded shuffle of docs/rules.md §1 (SHA-256 Fisher–Yates), and the one
chance every simulated opponent weighs (hypergeometric, exact)."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator
from functools import cache, lru_cache

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
RANK_SET = frozenset(RANKS)
RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
UNSHUFFLED: tuple[str, ...] = tuple(RANKS[i // 4] + SUITS[i % 4] for i in range(52))
CARD_SET = frozenset(UNSHUFFLED)
# card -> rank ('10H' -> '10'): a dict lookup, not a slice, because the engines' hot
# loops read it once per card moved (docs/benchmarks.md, "Profile-driven changes").
RANK_OF: dict[str, str] = {card: card[:-1] for card in UNSHUFFLED}


def rank_of(card: str) -> str:
    """'10H' -> '10', 'QS' -> 'Q'; KeyError for a string that is not a card."""
    return RANK_OF[card]


# Cached: an opponent asks the same (total, copies, slots) question again and again in a
# game and across replays, and the products are exact big integers (docs/benchmarks.md).
@cache
def miss_chance(total: int, copies: int, slots: int) -> tuple[int, int]:
    """(N, D): the exact chance N/D that none of ``copies`` cards of a rank is among
    ``slots`` of ``total`` unknown cards, placed uniformly (hypergeometric):
    N/D = Π_{i<slots} (total − copies − i) / (total − i), not reduced."""
    if slots > total - copies:
        return 0, 1  # a factor reaches 0: the rank must turn up among the slots
    n = d = 1
    for i in range(slots):
        n *= total - copies - i
        d *= total - i
    return n, d


def _words(seed: str) -> Iterator[int]:
    """u32() of docs/rules.md §1: the big-endian 4-byte words of SHA-256(seed + ':' + k), k = 0, 1, …"""
    prefix = seed.encode("utf-8") + b":"
    k = 0
    while True:
        # A 32-byte block is exactly 8 words, so a word never straddles two blocks.
        yield from _EIGHT_WORDS.unpack(hashlib.sha256(prefix + str(k).encode("ascii")).digest())
        k += 1


# One unpack of 8 words per SHA-256 block instead of 8 slices (docs/benchmarks.md).
_EIGHT_WORDS = struct.Struct(">8I")
# Precomputed: below(n)'s rejection limit, floor(2**32 / n) * n, for every n the shuffle uses.
_LIMITS = {n: (2**32 // n) * n for n in range(2, 53)}


def shuffled_deck(seed: str) -> list[str]:
    """The deck for a seed; index 0 is the top card, dealt first."""
    if not isinstance(seed, str) or not seed:
        raise ValueError("a seed is a non-empty string")
    return list(_shuffled(seed))


# Cached per process: a stored game is replayed from its seed on every ask, and every game
# of a day (and every verification of it) deals the same seed; the shuffle was ~4 % of an
# ask (docs/benchmarks.md, "Instructions per request"). A pure function of the seed, so a
# cached deck is the deck. Bounded: casual games each deal a seed of their own.
@lru_cache(maxsize=4096)
def _shuffled(seed: str) -> tuple[str, ...]:
    deck = list(UNSHUFFLED)
    words = _words(seed)
    for i in range(51, 0, -1):
        n = i + 1
        limit = _LIMITS[n]
        x = next(words)
        while x >= limit:  # below(n): reject to stay uniform
            x = next(words)
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def check_deck(deck: object) -> list[str]:
    """A chosen deal must be a permutation of the 52 cards."""
    if not isinstance(deck, (list, tuple)) or len(deck) != 52 or set(deck) != CARD_SET:
        raise ValueError("a deck is a list of the 52 distinct cards")
    return list(deck)
