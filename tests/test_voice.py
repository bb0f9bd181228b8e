"""One voice per language, read from the translation catalogues of every app (frontend,
leagues, casual; the pages' and the scripts' domains): French says "vous" (the Kitten
fishing seed's register, its messages word for word; German keeps "du", as its seed) with
French typography, each game has one name per language (the seeds'
names), and a message without a context says the same thing on every page."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("fr", "de", "ja")


def entries(text: str) -> list[dict[str, str]]:
    """A .po file's entries as {field: text}: msgctxt, msgid, msgid_plural, msgstr,
    msgstr[0]…, each with its continuation lines joined (entries need no blank line
    between them)."""
    found: list[dict[str, str]] = []
    entry: dict[str, str] = {}
    field = ""
    for line in text.splitlines():
        keyword = re.match(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d\])?) (\".*\")$", line)
        if keyword:
            field = keyword.group(1)
            if field in ("msgctxt", "msgid") and ("msgid" in entry or field == "msgctxt" and entry):
                found.append(entry)
                entry = {}
            entry[field] = keyword.group(2)[1:-1]
        elif line.startswith('"') and field:
            entry[field] += line[1:-1]
        elif not line.strip() or line.startswith("#"):
            field = ""
    if entry:
        found.append(entry)
    return found


def catalogue(lang: str) -> list[tuple[str, str | None, str, str]]:
    """(file, context, msgid, msgstr) of every translated message of ``lang``; a plural's
    forms each count as a message, their msgid marked with the form ("…[1]")."""
    found = []
    for path in sorted(ROOT.glob(f"*/locale/{lang}/LC_MESSAGES/*.po")):
        for entry in entries(path.read_text(encoding="utf-8")):
            if not entry.get("msgid"):
                continue  # the header
            for field, said in entry.items():
                if field.startswith("msgstr"):
                    form = field[len("msgstr") :]  # a plural's form: "[0]", "[1]"
                    found.append((str(path.relative_to(ROOT)), entry.get("msgctxt"), entry["msgid"] + form, said))
    return found


def test_every_app_has_its_catalogues():
    assert {Path(f).parts[0] for f, *_ in catalogue("fr")} == {"frontend", "leagues", "casual"}


# "tu" and its forms (te, t', toi, ton, ta, tes, le tien…), and the imperatives of "tu" a
# sentence may open with (Choisis, Touche…; "Va à la pêche !" is the game's call, quoted).
INFORMAL = re.compile(
    r"(?i:\b(?:tu|te|toi|ton|ta|tes|tien|tienne|tiens|tiennes)\b|\bt['’](?=\w))|"
    r"(?:^|[.:;!?»]\s*)(?:Choisis|Touche|Attends|Réessaie|Recharge|Tape|Essaie|Reviens|Repars|Joue|Rejoue|Affiche|"
    r"Ouvre|Invite|Envoie|Copie|Réclame|Appuie|Clique|Crée|Rejoins|Quitte|Finis|Connecte|Vérifie)\b",
)
RULES_FR = ROOT / "frontend" / "templates" / "frontend" / "rules" / "rules.fr.html"


def informal(text: str) -> list[str]:
    return INFORMAL.findall(text.replace("\u00a0", " ").replace("\u202f", " "))


def test_french_says_vous_everywhere():
    said = [(f, text) for f, _, _, text in catalogue("fr") if informal(text)]
    assert not said, said
    rules = re.sub(r"\{[#%].*?[#%]\}|<[^>]+>", " ", RULES_FR.read_text(encoding="utf-8"))
    assert not informal(rules), informal(rules)


def test_the_voice_rule_can_tell():
    assert (
        informal("Touche ta pile pour retourner")
        and informal("Tu prends 4 cartes")
        and informal("Attends l’adversaire")
    )
    assert informal("Connecte-toi") and informal("Impossible de t'en donner")
    assert not informal("Touchez votre pile pour retourner. Appuyez sur la touche Entrée. « Va à la pêche ! »")


# The Kitten fishing seed's French messages (shared/seeds/000…), word for word; the pages
# set them with French typography (a no-break space before ! and :), the only difference.
KITTEN_SEED_FR = [
    "Touchez votre pile pour retourner",
    "Attendez l’adversaire",
    "Pêché ! Vous prenez 4 cartes",
    "Dans cette partie, l’adversaire retourne en premier",
    "Limite de coups : le plus de cartes l’emporte",
]


def test_kitten_fishing_says_the_seed_s_french_word_for_word():
    spaced = {re.sub(r"[\u00a0\u202f]", " ", text).replace("%(n)s", "4") for _, _, _, text in catalogue("fr")}
    missing = [message for message in KITTEN_SEED_FR if message not in spaced]
    assert not missing, missing


# French typography: a no-break space (U+00A0 or the narrow U+202F) before : ; ! ? and %,
# and inside « ». Times (00:05), addresses and placeholders are not sentences.
NOT_PROSE = re.compile(r"https?://\S+|\d:\d|%\(\w+\)s|\{\{[^}]*\}\}")
BAD_SPACE = re.compile(r"(?:[^\u00a0\u202f][:;!?»]|«[^\u00a0\u202f]|[\d)] ?%(?!\())")


def french_problems(text: str) -> list[str]:
    prose = NOT_PROSE.sub("x", text)
    return [m.group(0) for m in BAD_SPACE.finditer(prose)]


def test_french_typography_puts_a_no_break_space_before_double_punctuation():
    bad = [(f, said) for f, _, _, said in catalogue("fr") if french_problems(said)]
    assert not bad, bad
    rules = (ROOT / "frontend" / "templates" / "frontend" / "rules" / "rules.fr.html").read_text(encoding="utf-8")
    text = re.sub(r"\{[#%].*?[#%]\}|<[^>]+>", " ", rules)  # the prose, not the tags
    assert not french_problems(text), french_problems(text)


def test_the_typography_rule_can_tell():
    assert french_problems("Code: ABC") and french_problems("Code : ABC") and french_problems("« Va »")
    assert not french_problems("Code\u00a0: ABC, à 00:05, «\u00a0Va\u00a0»")


# Each game's one name per language: the seeds' (shared/seeds: 000 fr, 003 de, 002 ja
# for Kitten fishing, 004 fr for Go Fish); every message that names the game in English
# names it so, and the other names once used are gone.
NAMES = {
    "Kitten fishing": {"fr": "pêche du chaton", "de": "Kätzchen-Angeln", "ja": "子猫の魚釣り"},
    "Go Fish": {"fr": "Pêche aux cartes", "de": "Go Fish", "ja": "ゴーフィッシュ"},
}
OTHER_NAMES = {
    "fr": ["pêche aux chatons", "pêche aux familles"],
    "de": ["Kätzchenfischen", "Kätzchen-Fischen"],
    "ja": ["子猫釣り"],
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_game_has_one_name_per_language(lang):
    messages = catalogue(lang)
    for english, names in NAMES.items():
        naming = [(f, said) for f, _, msgid, said in messages if english in msgid]
        assert naming, english
        wrong = [(f, said) for f, said in naming if names[lang].lower() not in said.lower()]
        assert not wrong, (english, wrong)
    others = [(f, said) for f, _, _, said in messages for name in OTHER_NAMES[lang] if name.lower() in said.lower()]
    assert not others, others


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_message_says_the_same_on_every_page(lang):
    """A message without a context has one translation in every catalogue (a game's own
    words, such as Go Fish's "question" for an ask, have the game as context)."""
    said: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for f, context, msgid, text in catalogue(lang):
        if context is None:
            said[msgid.replace("%%", "%")].add((text.replace("%%", "%"), f))
    differing = {msgid: sorted(ways) for msgid, ways in said.items() if len({text for text, _ in ways}) > 1}
    assert not differing, differing


def test_the_japanese_ask_is_one_word():
    """An ask of the daily game (and the leagues' tables of it) is 要求, never 聞いた."""
    asks = [
        (f, text)
        for f, context, msgid, text in catalogue("ja")
        if context is None and re.search(r"\b[Aa]sks?\b", msgid)
    ]
    assert asks
    assert not [(f, text) for f, text in asks if "聞" in text], asks
