"""How to play (/rules/) in the four languages, and the site header: a link to the rules on
every page, and on a phone one short bar whose menu button opens the links and languages."""

from __future__ import annotations

import json

import pytest

from .conftest import no_horizontal_scroll, screenshot
from .test_accessibility import violations
from .test_daily import start_as_guest
from .test_logout import sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
# A sentence of each language's text, and its link to today's game.
TEXTS = {
    "en-US": ("Whoever laid more pairs wins; 13 to 13 is a draw.", "Play today's deal"),
    "fr-FR": ("Celui qui a posé le plus de paires gagne ; 13 à 13 est un match nul.", "Jouer la donne du jour"),
    "de-DE": ("Wer mehr Paare abgelegt hat, gewinnt; 13 zu 13 ist ein Unentschieden.", "Das heutige Blatt spielen"),
    "ja-JP": ("ペアの多いほうが勝ち、13対13は引き分けです。", "今日の配りで遊ぶ"),
}
CARD_LOOK = """el => { const s = getComputedStyle(el);
    return [s.width, s.height, s.borderRadius, s.backgroundColor, s.fontSize, s.fontWeight]; }"""
# Every link and button of the header that is shown: its text and its box.
TARGETS = """() => [...document.querySelectorAll('header a, header button')]
    .map(el => [el.textContent.trim(), el.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0 && r.height > 0)
    .map(([text, r]) => ({text, height: r.height, top: r.top, bottom: r.bottom}))"""


def header_height(page) -> float:
    return page.evaluate("document.querySelector('header').getBoundingClientRect().height")


@pytest.mark.parametrize("locale", list(TEXTS))
def test_the_rules_read_in_each_language_and_their_links_work(new_page, locale):
    sentence, play = TEXTS[locale]
    page = new_page(locale=locale, viewport=PHONE, has_touch=True, is_mobile=True)
    page.goto(page.base + "/rules/")
    assert page.get_attribute("html", "lang") == locale[:2]
    assert page.locator("h1").count() == 1
    assert sentence in page.text_content("main")
    assert page.text_content("#score-formula").startswith("1000 + 30 × (")
    # The example is drawn with the daily table's own pieces: felt, backs, buckets, cards.
    scenes = page.locator(".rules-scene")
    assert scenes.count() == 3
    assert [scenes.nth(i).locator(".felt .hand .card.face").count() for i in range(3)] == [5, 4, 3]
    assert scenes.nth(2).locator(".bucket .pair").count() == 2
    assert scenes.nth(0).locator(".backs .back").count() == 5
    assert no_horizontal_scroll(page)
    screenshot(page, f"rules-{locale[:2]}-390")

    with page.expect_navigation():
        page.get_by_role("link", name=play).click()
    assert page.url == page.base + "/daily/"
    page.go_back()
    with page.expect_navigation():
        page.locator("main a[href='/leaderboard/']").click()
    assert "/leaderboard/" in page.url and page.locator("#board-title").count() == 1
    page.go_back()
    with page.expect_navigation():
        page.locator("main a[href='/daily/archive/']").click()
    assert page.url == page.base + "/daily/archive/" and page.locator(".archive").count() == 1


def test_the_example_cards_are_the_daily_tables_cards(new_page):
    page = new_page(viewport=PHONE)
    start_as_guest(page, "Card Looker")
    daily = page.locator("#hand .card").first.evaluate(CARD_LOOK)
    daily_back = page.locator("#opponent-hand .back").first.evaluate(CARD_LOOK)
    page.goto(page.base + "/rules/")
    assert page.locator(".rules-scene .hand .card").first.evaluate(CARD_LOOK) == daily
    assert page.locator(".rules-scene .backs .back").first.evaluate(CARD_LOOK) == daily_back
    # Red suits in red, as on the table: 7♥ opens the hand.
    first = page.locator(".rules-scene .hand .card").first
    assert first.get_attribute("aria-label") == "7♥" and "suit-H" in first.get_attribute("class")


def test_every_page_links_the_rules_from_its_header(new_page):
    from challenges import days

    page = new_page()
    sign_up(page, "Header Reader")
    page.expected_errors.append("404 (Not Found)")  # the error page has the header too
    for path in (
        "/",
        "/daily/",
        "/daily/archive/",
        f"/leaderboard/{days.today().isoformat()}/",
        "/me/",
        "/kitten/",
        "/gofish/",
        "/rules/",
        "/no-such-page/",
    ):
        page.goto(page.base + path)
        link = page.locator("header a[href='/rules/']")
        assert link.count() == 1 and link.is_visible(), path
    page.goto(page.base + "/daily/archive/")
    with page.expect_navigation():
        page.locator("header a[href='/rules/']").click()
    assert page.url == page.base + "/rules/"


@pytest.mark.parametrize("locale", ["ja-JP", "en-US", "fr-FR", "de-DE"])
def test_the_phone_header_is_one_short_bar_with_big_enough_targets(new_page, locale):
    page = new_page(locale=locale, viewport=PHONE, has_touch=True, is_mobile=True)
    sign_up(page, f"Phone {locale[:2]}")  # signed in: the log-out button is in the bar too
    page.goto(page.base + "/rules/")
    button = page.locator(".menu-button")
    assert button.get_attribute("aria-expanded") == "false"
    assert not page.locator("header nav").is_visible()
    assert header_height(page) <= 120
    shown = page.evaluate(TARGETS)
    assert {t["text"] for t in shown} >= {"Pêche", button.text_content().strip()}
    assert page.locator(".logout-button").is_visible()
    assert all(t["height"] >= 24 for t in shown), shown
    screenshot(page, f"header-{locale[:2]}-390")

    # By keyboard: the button opens the menu; its links and languages follow it in the
    # tab order; Escape closes it and gives the focus back.
    button.focus()
    page.keyboard.press("Enter")
    assert button.get_attribute("aria-expanded") == "true"
    assert page.locator("header nav").is_visible() and page.locator("header .lang").is_visible()
    assert header_height(page) <= 120  # the menu drops over the page, the bar stays as it was
    shown = page.evaluate(TARGETS)
    assert len(shown) >= 2 + 6 + 4, shown  # the bar, the six links, the four languages
    assert all(t["height"] >= 24 for t in shown), shown
    assert all(t["bottom"] <= PHONE["height"] for t in shown), shown
    assert no_horizontal_scroll(page)
    screenshot(page, f"header-{locale[:2]}-390-open")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('href')") == "/daily/"
    page.keyboard.press("Escape")
    assert button.get_attribute("aria-expanded") == "false"
    assert page.evaluate("document.activeElement.classList.contains('menu-button')")
    assert not page.locator("header nav").is_visible()

    # A tap elsewhere closes it too; the language picker is reached through it.
    button.click()
    page.mouse.click(PHONE["width"] / 2, PHONE["height"] - 20)  # below the open menu
    assert button.get_attribute("aria-expanded") == "false"
    button.click()
    with page.expect_navigation():
        page.locator(".lang button[value=de]" if locale != "de-DE" else ".lang button[value=ja]").click()
    assert page.get_attribute("html", "lang") == ("de" if locale != "de-DE" else "ja")
    assert page.url == page.base + "/rules/"


@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
def test_the_desktop_header_shows_everything_on_one_line(new_page, locale):
    page = new_page(locale=locale, viewport=DESKTOP)
    sign_up(page, f"Desk {locale[:2]}")
    page.goto(page.base + "/rules/")
    assert not page.locator(".menu-button").is_visible()
    assert page.locator("header nav a").count() == 6 and page.locator("header nav").is_visible()
    shown = page.evaluate(TARGETS)
    assert len(shown) == 1 + 6 + 4 + 1, shown  # the name, the links, the languages, the log-out
    assert all(t["height"] >= 24 for t in shown), shown
    assert header_height(page) <= 60  # one line
    screenshot(page, f"header-{locale[:2]}-1280")


def test_without_scripts_the_header_shows_its_links(new_page):
    page = new_page(viewport=PHONE, java_script_enabled=False)
    page.goto(page.base + "/rules/")
    assert not page.locator(".menu-button").is_visible()
    assert page.locator("header nav a[href='/rules/']").is_visible()
    assert page.locator("header .lang").is_visible()


@pytest.mark.parametrize("locale", list(TEXTS))
def test_no_serious_accessibility_violation_on_the_rules_with_the_menu_open(new_page, locale):
    page = new_page(locale=locale, viewport=PHONE, has_touch=True, is_mobile=True)
    page.goto(page.base + "/rules/")
    page.locator(".menu-button").click()
    found = violations(page)
    assert not found, json.dumps(found, indent=1, ensure_ascii=False)
