"""A public replay in Chromium: stepped by keyboard, the whole deal face up, the game
analysed ask by ask (each ask's verdict and value chart; the asks that cost link to their
step); no serious axe violation, in the four languages, at 1280 and 390 px."""

from __future__ import annotations

import datetime as dt

import pytest

from .conftest import no_horizontal_scroll, screenshot
from .test_accessibility import violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("analysis_inline")]


@pytest.mark.parametrize("locale", ["en-US", "fr-FR", "de-DE", "ja-JP"])
@pytest.mark.parametrize("width", [1280, 390])
def test_step_through_a_replay_and_its_analysis_with_the_keyboard(new_page, locale, width):
    from tests.test_admin import verified_attempt

    attempt = verified_attempt(f"Replay {locale[:2]}", day=dt.date(2026, 6, 2))
    page = new_page(locale=locale, viewport={"width": width, "height": 844 if width < 600 else 800})
    page.context.add_cookies([{"name": "sessionid", "value": session_for(attempt), "url": page.base}])
    # Every layout shift the page makes (the analysis arrives after the page is drawn).
    page.add_init_script(
        "window.shifts = 0; new PerformanceObserver((list) => { for (const e of list.getEntries())"
        " if (!e.hadRecentInput) { window.shifts += e.value; (window.shiftLog ||= []).push([e.value,"
        " ...e.sources.map((x) => x.node && (x.node.id || x.node.className))]); } }).observe({ type: 'layout-shift', buffered: true });"
    )
    page.goto(page.base + f"/replays/{attempt.pk}/")
    total = len(attempt.moves)
    from games.rules.peche import ENGINE

    dealt = ENGINE.new(seed=attempt.challenge.seed)
    shown = page.eval_on_selector_all("#opponent-cards .card", "cs => cs.map(c => c.className)")
    assert len(shown) == len(dealt.hands[1]) and page.locator("#lake-cards .card").count() == 42
    # The analysis is asked for by the page (worked out on that first request) and drawn.
    page.wait_for_selector("#analysis-summary[data-ready=true]", timeout=60_000)
    assert page.text_content("#analysis-accuracy").strip().endswith("%")
    assert page.text_content("#analysis-par").strip().isdigit()
    # Its place was kept: the analysis moves nothing as it arrives (Lighthouse's CLS ≤ 0.05).
    assert page.evaluate("window.shifts") <= 0.05, page.evaluate("window.shiftLog")
    # Luck and par in words, for a reader who is no statistician.
    analysis = page.request.get(page.base + f"/api/attempts/{attempt.pk}/analysis").json()
    words = page.text_content("#analysis-status")
    if locale == "en-US":
        pairs = f"{abs(analysis['luck']):.1f}"
        luck = (
            "The draws were worth what they are worth on average."
            if abs(analysis["luck"]) < 0.05
            else f"The draws were worth {pairs} pairs {'more' if analysis['luck'] > 0 else 'less'} than average."
        )
        share = round(100 * attempt.result.score / analysis["par"])
        assert words == f"{luck} The score is {share}% of the par.", words
    else:
        assert words and "draws" not in words and "engine" not in words, words  # translated
    assert not page.locator("#step-analysis").is_visible()  # the deal: no ask yet
    position = page.text_content("#position")
    page.keyboard.press("ArrowRight")
    assert page.text_content("#position") != position
    assert page.locator("#step-events li").count() >= 1
    # Ask 1 analysed: its verdict in words, a bar per rank in hand, named for screen readers.
    assert page.locator("#step-analysis").is_visible() and page.text_content("#step-verdict")
    in_hand = len(dealt.hands[0])
    assert page.locator("#step-values rect.bar").count() == in_hand
    assert page.get_attribute("#step-values", "aria-label").count(";") == in_hand - 1
    page.keyboard.press("End")
    assert str(total) in page.text_content("#position")
    assert page.locator("#step-events li").last.text_content()  # the end is told in words
    page.keyboard.press("Home")
    assert page.locator("#step-events li").count() == 0
    # This deal played by the first card in hand leaves asks that cost: each links to its step.
    moments = page.locator("#analysis-moments a")
    assert moments.count() >= 1
    heights = moments.evaluate_all("links => links.map(a => a.getBoundingClientRect().height)")
    assert min(heights) >= 24, heights  # jump links are targets of at least 24 px
    step = int(moments.first.get_attribute("data-step"))
    moments.first.click()
    assert page.get_attribute("#replay", "data-step") == str(step)
    assert page.locator("#step-verdict.inaccuracy, #step-verdict.mistake, #step-verdict.blunder").count() == 1
    assert page.locator("#step-values rect.asked").count() == 1
    assert no_horizontal_scroll(page)
    screenshot(page, f"replay-{locale[:2]}-{width}")
    page.locator("#analysis").scroll_into_view_if_needed()
    screenshot(page, f"replay-analysis-{locale[:2]}-{width}")
    assert not violations(page)


def session_for(attempt) -> str:
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    store = import_module(settings.SESSION_ENGINE).SessionStore()
    user = attempt.player.user
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.save()
    return store.session_key
