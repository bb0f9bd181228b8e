"""'Check this day' in Chromium: on a closed day's leaderboard the browser checks
the commitment, replays a game from the archive with its own engine and checks the order;
a tampered archive or page fails, in words, in an aria-live region."""

from __future__ import annotations

import datetime as dt
import json
import random

import pytest

from .conftest import screenshot
from .test_accessibility import violations
from .test_replay import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLOSED_DAY = dt.date(2026, 6, 2)
ARCHIVE = "**/api/challenges/*/archive"
ALL_PASSED = {
    "en-US": "Every check passed.",
    "fr-FR": "Toutes les vérifications sont réussies.",
    "de-DE": "Alle Prüfungen bestanden.",
    "ja-JP": "すべての検証に合格しました。",
}


def ranked_games(day: dt.date, names: list[str]) -> list:
    """Verified ranked games of ``day``, each played by its own random legal asks (so the
    scores and asks differ), finishing a minute apart."""
    from challenges import services
    from tests.conftest import verified_game

    closes = services.challenge_for_day(day=day).closes_at
    rng = random.Random(19)
    return [
        verified_game(
            name,
            day=day,
            choose=lambda state: rng.choice(list(state.hands[0])),
            finished=closes - dt.timedelta(hours=1, minutes=n),
        )
        for n, name in enumerate(names)
    ]


def run_check(page, rank: str = "") -> dict:
    page.fill("#check-rank", rank)
    page.click("#check-day")
    page.wait_for_selector("#check-status.check-pass, #check-status.check-fail")
    return {
        "status": page.text_content("#check-status"),
        "passed": page.locator("#check-list li.check-pass").all_text_contents(),
        "failed": page.locator("#check-list li.check-fail").all_text_contents(),
    }


def rewrite_archive(page, change) -> None:
    """Serve the real archive with ``change(lines)`` applied."""

    def handle(route):
        response = route.fetch()
        lines = [json.loads(line) for line in response.text().splitlines() if line.strip()]
        change(lines)
        route.fulfill(response=response, body="".join(json.dumps(line) + "\n" for line in lines))

    page.unroute(ARCHIVE)
    page.route(ARCHIVE, handle)


@pytest.fixture
def closed_day():
    from challenges import days

    assert CLOSED_DAY < days.today() - dt.timedelta(days=1)  # long closed: the seed is public
    attempts = ranked_games(CLOSED_DAY, ["Checker Ann", "Checker Bo", "Checker Cy", "Checker Di"])
    from leaderboard.models import Result

    results = {r.attempt_id: r for r in Result.objects.filter(challenge=attempts[0].challenge)}
    assert len({(results[a.pk].score, results[a.pk].asks) for a in attempts}) > 1, "the games differ"
    return attempts


def test_check_this_day_passes_then_catches_tampering(new_page, closed_day):
    viewer = closed_day[2]
    page = new_page()
    page.context.add_cookies([{"name": "sessionid", "value": session_for(viewer), "url": page.base}])
    requests = []
    page.on("request", lambda r: requests.append((r.method, r.url)))
    page.goto(page.base + f"/leaderboard/{CLOSED_DAY.isoformat()}/")
    seed = page.text_content("#seed")

    # The viewer's own game is the one replayed.
    found = run_check(page)
    assert found["status"] == "Every check passed." and not found["failed"], found
    assert len(found["passed"]) == 5, found
    viewer_rank = page.eval_on_selector("tr.me", "row => row.dataset.rank")
    assert any(f"Rank {viewer_rank}, {viewer.player.name}: replayed from the seed" in s for s in found["passed"])
    assert any("The 4 ranked games are in the published order" in s for s in found["passed"])
    assert page.get_attribute("#check-results", "aria-live") == "polite"
    page.locator("#check-results").scroll_into_view_if_needed()
    screenshot(page, "day-check-passed")

    # Any game the viewer picks.
    found = run_check(page, "4")
    last = page.eval_on_selector("tr[data-rank='4']", "row => row.dataset.name")
    assert not found["failed"] and any(f"Rank 4, {last}: replayed" in s for s in found["passed"]), found
    assert run_check(page, "9")["failed"] == ["✗ No game is ranked 9 on this day."]

    # Only reads, and nothing of the game itself.
    assert {method for method, _ in requests} == {"GET"}
    assert not any("/attempt" in url or "/asks" in url for _, url in requests)

    # One published score changed: the replay and the page say otherwise.
    def raise_viewer(lines):
        line = next(line for line in lines if line["player"] == viewer.player.name)
        line["score"] += 30

    rewrite_archive(page, raise_viewer)
    found = run_check(page)
    assert "failed" in found["status"]
    assert any(
        f"Rank {viewer_rank}, {viewer.player.name}: the replay gives" in s and "but the archive says" in s
        for s in found["failed"]
    ), found
    assert any("does not say what this page shows" in s for s in found["failed"]), found
    assert any("SHA-256 of the revealed seed is the commitment" in s for s in found["passed"])

    # Games dealt from another seed than the one revealed.
    def other_seed(lines):
        for line in lines:
            line["seed"] = seed + "x"

    rewrite_archive(page, other_seed)
    found = run_check(page)
    assert found["status"] == "1 check failed.", found
    assert found["failed"] == ["✗ The archive's game ranked 1 was not dealt from the revealed seed of this day."]

    # Ranks out of order (the first line's rank 4 may follow provisional newcomers' gaps:
    # the second, ranked 3, may not).
    rewrite_archive(page, lambda lines: lines.reverse())
    found = run_check(page)
    assert any("out of order at line 2" in s for s in found["failed"]), found

    # A page whose commitment is not the seed's SHA-256.
    page.unroute(ARCHIVE)
    commitment = page.text_content("#commitment")

    def other_commitment(route):
        response = route.fetch()
        route.fulfill(response=response, body=response.text().replace(commitment, "0" * 64))

    page.route(page.base + f"/leaderboard/{CLOSED_DAY.isoformat()}/", other_commitment)
    page.reload()
    found = run_check(page)
    assert found["status"] == "1 check failed.", found
    assert found["failed"] == [
        "✗ SHA-256 of the revealed seed is not the commitment published before the day: this is not the promised deal."
    ]


@pytest.mark.parametrize("locale", ["fr-FR", "de-DE", "ja-JP"])
def test_check_this_day_speaks_the_pages_language(new_page, closed_day, locale):
    page = new_page(locale=locale)
    page.goto(page.base + f"/leaderboard/{CLOSED_DAY.isoformat()}/")
    found = run_check(page)  # nobody signed in: the first game
    assert found["status"] == ALL_PASSED[locale] and len(found["passed"]) == 5, found
    first = page.eval_on_selector("tr[data-rank='1']", "row => row.dataset.name")
    assert any(first in s for s in found["passed"])
    assert not any("Rank " in s or "ranked" in s for s in found["passed"])  # translated, not English


def test_the_checked_day_has_no_serious_accessibility_violation(new_page, closed_day):
    # axe is injected as an inline script, which the site's CSP forbids: this page alone
    # lifts it, the others run the check under the CSP.
    page = new_page(bypass_csp=True)
    page.goto(page.base + f"/leaderboard/{CLOSED_DAY.isoformat()}/")
    assert run_check(page)["status"] == "Every check passed."
    assert not violations(page)


def test_no_check_on_an_open_day(new_page):
    from challenges import days
    from tests.test_admin import verified_attempt

    verified_attempt("Open Day Oz")
    page = new_page()
    archive = []
    page.on("request", lambda r: "/archive" in r.url and archive.append(r.url))
    page.goto(page.base + f"/leaderboard/{days.today().isoformat()}/")
    assert page.locator("#seed").count() == 0
    assert page.locator("#day-check, #check-day").count() == 0
    assert not page.get_by_role("button", name="Check this day").count()
    assert archive == []


def test_a_new_site_s_day_checks_the_viewer_s_own_game_and_says_when_nothing_is_public(new_page, settings):
    # Nobody established yet: the archive is empty, the players' games are listed apart.
    settings.ESTABLISHED_DAYS = 3
    newcomers = ranked_games(CLOSED_DAY, ["Fresh Ann", "Fresh Bo"])
    viewer = newcomers[1]
    page = new_page()
    page.goto(page.base + f"/leaderboard/{CLOSED_DAY.isoformat()}/")
    assert page.locator("#newcomers-title").text_content() == "New players this day"
    assert sorted(page.locator(".newcomers-board tbody tr").evaluate_all("rows => rows.map(r => r.dataset.name)")) == [
        "Fresh Ann",
        "Fresh Bo",
    ]
    # Nobody's game to replay: not "every check passed".
    found = run_check(page)
    assert found["status"] == "The commitment checks, but there is no game on this day to replay.", found
    assert any("holds no game yet" in s for s in found["passed"]) and not found["failed"], found

    # The viewer's own game is replayed, though it is in no archive yet.
    page.context.add_cookies([{"name": "sessionid", "value": session_for(viewer), "url": page.base}])
    page.reload()
    found = run_check(page)
    assert found["status"] == "Every check passed." and not found["failed"], found
    assert any(
        s.startswith("✓ Your game, not in the public archive yet") and "Fresh Bo: replayed from the seed" in s
        for s in found["passed"]
    ), found
    page.locator("#check-results").scroll_into_view_if_needed()
    screenshot(page, "day-check-newcomer")
