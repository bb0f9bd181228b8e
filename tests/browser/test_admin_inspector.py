"""The admin's replay inspector in Chromium: a table stepped through by the keyboard, the
buttons and the slider, each ask with what each side knew and its fair-play evidence;
no sideways scroll at 390 px; no serious axe violation on the inspector, the review queue
and the reason form, at 390×844 and 1280×800."""

from __future__ import annotations

import datetime as dt

import pytest

from .conftest import screenshot
from .test_accessibility import violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
PAST = dt.date(2026, 6, 2)


def clairvoyant(state) -> str:
    return next((r for r in state.hands[0] if r in state.hands[1]), next(iter(state.hands[0])))


def logged_in_admin(new_page, size: str):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_superuser("root", "root@example.com", "pw-Admin-123")
    page = new_page(viewport=SIZES[size])
    page.goto(page.base + "/admin/login/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "pw-Admin-123")
    page.click("input[type=submit]")
    page.wait_for_selector("#content")
    return page


def fits(page) -> bool:
    """No sideways scroll: the page is no wider than the window."""
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def chance(text: str) -> float:
    """ "12%" → 12.0; "under 1%" → 0.5."""
    return 0.5 if text.startswith("under") else float(text.rstrip("%"))


def position(page) -> str:
    return page.text_content("#position")


@pytest.mark.parametrize("size", SIZES)
def test_step_through_the_inspector_by_keyboard_buttons_and_slider(new_page, size):
    from games.rules.peche import ENGINE
    from tests.conftest import verified_game

    attempt = verified_game("Seer", day=PAST, choose=clairvoyant)
    asks = len(attempt.moves)
    page = logged_in_admin(new_page, size)
    page.goto(page.base + f"/admin/challenges/attempt/{attempt.pk}/replay/")
    assert position(page) == f"Step 0 of {asks}"
    dealt = ENGINE.new(seed=attempt.challenge.seed)  # both hands face up, pairs of the deal laid
    assert page.locator("#opponent-cards .card").count() == len(dealt.hands[1])
    assert page.locator("#player-cards .card").count() == len(dealt.hands[0])
    assert page.locator("#lake-cards .card").count() == 42
    assert fits(page)
    screenshot(page, f"admin-inspector-deal-{size}")
    for n in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        assert position(page) == f"Step {n} of {asks}"
        assert page.text_content("#layers-title").startswith(f"At ask {n}:")
        # The evidence of this ask: its weight in a sentence and a row per rank of the hand.
        assert "weighs nothing" in page.text_content("#layer-evidence .weight") or "as likely" in page.text_content(
            "#layer-evidence .weight"
        )
        assert page.locator("#layer-player tbody tr").count() >= 1
        assert fits(page)
    page.keyboard.press("ArrowLeft")
    assert position(page) == f"Step 2 of {asks}" and page.text_content("#layers-title").startswith("At ask 2:")
    page.keyboard.press("End")
    assert position(page) == f"Step {asks} of {asks}"
    assert "Game over" in page.text_content("#step-events")
    page.keyboard.press("ArrowRight")  # nothing beyond the end
    assert position(page) == f"Step {asks} of {asks}"
    assert fits(page)
    screenshot(page, f"admin-inspector-end-{size}")
    page.keyboard.press("Home")
    assert position(page) == f"Step 0 of {asks}" and page.text_content("#layers-title") == "After the deal"
    page.click("#next")
    assert position(page) == f"Step 1 of {asks}"
    page.fill("#step-slider", "5")
    assert position(page) == f"Step 5 of {asks}"
    # Keys typed into the reason box are words, not steps.
    page.fill("#reason", "")
    page.press("#reason", "ArrowRight")
    assert position(page) == f"Step 5 of {asks}"
    # The heaviest ask is a click away.
    heaviest = page.locator("button.jump").first
    step = int(heaviest.get_attribute("data-step"))
    heaviest.click()
    assert position(page) == f"Step {step} of {asks}"
    assert page.text_content("#layer-evidence .figure-llr").startswith("+")
    # ... and reads as two chances: a player who peeks finds a pair more often than the rank asked is held.
    assert "a player who peeks" in page.text_content("#layer-evidence .chances-of-choice")
    honest, seer = (chance(page.text_content(f"#layer-evidence .figure-{who}")) for who in ("honest", "seer"))
    assert seer > honest
    assert fits(page)
    screenshot(page, f"admin-inspector-ask-{size}")
    assert not violations(page)


@pytest.mark.parametrize("size", SIZES)
def test_the_review_pages_have_no_serious_accessibility_violation(new_page, size):
    from challenges import days, services
    from challenges.models import Attempt, Player
    from tests.conftest import new_player, verified_game

    cheat = verified_game("Seer", day=PAST, choose=clairvoyant)
    verified_game("Hana", day=PAST)
    future = days.today() + dt.timedelta(days=2)
    early = Attempt.objects.create(
        player=Player.objects.get(pk=new_player("Early Eve").player["id"]),
        challenge=services.challenge_for_day(day=future),
        ranked=True,
        moves=[],
        status="playing",
    )
    page = logged_in_admin(new_page, size)
    found = {}

    page.goto(page.base + f"/admin/challenges/attempt/review/?date={PAST:%Y-%m-%d}")
    assert page.locator("#review-queue tr[data-attempt]").count() == 2
    assert page.locator("label[for^='reason-']").count() == page.locator("#review-queue input[name=reason]").count()
    found["queue"] = violations(page), fits(page)
    screenshot(page, f"admin-review-queue-{size}")

    page.goto(page.base + f"/admin/challenges/attempt/{cheat.pk}/replay/")
    page.keyboard.press("ArrowRight")
    found["inspector"] = violations(page), fits(page)

    page.goto(page.base + f"/admin/challenges/attempt/{early.pk}/replay/")
    assert "cannot be decided yet" in page.text_content("#undecided")
    found["inspector-undecided"] = violations(page), fits(page)
    screenshot(page, f"admin-inspector-undecided-{size}")

    # The reason asked before a decision from the attempts' list.
    page.goto(page.base + "/admin/challenges/attempt/")
    page.check(f"input[name=_selected_action][value='{cheat.pk}']")
    page.select_option("select[name=action]", "disqualify")
    page.click("button[name=index]")
    page.wait_for_selector("label[for=reason]")
    found["reason"] = violations(page), fits(page)
    screenshot(page, f"admin-reason-{size}")
    page.fill("#reason", "seen through the inspector")
    page.click("form.reason-form button[type=submit]")
    assert "done on 1 of 1" in page.text_content(".messagelist")

    assert {label: result for label, result in found.items() if result != ([], True)} == {}
