"""Leagues in Chromium: one browser creates a league and sends its link, another joins by
it (choosing a name first), both play today's deal, and each sees the other on the
league's board."""

from __future__ import annotations

import pytest

from .conftest import no_horizontal_scroll, screenshot
from .test_daily import named_before, start_as_guest, start_the_day, wait_my_turn_or_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FAST = "window.PECHE_STEP_MS = 5; window.PECHE_POLL_MS = 150;"
LOCALES = {"en": "en-US", "fr": "fr-FR", "de": "de-DE", "ja": "ja-JP"}


def leagues_states(page):
    """The leagues' pages as a player meets them (test_accessibility.site_pages walks them
    too): none yet, a new league of theirs, theirs listed, its invite link."""
    page.goto(page.base + "/leagues/")
    yield "leagues-none", page
    page.fill("#create-name", "Axe league")
    page.click("#create-form button[type=submit]")
    page.wait_for_url("**/leagues/*/")
    yield "league", page
    link = page.get_attribute("#invite-link", "data-path")
    page.goto(page.base + "/leagues/")
    yield "leagues-mine", page
    page.goto(page.base + link)
    yield "league-join", page


def play_to_the_end(page):
    while not wait_my_turn_or_end(page):
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#turn').dataset.turn !== 'busy'")
    page.wait_for_selector("#end-status[data-status=verified]", timeout=20000)


def test_a_league_made_in_one_browser_is_joined_by_its_link_in_another_and_both_see_each_other(new_page, verifier):
    ann = new_page()
    ann.add_init_script(FAST)
    start_as_guest(ann, "Ann Leaguer")
    play_to_the_end(ann)
    ann.goto(ann.base + "/leagues/")
    ann.fill("#create-name", "Browser Club")
    ann.keyboard.press("Enter")
    ann.wait_for_url("**/leagues/*/")
    assert ann.text_content("h1") == "Browser Club"
    league_url = ann.url
    link = ann.get_attribute("#invite-link", "data-path")
    assert link.startswith("/leagues/join/")

    bea = new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    bea.add_init_script(FAST)
    bea.goto(bea.base + link)
    assert "Choose a name first" in bea.text_content("#choose-first")
    bea.wait_for_selector("#join-name:focus")
    bea.keyboard.type("Bea Leaguer")
    bea.keyboard.press("Enter")
    bea.wait_for_url("**/leagues/*/")
    assert bea.text_content("h1") == "Browser Club"
    # Not played yet: listed as such, Ann on the board.
    assert bea.locator("#not-played li[data-name='Bea Leaguer']").count() == 1
    assert bea.locator("#league-board tr[data-name='Ann Leaguer']").count() == 1
    start_the_day(bea)
    play_to_the_end(bea)
    # The end panel says where the game stands in the league today.
    place = bea.locator("#end-leagues li")
    place.wait_for()
    assert place.locator("a").get_attribute("href") == league_url.split(bea.base)[1]
    assert place.text_content().startswith("Browser Club Today: ") and place.text_content().endswith(" of 2")

    for page, other in ((ann, "Bea Leaguer"), (bea, "Ann Leaguer")):
        page.goto(league_url)
        page.wait_for_selector("#league-board")
        names = page.locator("#league-board tbody tr").evaluate_all("rows => rows.map(r => r.dataset.name)")
        assert sorted(names) == ["Ann Leaguer", "Bea Leaguer"]
        assert page.locator(f"#league-board tr[data-name='{other}']").count() == 1
        assert page.locator("#league-board tr.me").count() == 1
        assert page.locator("#not-played").count() == 0
        assert sorted(page.locator("#league-week tbody tr").evaluate_all("rows => rows.map(r => r.dataset.name)")) == [
            "Ann Leaguer",
            "Bea Leaguer",
        ]
    assert no_horizontal_scroll(bea)
    # The board's links (a name, a global rank) are targets at least 24 px tall.
    heights = bea.locator("#league-board td a").evaluate_all(
        "links => links.map(a => a.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= 24, heights
    screenshot(bea, "league-phone")
    screenshot(ann, "league-desktop")


@pytest.mark.parametrize("lang", list(LOCALES))
def test_the_leagues_pages_have_no_serious_accessibility_violation(new_page, lang):
    from .test_accessibility import axe_run, serious, violations

    phone = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
    problems = {}
    visitor = new_page(locale=LOCALES[lang], **phone)
    visitor.goto(visitor.base + "/leagues/")
    problems["leagues-visitor"] = violations(visitor)
    page = new_page(locale=LOCALES[lang], **phone)
    page.add_init_script(FAST)
    start_as_guest(page, f"Axe {lang}")
    for label, shown in leagues_states(page):
        found = axe_run(shown)
        # Serious ones, and two landmarks of one name (a section and its table's region).
        problems[label] = serious(found) + [v for v in found if v["id"] == "landmark-unique"]
        assert no_horizontal_scroll(shown), label
        if label == "league":  # the week's table fits a phone, its headings wrapped (Japanese too)
            fits = "t => t.scrollWidth <= t.parentElement.clientWidth || [t.scrollWidth, t.parentElement.clientWidth, [...t.querySelectorAll('th')].map(h => h.textContent + ' ' + Math.round(h.getBoundingClientRect().width))]"
            assert shown.eval_on_selector("#league-week", fits) is True, (
                lang,
                shown.eval_on_selector("#league-week", fits),
            )
    visitor.goto(visitor.base + page.get_attribute("#join", "data-code").join(("/leagues/join/", "/")))
    problems["league-join-visitor"] = violations(visitor)
    found = {label: v for label, v in problems.items() if v}
    assert not found, found


def test_the_leagues_pages_break_no_content_security_policy(new_page):
    from .test_csp import enforced, watch

    page = enforced(new_page)
    violations, policies = watch(page)
    start_as_guest(page, "Csp Leaguer")
    labels = [label for label, _ in leagues_states(page)]
    assert labels == ["leagues-none", "league", "leagues-mine", "league-join"]
    assert page.locator("#invite-link").count() == 0  # the walk ended on the join page
    assert not violations, violations
    league_paths = [path for path in policies if path.startswith("leagues/")]
    assert len(league_paths) >= 3 and all("script-src 'self'" in policies[p] for p in league_paths)


HEADER_LINK = {"en": "Leagues", "fr": "Ligues", "de": "Ligen", "ja": "リーグ"}


@pytest.mark.parametrize("lang", list(LOCALES))
def test_the_home_pages_header_leads_to_the_leagues_in_each_language(new_page, lang):
    """From the home page's header (behind the menu button on a phone) to /leagues/."""
    page = new_page(locale=LOCALES[lang], viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page.goto(page.base + "/")
    link = page.locator("header nav a[href='/leagues/']")
    assert link.count() == 1 and link.text_content().strip() == HEADER_LINK[lang]
    page.locator(".menu-button").click()
    assert link.is_visible()
    screenshot(page, f"home-menu-{lang}-390")
    with page.expect_navigation():
        link.click()
    assert page.url == page.base + "/leagues/"
    assert page.locator("#create-form, #choose-first, main h1").count() >= 1

    desktop = new_page(locale=LOCALES[lang], viewport={"width": 1280, "height": 800})
    desktop.goto(desktop.base + "/")
    assert desktop.locator("header nav a[href='/leagues/']").is_visible()
    # The links stay on one line beside the name and the languages.
    assert desktop.evaluate("document.querySelector('header').getBoundingClientRect().height") <= 60
    screenshot(desktop, f"home-header-{lang}-1280")


def test_an_invite_goes_through_the_share_sheet_or_the_clipboard_and_leaving_is_confirmed_with_the_way_back(
    new_page,
):
    from leagues.models import League

    clipboard = ["clipboard-read", "clipboard-write"]
    phone = new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, permissions=clipboard)
    # A phone's share sheet, as the page sees it: what it was given is kept to be read here.
    phone.add_init_script("navigator.share = (data) => { window.sharedInvite = data; return Promise.resolve(); };")
    named_before(phone, "Sheet Sam")
    phone.goto(phone.base + "/leagues/")
    phone.fill("#create-name", "Pocket Club")
    phone.click("#create-form button[type=submit]")
    phone.wait_for_url("**/leagues/*/")
    league = League.objects.get(name="Pocket Club")
    join = f"{phone.base}/leagues/join/{league.code}/"
    phone.locator("#share-link").tap()
    phone.wait_for_function("document.getElementById('invite-status').textContent === 'Link sent.'")
    shared = phone.evaluate("window.sharedInvite")
    assert shared["url"] == join and shared["title"] == "Pocket Club" and "Pocket Club" in shared["text"]
    # The code, large and spaced, copied in one tap.
    assert phone.text_content("#invite-code") == league.code
    assert float(phone.eval_on_selector("#invite-code", "c => parseFloat(getComputedStyle(c).fontSize)")) >= 20
    phone.locator("#copy-code").tap()
    phone.wait_for_function("document.getElementById('invite-status').textContent === 'Code copied.'")
    assert phone.evaluate("navigator.clipboard.readText()") == league.code
    assert no_horizontal_scroll(phone)
    screenshot(phone, "league-invite-phone")

    # A browser without a share sheet: no button for it, the link goes to the clipboard.
    desk = new_page(permissions=clipboard)
    named_before(desk, "Desk Dee")
    desk.goto(join)
    desk.click("#join-button")
    desk.wait_for_url(f"**/leagues/{league.pk}/")
    assert desk.locator("#share-link").is_hidden()
    desk.click("#copy-link")
    desk.wait_for_function("document.getElementById('invite-status').textContent === 'Link copied.'")
    assert desk.evaluate("navigator.clipboard.readText()") == join

    # Leaving asks first, and says how to come back: the same link.
    desk.click("#leave")
    dialog = desk.locator("#leave-dialog")
    dialog.wait_for()
    assert desk.text_content("#leave-dialog-link") == join
    assert desk.evaluate("document.activeElement.id") == "leave-cancel"
    screenshot(desk, "league-leave-dialog")
    desk.keyboard.press("Enter")  # "Stay in the league"
    assert dialog.is_hidden() and desk.url.endswith(f"/leagues/{league.pk}/")
    assert "Desk Dee" in [m.name for m in league_members(league)]
    desk.click("#leave")
    desk.click("#leave-confirm")
    desk.wait_for_url("**/leagues/")
    assert "Desk Dee" not in [m.name for m in league_members(league)]
    desk.goto(join)  # the way back
    desk.click("#join-button")
    desk.wait_for_url(f"**/leagues/{league.pk}/")
    assert "Desk Dee" in [m.name for m in league_members(league)]


def league_members(league):
    from challenges.models import Player

    return list(Player.objects.filter(league_memberships__league=league))
