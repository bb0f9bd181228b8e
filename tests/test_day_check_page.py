"""The leaderboard's "Check this day" outside the browser: only closed days offer
it, its page stays within the weight budget with the engine it loads on demand, and every
sentence it says exists in the four languages."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from challenges import days
from tests.test_pages import STATIC, own_assets

pytestmark = pytest.mark.django_db(transaction=True)

CLOSED_DAY = dt.date(2026, 6, 2)


def test_only_a_closed_day_offers_the_check(client):
    from challenges import services

    services.challenge_for_day(day=days.today())
    services.challenge_for_day(day=CLOSED_DAY)
    today = client.get(f"/leaderboard/{days.today().isoformat()}/").content.decode()
    assert 'id="day-check"' not in today and "day-check.js" not in today
    closed = client.get(f"/leaderboard/{CLOSED_DAY.isoformat()}/").content.decode()
    assert f'<section id="day-check" class="day-check" data-date="{CLOSED_DAY.isoformat()}"' in closed
    assert '<script type="module" src="/static/frontend/day-check.js">' in closed
    assert 'id="seed"' in closed and 'id="commitment"' in closed  # what the check reads


def test_the_checked_page_weighs_at_most_60_kb_with_its_engine(client):
    from challenges import services

    services.challenge_for_day(day=CLOSED_DAY)
    assets = own_assets(client.get(f"/leaderboard/{CLOSED_DAY.isoformat()}/").content.decode())
    assert {"frontend/day-check.js", "frontend/api.js", "frontend/dom.js"} <= assets.keys()
    # Loaded by import() on the first check, which own_assets does not follow: counted here.
    assert 'import("./peche-check.js")' in (STATIC / "day-check.js").read_text()
    assert sum(assets.values()) + (STATIC / "peche-check.js").stat().st_size <= 60_000, assets


def js_messages(text: str) -> set[str]:
    """The literal msgids of gettext()/ngettext() calls (singular and plural)."""
    literal = r'"((?:[^"\\]|\\.)*)"'
    found = set(re.findall(r"\bgettext\(\s*" + literal, text))
    for singular, plural in re.findall(r"\bngettext\(\s*" + literal + r",\s*" + literal, text):
        found |= {singular, plural}
    return found


def test_every_sentence_of_the_check_is_translated():
    messages = js_messages((STATIC / "day-check.js").read_text())
    assert len(messages) >= 20 and "Every check passed." in messages
    locale = Path(STATIC).parents[1] / "locale"
    for lang in ("fr", "de", "ja"):
        po = (locale / lang / "LC_MESSAGES" / "djangojs.po").read_text()
        ids = set(re.findall(r'^msgid(?:_plural)? "(.*)"$', po, re.M))
        assert messages <= ids, (lang, sorted(messages - ids))
