"""axe-core on every page of the site, in the states a visitor meets them, in the four
languages on a phone (390×844) and a desktop (1280×800), and in English on a phone in
landscape: no serious or critical violation, an <h1> everywhere. axe-core is pinned in
package-lock.json (`make test` installs it).

One test per language and viewport walks the whole site in two browser contexts of the
session's Chromium: a visitor who never played, and a player who plays today's game. The
casual games' states are walked here in landscape only: their own tests (test_kitten.py,
test_gofish.py) run axe on every state in the four languages at both other sizes.
What axe found on each page is also written to artifacts/axe/<lang>-<viewport>.json,
every impact and every node counted (what a fix changed, page by page)."""

from __future__ import annotations

import datetime as dt
import itertools
import json

import pytest

from tests.conftest import ROOT

from .conftest import ARTIFACTS, screenshot
from .test_daily import named_before, wait_my_turn_or_end
from .test_leagues import leagues_states

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
FINDINGS = ARTIFACTS.parent / "axe"
VIEWPORTS = {
    "desktop": {"width": 1280, "height": 800},
    "portrait": {"width": 390, "height": 844},
    "landscape": {"width": 844, "height": 390},
}
LOCALES = {"en": "en-US", "fr": "fr-FR", "de": "de-DE", "ja": "ja-JP"}
# Every language on a phone, where a longer text wraps, overflows or covers a control; on a
# desktop the layout has room, so English and Japanese (the other script) there. Landscape
# changes the layout only (the casual games and the daily table have a layout of their own
# for it), so one language there.
WALKS = [(lang, "portrait") for lang in LOCALES] + [("en", "desktop"), ("ja", "desktop"), ("en", "landscape")]
FAST = "window.PECHE_STEP_MS = 5; window.PECHE_POLL_MS = 150;"
# The casual games without their motion, but Kitten's turn long enough to tap meanwhile
# ("wait for the opponent"), and the others' turns at Go Fish long enough to be seen.
CASUAL = (
    "window.KITTEN_TIMING = {deal: 0, flip: 0, highlight: 0, slide: 0, opponent: 2000, auto: 0};"
    "window.GOFISH_STEP_MS = 3000;"
)
CLOSED_DAY = dt.date(2026, 6, 2)
KITTEN_LOW_SEED = "kt4809"  # first="player": after 23 flips the player's pile is down to 3


def axe_run(page) -> list[dict]:
    """Every violation axe finds on the page as it is now: rule, impact, node count and the
    first nodes' selectors."""
    if not AXE.exists():
        pytest.fail("axe-core is missing: run `make test` (npm ci)")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate("""async () => {
        const r = await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'], resultTypes: ['violations']});
        return r.violations.map(v => ({id: v.id, impact: v.impact, count: v.nodes.length,
          nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ': ' + n.failureSummary.split('\\n').slice(1).join(' ').trim())}));
    }""")


def serious(found: list[dict]) -> list[dict]:
    """Serious and critical ones, and a page without its <h1> ("moderate" for axe, required here)."""
    return [v for v in found if v["impact"] in ("serious", "critical") or v["id"] == "page-has-heading-one"]


def violations(page) -> list[dict]:
    return serious(axe_run(page))


def closed_day_games() -> list:
    """A long-closed day (its seed public) with two verified ranked games."""
    from challenges import days

    from .test_day_check import ranked_games

    assert CLOSED_DAY < days.today() - dt.timedelta(days=1)
    return ranked_games(CLOSED_DAY, ["Axe Ann", "Axe Bo"])


def casual_game(page, element_id: str):
    from casual.models import CasualGame

    return CasualGame.objects.get(pk=int(page.get_attribute(f"#{element_id}", "data-game-id")))


def kitten_states(page):
    """Kitten fishing: before the first flip (with the first-game hint), Kitten's turn with
    its "wait" message, a table of cards, a low pile, the confirmation dialog, the end."""
    from games.rules.kitten import ENGINE

    idle = '#kitten[data-phase="idle"][data-animating="false"]'
    page.goto(page.base + "/kitten/")
    page.wait_for_selector(idle)
    yield "kitten-before", page
    page.click("#kt-pile-0")
    page.wait_for_selector('#kitten[data-phase="opponent"]')
    before = page.inner_text("#kt-status")
    page.click("#kt-pile-0")  # during Kitten's turn: only "wait for the opponent"
    page.wait_for_function(f"document.querySelector('#kt-status').textContent !== {json.dumps(before)}")
    yield "kitten-waiting", page
    page.reload()  # the flip is the server's already: the page resumes at the player's turn
    page.wait_for_selector(idle)
    page.select_option("#kt-pace", "instant")
    for _ in range(6):
        page.click("#kt-flip")
        page.wait_for_selector(idle)
    yield "kitten-during", page
    # A deal whose pile runs low, resumed where it does (the server replays the moves).
    game = casual_game(page, "kitten")
    game.seed, game.options, game.moves = KITTEN_LOW_SEED, {"first": "player"}, ["flip"] * 23
    game.save()
    state = ENGINE.replay({"seed": game.seed, **game.options}, len(game.moves), partial=True)
    assert ENGINE.view(state, 0)["piles"][0] <= 3
    page.reload()
    page.wait_for_selector(idle)
    page.wait_for_selector("#kt-count-0.kt-low")
    yield "kitten-low-pile", page
    page.click("#kt-result")
    page.wait_for_selector("#kt-confirm[open]")
    yield "kitten-dialog", page
    page.click("#kt-confirm-ok")
    page.wait_for_selector("#kt-end:not([hidden])")
    yield "kitten-end", page


def gofish_states(page):
    """Go Fish: the setup, a seat chosen, the others' turn, the setup over a game, the end."""
    from .test_gofish import finish_on_the_server

    page.goto(page.base + "/gofish/")
    page.wait_for_selector('#gofish[data-phase="setup"]')
    yield "gofish-setup", page
    page.select_option("#gf-players", "4")
    page.click("#gf-start")
    page.wait_for_selector('#gofish[data-phase="idle"]')
    page.click("#gf-seats .gf-seat:not(.gf-me)")
    yield "gofish-during", page
    for _ in range(40):  # ask until the others play (a step every 4 s) or the game ends
        moves = page.get_attribute("#gofish", "data-server-moves")
        page.click("#gf-hand button.gf-rank:not([aria-disabled])")
        page.wait_for_selector(
            f'#gofish[data-phase="playback"], #gofish:not([data-server-moves="{moves}"])[data-phase="idle"], '
            '#gofish[data-phase="over"]'
        )
        if page.get_attribute("#gofish", "data-phase") != "idle":
            break
    if page.get_attribute("#gofish", "data-phase") == "playback":
        yield "gofish-others-turn", page
        page.click("#gf-skip")
    page.select_option("#gf-pace", "instant")
    page.wait_for_selector('#gofish[data-phase="idle"], #gofish[data-phase="over"]')
    page.click("#gf-new")
    page.wait_for_selector("#gf-setup:not([hidden])")
    yield "gofish-setup-over-a-game", page
    # The rest of the game played by the first legal ask, then resumed: its end.
    page.click("#gf-setup-cancel")
    finish_on_the_server(casual_game(page, "gofish"))
    page.reload()
    page.wait_for_selector("#gf-end:not([hidden])")
    yield "gofish-end", page


def daily_states(page, name: str):
    """Today's game: the prompt, the table during the game, the end panel. The game's
    middle is asked through the API with the page's own session (the keyboard game is
    test_daily's), then the page is loaded again: the end panel of a finished game."""
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#name-input")
    yield "daily-before", page
    named_before(page, name)  # then back as a returning player: the day waits for Start
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#start-button:focus")
    yield "daily-ready", page
    page.keyboard.press("Enter")
    page.wait_for_selector("#hand button:focus")
    for _ in range(2):
        if wait_my_turn_or_end(page):
            break
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#turn').dataset.turn !== 'busy'")
    yield "daily-during", page
    csrf = {"X-CSRFToken": next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")}
    view = page.request.post(page.base + "/api/challenges/today/attempt", headers=csrf).json()
    while not view["over"]:
        ask = {"rank": view["hand"][0][:-1], "move": view["move"]}
        view = page.request.post(page.base + f"/api/attempts/{view['id']}/asks", data=ask, headers=csrf).json()
    page.reload()
    page.wait_for_selector("#end-status")
    yield "daily-after", page


def site_pages(page, name: str, casual: bool = True):
    """Every page of the site a player meets, in its states; yields (label, page). The
    player plays today's game here (and is signed in from then on). ``casual``: Kitten's
    and Go Fish's states too."""
    from challenges import days

    base = page.base
    yield from daily_states(page, name)
    page.goto(base + "/")
    yield "home-played", page
    page.goto(base + f"/leaderboard/{days.today().isoformat()}/")
    yield "leaderboard", page
    page.goto(base + "/daily/archive/")
    yield "archive", page
    yield from leagues_states(page)
    page.goto(base + f"/daily/{CLOSED_DAY.isoformat()}/")  # practice on a past day
    page.wait_for_selector("#hand button")
    yield "daily-practice", page
    page.goto(base + "/me/")  # a player: their own page
    yield "me", page
    page.click(".logout-button")  # a player without a password is asked first, in a dialog
    page.wait_for_selector("#logout-dialog[open]")
    yield "logout-dialog", page
    page.click(".logout-cancel")
    if casual:
        yield from kitten_states(page)
        yield from gofish_states(page)


def api_docs_states(page, swagger: bool):
    """/api/docs: as it opens, then (``swagger``) its Authorize dialog and an operation tried
    out (a request sent, its response shown) with a schema opened below. Those are Swagger
    UI's, in English whatever the page's language: once per size is enough."""
    page.goto(page.base + "/api/docs")
    page.wait_for_selector("#swagger-ui .opblock")
    yield "api-docs", page
    if not swagger:
        return
    page.click("#swagger-ui .btn.authorize")
    page.wait_for_selector("#swagger-ui .modal-ux")
    yield "api-docs-authorize", page
    page.click("#swagger-ui .modal-ux .btn-done")
    operation = page.locator("#operations-challenges-challenge_get")
    operation.locator(".opblock-summary-control").click()
    operation.locator(".try-out__btn").click()
    operation.locator("tr[data-param-name='date'] input").fill("today")
    operation.locator(".btn.execute").click()
    operation.locator(".live-responses-table .response .response-col_status").wait_for()
    assert operation.locator(".live-responses-table .response .response-col_status").inner_text().strip() == "200"
    page.locator("#swagger-ui section.models button.model-box-control").first.click()
    yield "api-docs-tried", page


def visitor_pages(page, closed: list, swagger: bool = True):
    """The pages a visitor who never played meets, on their first visit: home, the rules,
    the daily's rules card and prompt, /me/, a closed day's leaderboard and its check, a
    replay, a player's page, the API's documentation, a page that does not exist."""
    base = page.base
    page.goto(base + "/")
    yield "home", page
    page.goto(base + "/rules/")
    yield "rules", page
    page.goto(base + "/daily/")  # a first visit: the rules card before the name prompt
    page.wait_for_selector("#rules-card:not([hidden])")
    yield "daily-rules-card", page
    page.goto(base + "/me/")
    yield "me-guest", page
    page.goto(base + f"/leaderboard/{CLOSED_DAY.isoformat()}/")
    yield "leaderboard-closed", page
    page.click("#check-day")
    page.wait_for_selector("#check-status.check-pass")
    yield "day-check-passed", page
    page.fill("#check-rank", "9")  # no such rank: a failed check, in words
    page.click("#check-day")
    page.wait_for_selector("#check-status.check-fail")
    yield "day-check-failed", page
    page.goto(base + f"/replays/{closed[0].pk}/")
    yield "replay", page
    page.goto(base + f"/players/{closed[0].player_id}/")
    yield "player", page
    yield from api_docs_states(page, swagger)
    page.expected_errors.append("404")
    assert page.goto(base + "/no-such-page/").status == 404
    yield "not-found", page
    page.goto(base + "/admin/login/")
    yield "admin-login", page


@pytest.mark.parametrize(("lang", "viewport"), WALKS, ids=[f"{lang}-{viewport}" for lang, viewport in WALKS])
def test_no_serious_accessibility_violation_anywhere(new_page, live_server, lang, viewport):
    closed = closed_day_games()
    options = {"locale": LOCALES[lang], "viewport": VIEWPORTS[viewport]}
    if viewport != "desktop":
        options.update(has_touch=True, is_mobile=True)
    visitor = new_page(first_visit=True, **options)
    player = new_page(**options)
    player.add_init_script(FAST + CASUAL)
    for walker in (visitor, player):  # axe in every document from its start: faster than a script tag each time
        walker.context.add_init_script(path=str(AXE))
    found, problems = {}, {}
    for label, shown in itertools.chain(
        visitor_pages(visitor, closed, lang == "en"),
        site_pages(player, f"Axe {lang} {viewport}", casual=viewport == "landscape"),
    ):
        found[label] = axe_run(shown)
        bad = serious(found[label])
        if (shown_lang := shown.evaluate("document.documentElement.lang")) != lang:  # read in the visitor's language
            bad.append({"id": "lang", "impact": "serious", "count": 1, "nodes": [f"<html lang={shown_lang!r}>"]})
        if bad:
            problems[label] = bad
            screenshot(shown, f"axe-{label}-{lang}-{viewport}")
    FINDINGS.mkdir(parents=True, exist_ok=True)
    (FINDINGS / f"{lang}-{viewport}.json").write_text(json.dumps(found, indent=1, ensure_ascii=False))
    assert not problems, json.dumps(problems, indent=1, ensure_ascii=False)


def test_the_api_docs_with_every_operation_open_have_no_serious_violation(new_page):
    """Every operation of /api/docs opened at once: each select named (an enum parameter's,
    the examples'), inline code readable on every method's colour."""
    page = new_page()
    page.context.add_init_script(path=str(AXE))
    page.goto(page.base + "/api/docs")
    page.wait_for_selector("#swagger-ui .opblock")
    operations = page.eval_on_selector_all("#swagger-ui .opblock", "blocks => blocks.map(b => b.id)")
    assert len(operations) > 20
    for operation in operations:
        page.locator(f"#{operation} .opblock-summary-control").click()
    page.wait_for_selector("#swagger-ui select.examples-select-element", state="attached")
    page.wait_for_function(
        "[...document.querySelectorAll('#swagger-ui select')].every(s => s.getAttribute('aria-label'))"
    )
    # An operation with a body, tried out: its body's textarea is named.
    page.locator("#operations-players-player_create .try-out__btn").click()
    page.wait_for_selector("#operations-players-player_create textarea.body-param__text[aria-label='Request body']")
    assert violations(page) == []
