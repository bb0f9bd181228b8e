"""The analysis outside the replay, in Chromium: a closed day's end panel says your accuracy
and the day's par; your page your accuracy per day and its trend. Axe finds no serious
violation, at 1280 and 390 px."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from .conftest import no_horizontal_scroll, screenshot
from .test_accessibility import violations
from .test_replay import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("analysis_inline")]


def last_rank(state) -> str:
    return list(state.hands[0])[-1]


@pytest.mark.parametrize("width", [1280, 390])
def test_a_closed_day_s_end_panel_and_your_page_show_your_accuracy(new_page, width):
    from challenges import analysis_jobs
    from challenges.models import DayPar, GameAnalysis
    from tests.conftest import verified_game

    first = verified_game("Trend Tia", day=dt.date(2026, 6, 2))
    second = verified_game(day=dt.date(2026, 6, 3), player=first.player, choose=last_rank)
    for attempt in (first, second):
        analysis_jobs.attempt_analyse(attempt_id=attempt.pk)
    today = verified_game(player=first.player)
    page = new_page(locale="fr-FR", viewport={"width": width, "height": 844 if width < 600 else 800})
    page.context.add_cookies([{"name": "sessionid", "value": session_for(first), "url": page.base}])

    # The day still open: the end panel says when the analysis opens, and shows none.
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#end-replays:not([hidden])")
    assert page.locator("#end-analysis").count() == 0
    assert not GameAnalysis.objects.filter(attempt=today).exists()

    # Closed: the end panel asks for the analysis (worked out then) and shows it with the par.
    type(today.challenge).objects.filter(pk=today.challenge_id).update(
        reveals_at=timezone.now() - dt.timedelta(minutes=1)
    )
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#end-analysis", timeout=60_000)
    analysis = GameAnalysis.objects.get(attempt=today)
    par = DayPar.objects.get(challenge=today.challenge)
    text = page.text_content("#end-analysis")
    assert f"{round(analysis.accuracy)} %" in text and str(par.score) in text
    page.locator("#end-replays").scroll_into_view_if_needed()
    screenshot(page, f"end-analysis-{width}")
    assert not violations(page)

    # Your page: the accuracy of each analysed day, and the trend drawn.
    page.goto(page.base + f"/players/{first.player_id}/")
    cells = page.eval_on_selector_all("td.accuracy", "cs => cs.map(c => c.textContent.trim())")
    assert f"{round(analysis.accuracy)} %" in cells and sum(c.endswith("%") for c in cells) == 3
    assert page.locator("svg.trend-chart polyline").count() == 1
    assert no_horizontal_scroll(page)
    page.locator("#trend-title").scroll_into_view_if_needed()
    screenshot(page, f"me-trend-{width}")
    assert not violations(page)
