"""A public replay in Chromium: stepped by keyboard, the whole deal face up, the lessons
link to their ask; no serious axe violation, in the four languages."""

from __future__ import annotations

import datetime as dt

import pytest

from .conftest import screenshot
from .test_accessibility import violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("locale", ["en-US", "fr-FR", "de-DE", "ja-JP"])
def test_step_through_a_replay_with_the_keyboard(new_page, locale):
    from tests.test_admin import verified_attempt

    attempt = verified_attempt(f"Replay {locale[:2]}", day=dt.date(2026, 6, 2))
    page = new_page(locale=locale)
    page.context.add_cookies([{"name": "sessionid", "value": session_for(attempt), "url": page.base}])
    page.goto(page.base + f"/replays/{attempt.pk}/")
    total = len(attempt.moves)
    from games.rules.peche import ENGINE

    dealt = ENGINE.new(seed=attempt.challenge.seed)
    shown = page.eval_on_selector_all("#opponent-cards .card", "cs => cs.map(c => c.className)")
    assert len(shown) == len(dealt.hands[1]) and page.locator("#lake-cards .card").count() == 42
    position = page.text_content("#position")
    page.keyboard.press("ArrowRight")
    assert page.text_content("#position") != position
    assert page.locator("#step-events li").count() >= 1
    page.keyboard.press("End")
    assert str(total) in page.text_content("#position")
    assert page.locator("#step-events li").last.text_content()  # the end is told in words
    page.keyboard.press("Home")
    assert page.locator("#step-events li").count() == 0
    lessons = page.locator("#lessons a")
    assert lessons.count() >= 1
    lessons.first.click()
    assert page.locator("#step-lesson").is_visible()
    screenshot(page, f"replay-{locale[:2]}")
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
