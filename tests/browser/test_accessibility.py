"""axe-core on every page of the site, in the four languages, at the three viewports:
no serious or critical violation. axe-core is pinned in package-lock.json (`make test`
installs it)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT

from .conftest import screenshot
from .test_daily import start_as_guest, wait_my_turn_or_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
VIEWPORTS = {
    "desktop": {"width": 1280, "height": 800},
    "portrait": {"width": 390, "height": 844},
    "landscape": {"width": 844, "height": 390},
}
LOCALES = {"en": "en-US", "fr": "fr-FR", "de": "de-DE", "ja": "ja-JP"}
FAST = "window.PECHE_STEP_MS = 5; window.PECHE_POLL_MS = 150;"


def violations(page) -> list[dict]:
    if not AXE.exists():
        pytest.fail("axe-core is missing: run `make test` (npm ci)")
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => {
        const r = await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']});
        // Serious and critical ones, and a page without its <h1> ("moderate" for axe, required here).
        return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical' || v.id === 'page-has-heading-one')
          .map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
    }""")
    return found


def site_pages(page, name: str):
    """Every page of the site, in the states a visitor meets them; yields (label, page)."""
    from challenges import days

    base = page.base
    page.goto(base + "/")
    yield "home", page
    page.goto(base + "/daily/")
    page.wait_for_selector("#name-input")
    yield "daily-before", page
    start_as_guest(page, name)
    yield "daily-during", page
    while not wait_my_turn_or_end(page):
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#turn').dataset.turn !== 'busy'")
    page.wait_for_selector("#end-status")
    yield "daily-after", page
    page.goto(base + f"/leaderboard/{days.today().isoformat()}/")
    yield "leaderboard", page
    page.goto(base + "/daily/archive/")
    yield "archive", page
    page.goto(base + "/rules/")
    yield "rules", page
    page.goto(base + "/me/")  # a player: their own page
    yield "me", page
    page.goto(base + "/kitten/")
    page.wait_for_selector("main")
    yield "kitten", page
    page.goto(base + "/gofish/")
    page.wait_for_selector("main")
    yield "gofish", page
    page.goto(base + "/admin/login/")
    yield "admin-login", page


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("lang", list(LOCALES))
def test_no_serious_accessibility_violation_anywhere(new_page, browser, live_server, lang, viewport):
    page = new_page(
        locale=LOCALES[lang],
        viewport=VIEWPORTS[viewport],
        **({"has_touch": True, "is_mobile": True} if viewport != "desktop" else {}),
    )
    page.add_init_script(FAST)
    problems = {}
    for label, shown in site_pages(page, f"Axe {lang} {viewport}"):
        found = violations(shown)
        if found:
            problems[label] = found
            screenshot(shown, f"axe-{label}-{lang}-{viewport}")
    # A visitor who has not played yet: the player page of someone else.
    guest = new_page(locale=LOCALES[lang], viewport=VIEWPORTS[viewport])
    guest.goto(page.base + "/me/")
    if found := violations(guest):
        problems["me-guest"] = found
    assert not problems, json.dumps(problems, indent=1, ensure_ascii=False)
