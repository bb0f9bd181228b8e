"""Cards and the one seeded shuffle of RULES.md §1 (SHA-256 Fisher–Yates)."""
from __future__ import annotations

import hashlib

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
RANK_SET = frozenset(RANKS)
RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
UNSHUFFLED: tuple[str, ...] = tuple(RANKS[i // 4] + SUITS[i % 4] for i in range(52))
CARD_SET = frozenset(UNSHUFFLED)


def rank_of(card: str) -> str:
    """'10H' -> '10', 'QS' -> 'Q'."""
    return card[:-1]


class _ByteStream:
    """Blocks SHA-256(seed + ':' + k) concatenated; read 4 bytes at a time."""

    __slots__ = ("_prefix", "_k", "_buf", "_pos")

    def __init__(self, seed: str) -> None:
        self._prefix = seed.encode("utf-8") + b":"
        self._k = 0
        self._buf = b""
        self._pos = 0

    def u32(self) -> int:
        # A SHA-256 block is 32 bytes, a multiple of 4, so a u32 never straddles blocks.
        if self._pos >= len(self._buf):
            self._buf = hashlib.sha256(self._prefix + str(self._k).encode("ascii")).digest()
            self._k += 1
            self._pos = 0
        p = self._pos
        self._pos = p + 4
        return int.from_bytes(self._buf[p : p + 4], "big")

    def below(self, n: int) -> int:
        limit = (2**32 // n) * n
        while True:
            x = self.u32()
            if x < limit:
                return x % n


def shuffled_deck(seed: str) -> list[str]:
    """The deck for a seed; index 0 is the top card, dealt first."""
    if not isinstance(seed, str) or not seed:
        raise ValueError("a seed is a non-empty string")
    deck = list(UNSHUFFLED)
    stream = _ByteStream(seed)
    for i in range(51, 0, -1):
        j = stream.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def check_deck(deck: object) -> list[str]:
    """A chosen deal must be a permutation of the 52 cards."""
    if not isinstance(deck, (list, tuple)) or len(deck) != 52 or set(deck) != CARD_SET:
        raise ValueError("a deck is a list of the 52 distinct cards")
    return list(deck)
