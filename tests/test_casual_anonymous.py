"""Casual games need no account: a browser's games belong to its session, no
player is made, no sign-up is spent; they follow a player who signs in on that browser."""

from __future__ import annotations

import itertools
import os

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings
from rest_framework.test import APIClient

from casual.models import CasualGame, CasualOwner
from challenges.models import Player
from config.settings import base

pytestmark = pytest.mark.django_db

_ips = itertools.count(1)


def own_address() -> str:
    """An address of this test's own: rate-limit windows outlive a test in a shared Redis."""
    return f"10.78.{os.getpid() % 250}.{next(_ips)}"


def production_limits():
    """The limits a deployment runs with (config/settings/base.py), not the tests' "off"."""
    return override_settings(RATE_LIMITS=dict(base.RATE_LIMITS))


def play_kitten_to_the_end(client) -> dict:
    created = client.post("/api/casual/kitten/games", {}, format="json")
    assert created.status_code == 201, created.content
    game = created.json()
    flipped = client.post(
        f"/api/casual/kitten/games/{game['id']}/moves", {"play": "flip", "move": game["move"]}, format="json"
    )
    assert flipped.status_code == 200, flipped.content
    done = client.post(f"/api/casual/kitten/games/{game['id']}/finish", {"move": flipped.json()["move"]}, format="json")
    assert done.status_code == 200, done.content
    assert done.json()["status"] == "over"
    return done.json()


def play_gofish_move(client) -> dict:
    created = client.post("/api/casual/gofish/games", {"players": 3}, format="json")
    assert created.status_code == 201, created.content
    game = created.json()
    rank = game["hand"][0][:-1]
    moved = client.post(
        f"/api/casual/gofish/games/{game['id']}/moves",
        {"play": {"seat": 0, "target": 1, "rank": rank}, "move": game["move"]},
        format="json",
    )
    assert moved.status_code == 200, moved.content
    return moved.json()


def test_a_browser_without_a_player_plays_kitten_and_go_fish_and_no_player_is_made():
    browser = APIClient()
    assert browser.get("/api/casual/kitten").json()["current"] is None
    finished = play_kitten_to_the_end(browser)
    play_gofish_move(browser)
    assert Player.objects.count() == 0 and get_user_model().objects.count() == 0
    assert CasualOwner.objects.count() == 1 and CasualOwner.objects.get().player is None
    # The session remembers the games: the page resumes them after a reload.
    home = browser.get("/api/casual/kitten").json()
    assert home["current"]["id"] == finished["id"] and sum(home["tally"].values()) == 1
    assert browser.get("/api/casual/gofish").json()["current"]["status"] == "playing"
    # Nobody else sees them: another browser has none, and asking for one by id is a 404.
    other = APIClient()
    assert other.get("/api/casual/kitten").json()["current"] is None
    assert other.get(f"/api/casual/kitten/games/{finished['id']}").status_code == 404
    assert (
        other.post(f"/api/casual/kitten/games/{finished['id']}/finish", {"move": 0}, format="json").status_code == 404
    )
    # The daily game still needs a player: it asks for a name.
    assert browser.post("/api/challenges/today/attempt").status_code == 401


def test_an_anonymous_browsers_writes_are_checked_against_csrf():
    browser = APIClient(enforce_csrf_checks=True)
    page = browser.get("/kitten/")
    assert page.status_code == 200
    refused = browser.post("/api/casual/kitten/games", {}, format="json")
    assert refused.status_code == 403 and CasualGame.objects.count() == 0
    token = page.cookies["csrftoken"].value
    accepted = browser.post("/api/casual/kitten/games", {}, format="json", HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 201, accepted.content


def test_a_class_of_40_browsers_behind_one_address_all_play_under_the_production_limits():
    address = own_address()
    with production_limits():
        assert base.RATE_LIMITS["players"] not in ("off", "", None)
        browsers = [APIClient(REMOTE_ADDR=address) for _ in range(40)]
        for browser in browsers:
            assert browser.get("/kitten/").status_code == 200
            play_kitten_to_the_end(browser)
            assert browser.get("/gofish/").status_code == 200
            play_gofish_move(browser)
        # Each browser has its own games, none made a player, no sign-up was spent:
        # the teacher can still choose a name for the daily game from the same address.
        assert CasualOwner.objects.filter(player__isnull=True).count() == 40
        assert all(CasualGame.objects.filter(owner=o).count() == 2 for o in CasualOwner.objects.all())
        assert Player.objects.count() == 0
        teacher = browsers[0].post("/api/players", {"name": "Teacher"}, format="json")
        assert teacher.status_code == 201, teacher.content


def test_anonymous_owners_are_limited_per_address_with_a_retry_after():
    address = own_address()
    with override_settings(RATE_LIMITS={**base.RATE_LIMITS, "casual_owners": "2/hour"}):
        for _ in range(2):
            assert APIClient(REMOTE_ADDR=address).post("/api/casual/kitten/games", {}, format="json").status_code == 201
        refused = APIClient(REMOTE_ADDR=address).post("/api/casual/kitten/games", {}, format="json")
        assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
        assert 1 <= int(refused["Retry-After"]) <= 3601
        # A browser that has its owner already goes on playing; so does a player.
        first = APIClient(REMOTE_ADDR=address)
        with override_settings(RATE_LIMITS={"casual_owners": "off"}):
            assert first.post("/api/casual/kitten/games", {}, format="json").status_code == 201
        assert first.post("/api/casual/kitten/games", {}, format="json").status_code == 201


def test_the_browsers_games_follow_the_player_who_signs_in_on_it():
    browser = APIClient()
    finished = play_kitten_to_the_end(browser)
    playing = browser.post("/api/casual/kitten/games", {}, format="json").json()
    assert playing["number"] == 2
    created = browser.post("/api/players", {"name": "Carol"}, format="json")
    assert created.status_code == 201
    home = browser.get("/api/casual/kitten").json()
    assert (
        home["current"]["id"] == playing["id"]
        and home["tally"]["win"] + home["tally"]["loss"] + home["tally"]["draw"] == 1
    )
    carol = Player.objects.get(name="Carol")
    assert set(CasualGame.objects.filter(owner__player=carol).values_list("id", flat=True)) == {
        finished["id"],
        playing["id"],
    }
    assert not CasualOwner.objects.filter(player__isnull=True).exists()
    # The same player by token (another client) sees the same games.
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {created.json()['token']}")
    assert api.get("/api/casual/kitten").json()["current"]["id"] == playing["id"]
    # Kitten's alternation goes on from the games played before signing in.
    assert browser.post("/api/casual/kitten/games", {}, format="json").json()["number"] == 3


def test_reading_casual_games_writes_nothing_and_a_session_signed_in_earlier_brings_its_games_on_its_next_game():
    """The games move at log-in, not on a read: a session still naming its anonymous games
    beside its player (signed in before that) brings them on its first casual write."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from casual.selectors import SESSION_OWNER

    browser = APIClient()
    finished = play_kitten_to_the_end(browser)
    anonymous_id = CasualGame.objects.get(pk=finished["id"]).owner_id
    assert browser.post("/api/players", {"name": "Dora"}, format="json").status_code == 201
    session = browser.session
    session[SESSION_OWNER] = CasualOwner.objects.create().pk  # as a session signed in earlier kept it
    session.save()
    left_over = session[SESSION_OWNER]
    CasualGame.objects.create(owner_id=left_over, game="kitten", seed="ab" * 16, options={"first": "player"})
    with CaptureQueriesContext(connection) as queries:
        for url in ("/api/casual/kitten", "/api/casual/gofish", f"/api/casual/kitten/games/{finished['id']}"):
            assert browser.get(url).status_code == 200
    writes = [q["sql"] for q in queries.captured_queries if not q["sql"].lstrip().upper().startswith("SELECT")]
    assert not writes
    assert not CasualOwner.objects.filter(pk=anonymous_id).exists()  # adopted at log-in
    assert CasualOwner.objects.filter(pk=left_over, player__isnull=True).exists()
    created = browser.post("/api/casual/kitten/games", {}, format="json")
    assert created.status_code == 201 and created.json()["number"] == 3
    assert not CasualOwner.objects.filter(pk=left_over).exists()
