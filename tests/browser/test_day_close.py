"""The daily page at the close, in the four languages: the last minutes count down, then
an ask is refused with a sentence (not a code) and the game goes on as practice."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from .conftest import screenshot
from .test_daily import FAST, start_as_guest, wait_my_turn_or_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLOSING = {
    "en": "The day is closing: finish your game within 00:0",
    "fr": "La journée se termine : finissez votre partie d'ici 00:0",
    "de": "Der Tag endet: Beende deine Partie innerhalb von 00:0",
    "ja": "まもなく締め切りです。順位に載るには残り00:0",
}
CLOSED = {
    "en": "This day has closed: your unfinished game no longer counts.",
    "fr": "Cette journée est close : votre partie inachevée ne compte plus.",
    "de": "Dieser Tag ist vorbei: Deine unvollendete Partie zählt nicht mehr.",
    "ja": "この日の受付は終了しました。未完了の対局は順位に数えられません。",
}


@pytest.mark.parametrize("lang", ["en", "fr", "de", "ja"])
def test_the_close_counts_down_then_ends_the_ranked_game(new_page, lang):
    from challenges.models import Attempt, DailyChallenge

    page = new_page(locale=lang)
    page.add_init_script(FAST)
    start_as_guest(page, f"Closing {lang}")
    wait_my_turn_or_end(page)
    page.keyboard.press("Enter")
    page.wait_for_function("document.getElementById('asks').textContent === '1'")
    attempt = Attempt.objects.get(player__name=f"Closing {lang}")
    # Hours before the close, whatever the clock says: a run in the minutes before midnight
    # is in the countdown already (a CI run at 23:58 UTC failed here).
    DailyChallenge.objects.filter(pk=attempt.challenge_id).update(reveals_at=timezone.now() + dt.timedelta(hours=3))
    page.reload()
    wait_my_turn_or_end(page)
    assert page.locator("#close-notice").is_hidden()  # hours before the close: nothing to say

    DailyChallenge.objects.filter(pk=attempt.challenge_id).update(reveals_at=timezone.now() + dt.timedelta(minutes=5))
    page.reload()
    page.wait_for_selector("#close-notice:not([hidden])")
    assert page.text_content("#close-text").startswith(CLOSING[lang])
    screenshot(page, f"daily-closing-{lang}")

    DailyChallenge.objects.filter(pk=attempt.challenge_id).update(reveals_at=timezone.now() - dt.timedelta(seconds=1))
    page.expected_errors.append("409 (Conflict)")
    wait_my_turn_or_end(page)
    page.locator("#hand button").first.click()
    page.wait_for_selector("#close-notice[data-closed=true]")
    assert page.text_content("#close-text") == CLOSED[lang]
    assert page.locator("#error").is_hidden()  # the sentence above, not "(day_closed)"
    assert page.locator("#hand button").count() == 0 or page.locator(".hand-box").is_hidden()
    attempt.refresh_from_db()
    assert len(attempt.moves) == 1
    screenshot(page, f"daily-closed-{lang}")

    # The practice page of that day goes on where the game stopped (tests/test_day_close.py).
    assert page.get_attribute("#practice-link", "href") == f"/daily/{attempt.challenge.date.isoformat()}/"
    assert page.locator("#practice-link").is_visible()
