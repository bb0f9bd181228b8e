"""The day's explorer on a public replay, in Chromium: beside each ask, how the day's
players asked at that point (the share who asked the same, their mean score) and the
engine's ask, in the four languages at 1280 and 390 px; its line keeps its space while it
loads (nothing below it moves), and a step seen again asks the server nothing."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from .conftest import no_horizontal_scroll, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("analysis_inline")]

CLOSED = dt.date(2026, 6, 2)
# 67 %, as each language writes a share (a space or a no-break one before the sign, or none).
TWO_THIRDS = re.compile("67[ \u00a0\u202f]?%")
ENGINE_WORD = {"en-US": "engine", "fr-FR": "moteur", "de-DE": "Engine", "ja-JP": "エンジン"}


def first_card(state) -> str:
    return next(iter(state.hands[0]))


def second_card(state) -> str:
    hand = list(state.hands[0])
    return hand[1 % len(hand)]


@pytest.mark.parametrize("locale", ["en-US", "fr-FR", "de-DE", "ja-JP"])
@pytest.mark.parametrize("width", [1280, 390])
def test_each_ask_says_how_the_day_s_players_asked_there(new_page, locale, width):
    from leaderboard import positions
    from tests.conftest import verified_game

    positions.forget()
    shown = verified_game(f"Explorer {locale[:2]}", day=CLOSED, choose=first_card)
    verified_game("Same Habit", day=CLOSED, choose=first_card)
    verified_game("Other Habit", day=CLOSED, choose=second_card)
    from games.rules.peche import ENGINE

    dealt = ENGINE.new(seed=shown.challenge.seed)
    assert first_card(dealt) == shown.moves[0] != second_card(dealt)

    page = new_page(locale=locale, viewport={"width": width, "height": 844 if width < 600 else 800})
    asked: list[str] = []
    held: list = []
    page.route(
        re.compile(r"/api/challenges/.*/positions"), lambda route: (asked.append(route.request.url), held.append(route))
    )
    page.goto(page.base + f"/replays/{shown.pk}/")
    # The summary keeps its place before the analysis comes: wait for the analysis itself.
    page.wait_for_selector("#analysis-summary[data-ready=true]", timeout=60_000)
    assert not page.locator("#step-explorer").is_visible()  # the deal: no ask yet
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.querySelector('#step-explorer.loading') !== null")
    page.wait_for_timeout(100)
    # Loading: its lines are kept already; the answer arriving moves nothing below it.
    loading = page.evaluate(
        "[document.querySelector('#step-explorer').getBoundingClientRect().height,"
        " document.querySelector('.replay-felt').getBoundingClientRect().top]"
    )
    assert len(held) == 1 and asked[0].endswith("positions?moves=")
    for route in held:
        route.continue_()
    held.clear()
    page.wait_for_selector("#step-explorer:not(.loading)")
    done = page.evaluate(
        "[document.querySelector('#step-explorer').getBoundingClientRect().height,"
        " document.querySelector('.replay-felt').getBoundingClientRect().top]"
    )
    assert done == loading, (loading, done)
    text = page.text_content("#step-explorer")
    # Two of the three players asked what this one asked first.
    assert TWO_THIRDS.search(text) and ENGINE_WORD[locale] in text, text
    assert "3" in text
    page.locator("#step-explorer").scroll_into_view_if_needed()
    screenshot(page, f"replay-explorer-{locale[:2]}-{width}")

    # The next ask, then back: the first is not asked for again.
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(100)
    for route in held:
        route.continue_()
    held.clear()
    page.wait_for_selector("#step-explorer:not(.loading)")
    assert len(asked) == 2 and asked[1].endswith("moves=" + shown.moves[0])
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#step-explorer:not(.loading)")
    assert len(asked) == 2 and TWO_THIRDS.search(page.text_content("#step-explorer"))
    assert no_horizontal_scroll(page)
