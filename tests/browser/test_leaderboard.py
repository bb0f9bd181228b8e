"""The leaderboard page: viewer highlighted, pagination, histogram, commitment and seed."""

import datetime as dt
import hashlib

import pytest

from tests.conftest import new_player

from .conftest import no_horizontal_scroll, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def finish_game(client, date="today"):
    """Play a whole game through the API: always ask for the first card in hand."""
    from challenges.services import attempt_verify

    view = client.post(f"/api/challenges/{date}/attempt", format="json").json()
    while not view["over"]:
        view = client.post(
            f"/api/attempts/{view['id']}/asks", {"rank": view["hand"][0][:-1], "move": view["move"]}, format="json"
        ).json()
    attempt_verify(attempt_id=view["id"])  # the worker's role, whatever the broker
    return client.get(f"/api/attempts/{view['id']}").json()


def log_in(page, client, password="correct horse 42"):
    assert client.post("/api/players/me/password", {"password": password}, format="json").status_code == 200
    response = page.request.post(page.base + "/api/session", data={"name": client.player["name"], "password": password})
    assert response.ok, response.text()


def test_leaderboard_highlights_the_viewer_and_draws_the_histogram(new_page, monkeypatch):
    from challenges import days
    from frontend import views

    monkeypatch.setattr(views, "PAGE_SIZE", 2)
    players = [new_player(f"Board {n}") for n in range(3)]
    results = [finish_game(p)["result"] for p in players]
    me = players[2]
    page = new_page()
    log_in(page, me)
    today = days.today().isoformat()
    page.goto(page.base + f"/leaderboard/{today}/")
    assert "3 ranked games" in page.content()
    assert page.locator("table.board tbody tr").count() == 2  # paginated
    assert page.locator(".histogram svg rect").count() >= 1
    assert page.locator("#proof-title").is_visible() and page.locator("#seed").count() == 0  # open day: no seed
    my_rank = results[2]["rank"]
    if my_rank > 2:
        page.click("text=Show my row")
    row = page.locator("tr.me")
    assert row.count() == 1 and "Board 2" in row.text_content()
    screenshot(page, "leaderboard-desktop")
    # A closed day shows the seed, whose SHA-256 is the commitment.
    page.goto(page.base + "/leaderboard/")
    page.fill("#day-input", (days.today() - dt.timedelta(days=2)).isoformat())
    page.click(".day-picker button")
    seed = page.text_content("#seed")
    assert hashlib.sha256(seed.encode()).hexdigest() in page.content()
    assert "Nobody is ranked" in page.content()


def test_leaderboard_on_a_phone(new_page):
    from challenges import days

    finish_game(new_player("Phone Board"))
    page = new_page(viewport={"width": 390, "height": 844})
    page.goto(page.base + f"/leaderboard/{days.today().isoformat()}/")
    assert no_horizontal_scroll(page)
    screenshot(page, "leaderboard-portrait")


@pytest.mark.parametrize("locale", ["fr-FR", "de-DE"])
def test_histogram_draws_in_languages_with_a_decimal_comma(new_page, locale):
    from challenges import days

    for n in range(3):
        finish_game(new_player(f"Komma {n}"))
    page = new_page(locale=locale)
    page.goto(page.base + f"/leaderboard/{days.today().isoformat()}/")
    bars = page.locator(".histogram svg rect")
    assert bars.count() >= 1
    for i in range(bars.count()):
        for attribute in ("x", "y", "width", "height"):
            value = bars.nth(i).get_attribute(attribute)
            assert "," not in value and float(value) >= 0, (attribute, value)
        box = bars.nth(i).bounding_box()
        assert box and box["width"] > 0 and box["height"] > 0  # drawn, not dropped as invalid


def test_moments_are_shown_in_the_readers_time_zone_with_the_zone_named(new_page):
    """A reader in Tokyo sees the finish times and when a replay opens in Tokyo's time, the
    zone named; the server's text (the day's zone, named) is what shows without scripts."""
    import datetime as dt
    from zoneinfo import ZoneInfo

    from challenges import days
    from challenges.models import Attempt

    client = new_player("Tokyo Tomo")
    view = finish_game(client)
    attempt = Attempt.objects.select_related("challenge").get(pk=view["id"])
    tokyo = ZoneInfo("Asia/Tokyo")
    page = new_page(timezone_id="Asia/Tokyo", viewport={"width": 390, "height": 844})
    page.goto(page.base + f"/leaderboard/{days.today().isoformat()}/")
    row = page.locator("tr[data-name='Tokyo Tomo'] time")
    finished = attempt.finished_at.astimezone(tokyo)
    page.wait_for_function("document.querySelector('[data-zone]').textContent === '(GMT+9)'")
    assert row.inner_text() == finished.strftime("%H:%M:%S")
    no_script = new_page(java_script_enabled=False)
    no_script.goto(no_script.base + f"/leaderboard/{days.today().isoformat()}/")
    server_zone = attempt.finished_at.astimezone(days.zone()).strftime("%Z")
    assert no_script.locator("[data-zone]").inner_text() == f"({server_zone})"

    log_in(page, client)
    page.goto(page.base + f"/replays/{attempt.pk}/")
    opens = attempt.challenge.reveals_at.astimezone(tokyo)
    moment = page.locator("#opens time")
    page.wait_for_function("document.querySelector('#opens time').textContent.endsWith('GMT+9')")
    assert moment.inner_text() == opens.strftime("%Y-%m-%d %H:%M") + " GMT+9"
    assert dt.datetime.fromisoformat(moment.get_attribute("datetime")) == attempt.challenge.reveals_at
