"""Who you are, in the browser: casual games first and then the daily game asks
for a name; the name changed on /me/; a code for another device; the data downloaded and
the account deleted with a confirmation; a 429 waited out with a message."""

import json

import pytest

from tests.conftest import new_player

from .conftest import screenshot
from .test_leaderboard import finish_game, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_kitten_first_then_the_daily_page_asks_for_a_name(new_page):
    from casual.models import CasualGame
    from challenges.models import Player

    page = new_page(locale="fr-FR")
    page.goto(page.base + "/kitten/")
    page.wait_for_function("document.getElementById('kt-count-0').textContent !== '0'")
    page.goto(page.base + "/gofish/")
    page.wait_for_selector("#gofish")
    assert CasualGame.objects.filter(owner__player__isnull=True).count() >= 1
    assert not Player.objects.exists()
    page.goto(page.base + "/daily/")
    page.wait_for_selector("#name-prompt:not([hidden])")
    assert page.is_visible("#name-input")
    page.fill("#name-input", "Kitten Fan")
    page.click("#name-form button")
    page.wait_for_selector("#name-prompt", state="hidden")
    assert Player.objects.get().name == "Kitten Fan"
    # The Kitten game played before choosing the name followed the player.
    page.goto(page.base + "/kitten/")
    page.wait_for_function("document.getElementById('kt-count-0').textContent !== '0'")
    assert CasualGame.objects.filter(owner__player__name="Kitten Fan").exists()
    assert not CasualGame.objects.filter(owner__player__isnull=True).exists()


def test_the_player_changes_their_name_on_me_and_the_leaderboard_shows_it(new_page):
    from challenges import days

    client = new_player("Old Name")
    finish_game(client)
    page = new_page()
    log_in(page, client)
    page.goto(page.base + "/me/")
    assert page.input_value("#rename-input") == "Old Name"
    page.fill("#rename-input", "Ｎew Name")
    page.click("#rename-form button")
    page.wait_for_selector("#rename-form .form-status:text('Name changed.')")
    assert page.input_value("#rename-input") == "New Name"
    assert page.text_content("#results-title") == "Results of New Name"
    page.goto(page.base + f"/leaderboard/{days.today().isoformat()}/")
    assert page.locator("tr.me td:nth-child(2)").text_content() == "New Name"
    new_player("Taken Name")
    page.expected_errors = ["409"]
    page.goto(page.base + "/me/")
    page.fill("#rename-input", "taken name")
    page.click("#rename-form button")
    page.wait_for_selector("#rename-form .form-status:text('This name is already taken.')")


def test_a_code_shown_on_one_device_signs_in_another(new_page):
    client = new_player("Two Devices")
    first = new_page(locale="de-DE")
    log_in(first, client)
    first.goto(first.base + "/me/")
    first.click("#code-make")
    first.wait_for_selector("#code-shown:not([hidden])")
    code = first.text_content("#code-value")
    assert len(code) == 9 and "vor" in first.text_content("#code-status")
    second = new_page(locale="ja-JP", viewport={"width": 390, "height": 844})
    second.goto(second.base + "/me/")
    second.fill("#code-input", code.lower())
    second.click("#code-form button")
    second.wait_for_url("**/players/*/")
    assert "Two Devices" in second.text_content("h1")
    # The code was spent: a third device is refused, in its language.
    third = new_page(locale="fr-FR")
    third.expected_errors = ["400"]
    third.goto(third.base + "/me/")
    third.fill("#code-input", code)
    third.click("#code-form button")
    third.wait_for_selector("#code-form .form-status:text('Ce code est inconnu')")


def test_download_my_data_then_delete_the_account_after_confirming(new_page):
    from challenges import days
    from challenges.models import Player

    client = new_player("Leaving Soon")
    finish_game(client)
    new_player("Staying")  # another player, for a leaderboard of two
    page = new_page(locale="fr-FR")
    log_in(page, client)
    page.goto(page.base + "/me/")
    with page.expect_download() as download:
        page.click("#export-link")
    data = json.loads(open(download.value.path(), encoding="utf-8").read())
    assert data["profile"]["name"] == "Leaving Soon" and len(data["attempts"]) == 1
    assert data["attempts"][0]["asks"] and data["attempts"][0]["result"]["rank"] == 1
    # Deleting asks first; Cancel keeps everything.
    page.click("#delete-open")
    assert page.is_visible("#delete-confirm")
    assert "Joueur supprimé" in page.text_content("#delete-explain")
    page.click("#delete-no")
    assert page.is_hidden("#delete-confirm") and Player.objects.get(pk=client.player["id"]).deleted_at is None
    page.click("#delete-open")
    page.click("#delete-yes")
    page.wait_for_selector("#deleted-note")
    assert Player.objects.get(pk=client.player["id"]).deleted_at is not None
    # The old session is refused; the token too.
    assert page.request.get(page.base + "/api/players/me").status == 401
    assert client.get("/api/players/me").status_code == 401
    page.goto(page.base + f"/leaderboard/{days.today().isoformat()}/")
    names = page.locator("table.board tbody td:nth-child(2)").all_text_contents()
    assert len(names) == 1 and names[0].startswith("Joueur supprimé ")


@pytest.mark.parametrize("path, ready", [("/kitten/", "#kt-count-0"), ("/daily/", "#name-prompt")])
def test_a_429_says_when_the_page_tries_again_and_it_recovers_by_itself(new_page, path, ready):
    page = new_page(locale="ja-JP")
    page.expected_errors = ["429"]
    refused = {"count": 0}

    def once_rate_limited(route):
        if refused["count"] == 0:
            refused["count"] += 1
            route.fulfill(
                status=429,
                headers={"Retry-After": "2", "Content-Type": "application/json"},
                body=json.dumps({"error": "rate_limited", "detail": "Request was throttled."}),
            )
        else:
            route.continue_()

    target = "**/api/casual/kitten" if path == "/kitten/" else "**/api/challenges/today"
    page.route(target, once_rate_limited)
    page.goto(page.base + path)
    page.wait_for_selector("#wait-note:not([hidden])")
    text = page.text_content("#wait-note")
    assert "自動で再試行" in text and "秒後" in text
    screenshot(page, f"rate-limited-{path.strip('/')}-ja")
    page.wait_for_selector("#wait-note", state="hidden", timeout=10000)
    assert refused["count"] == 1
    if path == "/kitten/":
        page.wait_for_function("document.getElementById('kt-count-0').textContent !== '0'")
    else:
        page.wait_for_selector("#name-prompt:not([hidden])")
