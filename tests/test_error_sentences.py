"""Every error code the API can answer has a sentence for people in the four languages:
the codes are read from the API's own declaration (its schema's error responses, and the
codes config/errors.py gives a status or maps DRF's refusals to), and each is found in
the pages' shared message table (frontend/static/frontend/errors.js), translated. A code
raised by the code but declared nowhere fails here too, so the list cannot fall behind."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from config import errors
from tests.test_voice import catalogue

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "frontend" / "static" / "frontend" / "errors.js"
SCHEMA = ROOT / "docs" / "openapi.yaml"  # what the code generates (tests/test_ops_schema.py)
# The pages that call the API, each falling back on the shared table.
PAGES = [
    "frontend/static/frontend/daily.js",
    "frontend/static/frontend/account.js",
    "leagues/static/leagues/messages.js",
    "casual/static/kitten/main.js",
    "casual/static/gofish/main.js",
]
# Codes raised in the code that never reach an API answer, and why.
NOT_THE_API = {
    "not_over": "the engine's outcome of an unfinished game: the API asks it of finished games only",
    "bad_seat": "the engine's view of a seat: the API shows seat 0",
    "unknown_game": "a game name in a URL is a 404 not_found before any engine is asked",
    "incomplete": "a replay's verdict (manage.py replay, the verification's reason), not an answer",
    "extra_moves": "the same",
    "not_held": "the reviewers' admin pages (a message there, not the API)",
    "group_changed": "the same",
    "week_changed": "the same",
    "throttled": "the same",
    "not_finished": "the admin's replay inspector",
}


def declared_codes() -> set[str]:
    schema = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    codes = set()
    for operations in schema["paths"].values():
        for operation in operations.values():
            for status, response in (operation.get("responses") or {}).items():
                if status[0] in "45":
                    codes.update(re.findall(r"`([a-z]+(?:_[a-z]+)*)`", response.get("description", "")))
    codes -= {"move"}  # a field named in a sentence ("`move` is not the number of asks made")
    return codes | set(errors.STATUS) | set(errors._DRF_CODES.values())


def table() -> dict[str, list[str]]:
    """errors.js's codes, each with the English sentences it may say."""
    text = TABLE.read_text(encoding="utf-8")
    shared = dict(re.findall(r'^const (\w+) = \(\) => gettext\("((?:[^"\\]|\\.)*)"\);', text, re.M))
    body = text[text.index("export const ERRORS = {") : text.index("\n};")]
    found: dict[str, list[str]] = {}
    for code, said in re.findall(r"^  (\w+): (.*?)(?=^  \w+: |\Z)", body, re.M | re.S):
        sentences = re.findall(r'gettext\("((?:[^"\\]|\\.)*)"\)', said)
        found[code] = sentences or [shared[said.strip().rstrip(",")]]
    return found


def test_every_declared_code_has_a_sentence_in_the_four_languages():
    sentences = table()
    missing = sorted(declared_codes() - set(sentences))
    assert not missing, f"error codes with no sentence in errors.js: {missing}"
    for lang in ("fr", "de", "ja"):
        translated = {msgid for path, context, msgid, said in catalogue(lang) if "djangojs" in path and said}
        untranslated = sorted({s for said in sentences.values() for s in said} - translated)
        assert not untranslated, (lang, untranslated)
    # Not the catch-all: each says what happened.
    assert not [code for code, said in sentences.items() if any("Something went wrong" in s for s in said)]
    assert sentences["reserved_name"] == ["This name reads as the site's own (its staff or its name): choose another."]


def test_every_code_the_code_raises_is_declared():
    raised: set[str] = set()
    pattern = re.compile(r'(?:ApiError|DomainError|GameError|ReplayError|ReviewRefused)\(\s*"([a-z_]+)"')
    for app in ("challenges", "leaderboard", "leagues", "casual", "config", "games"):
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" not in path.parts:
                raised.update(pattern.findall(path.read_text(encoding="utf-8")))
    assert raised, "the pattern finds the codes"
    undeclared = sorted(raised - declared_codes() - set(NOT_THE_API))
    assert not undeclared, f"raised but in no error response of the schema: {undeclared}"


def test_each_page_that_calls_the_api_falls_back_on_the_shared_sentences():
    for page in PAGES:
        text = (ROOT / page).read_text(encoding="utf-8")
        assert "errorSentence" in text and "errors.js" in text, page
