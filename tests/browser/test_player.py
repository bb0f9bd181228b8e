"""The player page: results by day, best score, streaks, password and log-in forms."""

import datetime as dt

import pytest

from tests.conftest import new_player

from .conftest import screenshot
from .test_leaderboard import finish_game, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_player_page_shows_results_and_streaks(new_page):
    from challenges import days
    from challenges.models import Attempt
    from leaderboard.models import Result

    client = new_player("Streaky")
    view = finish_game(client)
    # Two earlier days as if ranked then (a ranked result is only written by the verification).
    for back in (1, 2):
        day = days.today() - dt.timedelta(days=back)
        practice = finish_game(client, day.isoformat())
        Attempt.objects.filter(pk=practice["id"]).update(ranked=True)
        Result.objects.filter(attempt_id=practice["id"]).update(ranked=True)
    page = new_page()
    log_in(page, client)
    page.goto(page.base + "/me/")
    assert page.url.endswith(f"/players/{client.player['id']}/")
    assert page.locator("table.results tbody tr").count() == 3
    assert page.text_content("#current-streak") == "3"
    assert page.text_content("#longest-streak") == "3"
    best = max(int(x) for x in page.locator("table.results tbody tr td:nth-child(2)").all_text_contents())
    assert page.text_content("#best") == str(best) and best >= view["result"]["score"]
    page.fill("#password-input", "another good one 99")
    page.click("#password-form button")
    page.wait_for_selector("#password-form .form-status:text('Password saved.')")
    screenshot(page, "player-desktop")


def test_log_in_on_another_device(new_page):
    client = new_player("Traveller")
    client.post("/api/players/me/password", {"password": "long enough pass 7"}, format="json")
    page = new_page()
    page.goto(page.base + "/me/")
    page.fill("#login-name", "Traveller")
    page.fill("#login-password", "long enough pass 7")
    with page.expect_navigation(url=f"**/players/{client.player['id']}/"):
        page.click("#login-form button")
    assert "Traveller" in page.text_content("h1")
