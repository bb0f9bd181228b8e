"""The player's own account: changing the name, a one-time code for another
device, the export of everything and deletion."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings
from rest_framework.test import APIClient

from casual.models import CasualGame, CasualOwner
from challenges import accounts, services
from challenges.models import Attempt, DeviceCode, Player
from leaderboard.models import Result
from tests.conftest import new_player
from tests.test_daily_api import play_to_end, start

pytestmark = pytest.mark.django_db

_ips = itertools.count(1)


def own_address() -> str:
    return f"10.79.{os.getpid() % 250}.{next(_ips)}"


def ranked_and_verified(client) -> dict:
    """Today's game played to its end and verified here (no worker needed)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(services, "enqueue_verification", lambda attempt_id: None)
        view = play_to_end(client, start(client))
    services.attempts_verify(attempt_ids=[view["id"]])
    return client.get(f"/api/attempts/{view['id']}").json()


def board_names(date: str = "today") -> list[tuple[int, str]]:
    entries = APIClient().get(f"/api/leaderboard/{date}").json()["entries"]
    return [(e["rank"], e["name"]) for e in entries]


def browser_player(name: str) -> APIClient:
    """A browser (session cookie) with a new player."""
    browser = APIClient()
    assert browser.post("/api/players", {"name": name}, format="json").status_code == 201
    return browser


# --- the name ----------------------------------------------------------------------


def test_a_player_changes_their_name_and_every_leaderboard_shows_the_new_one():
    alice = new_player("Alice")
    ranked_and_verified(alice)
    assert [name for _, name in board_names()] == ["Alice"]
    renamed = alice.patch("/api/players/me", {"name": "Ａlice Liddell"}, format="json")
    assert renamed.status_code == 200, renamed.content
    assert renamed.json()["name"] == "Alice Liddell"  # NFKC, as a first name is
    assert alice.get("/api/players/me").json()["name"] == "Alice Liddell"
    assert [name for _, name in board_names()] == ["Alice Liddell"]
    # Changing only the case of one's own name is not "taken" by oneself.
    assert alice.patch("/api/players/me", {"name": "alice liddell"}, format="json").status_code == 200


def test_a_new_name_follows_the_rules_of_a_first_name():
    new_player("Bob")
    carol = new_player("Carol")
    for name, code, status in [
        ("Ｂｏｂ", "name_taken", 409),
        ("𝐁ob", "name_taken", 409),
        ("B0B", "name_taken", 409),  # a zero looks like an O
        ("bob", "name_taken", 409),
        ("x", "bad_name", 400),
        ("Аlice", "bad_name", 400),
        ("Zoé!", "bad_name", 400),
    ]:
        response = carol.patch("/api/players/me", {"name": name}, format="json")
        assert (response.status_code, response.json()["error"]) == (status, code), (name, response.content)
    assert carol.patch("/api/players/me", {"name": 7}, format="json").json()["error"] == "wrong_type"
    assert APIClient().patch("/api/players/me", {"name": "Dave"}, format="json").status_code == 401
    assert Player.objects.get(pk=carol.player["id"]).name == "Carol"


# --- another device ----------------------------------------------------------------


def test_a_one_time_code_signs_a_second_device_in_once():
    first = browser_player("Dora")
    made = first.post("/api/players/me/code")
    assert made.status_code == 201, made.content
    code = made.json()["code"]
    assert len(code) == 9 and code[4] == "-"
    expires = dt.datetime.fromisoformat(made.json()["expires_at"])
    assert dt.timedelta(minutes=9) < expires - dt.datetime.now(dt.UTC) <= dt.timedelta(minutes=10)
    # Only a keyed hash is stored: the code is nowhere in the database.
    assert code.replace("-", "") not in json.dumps(list(DeviceCode.objects.values()), default=str)
    second = APIClient()
    assert second.get("/api/players/me").status_code == 401
    typed = second.post("/api/session/code", {"code": code.lower().replace("-", " ")}, format="json")
    assert typed.status_code == 200, typed.content
    assert typed.json()["name"] == "Dora"
    assert second.get("/api/players/me").json()["name"] == "Dora"
    # Single use: a third device with the same code is refused.
    again = APIClient().post("/api/session/code", {"code": code}, format="json")
    assert (again.status_code, again.json()["error"]) == (400, "bad_code")


def test_a_code_expires_after_ten_minutes_and_a_new_one_replaces_the_old():
    player = Player.objects.get(pk=new_player("Eve").player["id"])
    made_at = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)
    code, expires = accounts.device_code_create(player=player, now=made_at)
    assert expires == made_at + dt.timedelta(minutes=10)
    with pytest.raises(accounts.AccountError) as refused:
        accounts.device_code_redeem(code=code, now=made_at + dt.timedelta(minutes=10, seconds=1))
    assert refused.value.code == "bad_code"
    assert accounts.device_code_redeem(code=code, now=made_at + dt.timedelta(minutes=9)).pk == player.pk
    first, _ = accounts.device_code_create(player=player, now=made_at)
    second, _ = accounts.device_code_create(player=player, now=made_at)
    with pytest.raises(accounts.AccountError):
        accounts.device_code_redeem(code=first, now=made_at)
    assert accounts.device_code_redeem(code=second, now=made_at).pk == player.pk


def test_codes_are_rate_limited_per_address_when_typed_and_per_player_when_made():
    address = own_address()
    owner = browser_player("Fay")
    with override_settings(RATE_LIMITS={"device_code_tries": "3/hour", "device_codes": "2/hour"}):
        guesser = APIClient(REMOTE_ADDR=address)
        codes = [
            guesser.post("/api/session/code", {"code": f"AAAA-AAA{n}"}, format="json").status_code for n in range(2, 6)
        ]
        assert codes == [400, 400, 400, 429]
        limited = guesser.post("/api/session/code", {"code": "AAAA-AAA9"}, format="json")
        assert limited.json()["error"] == "rate_limited" and 1 <= int(limited["Retry-After"]) <= 3601
        # Past the limit, even the right code waits: it cannot be found by guessing faster.
        right = owner.post("/api/players/me/code").json()["code"]
        assert guesser.post("/api/session/code", {"code": right}, format="json").status_code == 429
        assert (
            APIClient(REMOTE_ADDR=own_address()).post("/api/session/code", {"code": right}, format="json").status_code
            == 200
        )
        assert owner.post("/api/players/me/code").status_code == 201
        assert owner.post("/api/players/me/code").status_code == 429


# --- your data ---------------------------------------------------------------------


def test_the_export_holds_the_profile_every_game_with_its_asks_and_the_casual_games():
    gus = browser_player("Gus")
    verified = ranked_and_verified(gus)
    practice = gus.post(f"/api/challenges/{(dt.date.today() - dt.timedelta(days=1)).isoformat()}/attempt")
    casual = gus.post("/api/casual/kitten/games", {}, format="json").json()
    gus.post("/api/players/me/code")
    response = gus.get("/api/players/me/export")
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"] and response["Cache-Control"] == "no-store"
    data = response.json()
    assert data["profile"]["name"] == "Gus" and data["profile"]["has_password"] is False
    by_id = {a["id"]: a for a in data["attempts"]}
    ranked = by_id[verified["id"]]
    assert ranked["ranked"] is True and ranked["status"] == "verified"
    assert ranked["asks"] == Attempt.objects.get(pk=verified["id"]).moves and len(ranked["asks"]) == verified["asks"]
    assert ranked["result"]["score"] == verified["result"]["score"] and ranked["result"]["rank"] == 1
    if practice.status_code in (200, 201):
        assert by_id[practice.json()["id"]]["ranked"] is False
    assert [g["id"] for g in data["casual_games"]] == [casual["id"]]
    assert data["casual_games"][0]["seed"] is None  # still playing: its next cards stay secret
    assert len(data["device_codes"]) == 1 and set(data["device_codes"][0]) == {"created_at", "expires_at", "used_at"}
    # No secret of an open day: today's seed is nowhere in it.
    today_seed = Attempt.objects.get(pk=verified["id"]).challenge.seed
    assert today_seed not in response.content.decode()
    assert APIClient().get("/api/players/me/export").status_code == 401


def test_deleting_the_account_keeps_the_ranks_under_a_label_and_refuses_the_old_credentials():
    first = new_player("Hana")
    ranked_and_verified(first)
    browser = APIClient()
    assert browser.post("/api/players", {"name": "Ivan"}, format="json").status_code == 201
    ivan = Player.objects.get(name="Ivan")
    other = new_player("Ivan Two")  # another player by token, untouched by Ivan's deletion
    # Ivan plays today's game ranked in the browser, a practice game and a casual game.
    ranked_and_verified(browser)
    browser.post("/api/casual/kitten/games", {}, format="json")
    second_browser = APIClient()
    code = browser.post("/api/players/me/code").json()["code"]
    assert second_browser.post("/api/session/code", {"code": code}, format="json").status_code == 200
    before = board_names()
    ranks_before = [rank for rank, _ in before]
    assert {name for _, name in before} == {"Hana", "Ivan"}

    deleted = browser.delete("/api/players/me")
    assert deleted.status_code == 204
    # The login is gone: this browser, the other device signed in by code, and the token.
    assert browser.get("/api/players/me").status_code == 401
    assert second_browser.get("/api/players/me").status_code == 401
    ivan.refresh_from_db()
    assert ivan.user is None and ivan.name == "" and ivan.deleted_at is not None
    assert get_user_model().objects.filter(player__isnull=True).count() == 0
    assert (
        not CasualOwner.objects.filter(player=ivan).exists()
        and not CasualGame.objects.filter(owner__player=ivan).exists()
    )
    assert not DeviceCode.objects.filter(player=ivan).exists()
    # The ranks did not move; Ivan's row reads as a deleted player, in the reader's language.
    after = board_names()
    assert [rank for rank, _ in after] == ranks_before
    label = dict((name, rank) for rank, name in after)
    deleted_label = next(name for name in label if name != "Hana")
    assert deleted_label.startswith("Deleted player ") and len(deleted_label.split()[-1]) == 4
    # The API speaks English; pages speak the reader's language.
    from challenges import days

    page = APIClient().get(f"/leaderboard/{days.today().isoformat()}/", HTTP_ACCEPT_LANGUAGE="fr")
    assert f"Joueur supprimé {deleted_label.split()[-1]}" in page.content.decode()
    assert "Ivan" not in page.content.decode()
    assert Result.objects.filter(player=ivan, ranked=True).count() == 1
    kept = Attempt.objects.get(player=ivan)
    assert kept.client_key == "" and kept.browser_key == ""
    # Nobody can take over the account: not by the old name's look-alike, nor an empty name.
    assert APIClient().post("/api/session", {"name": "", "password": "x" * 10}, format="json").status_code in (400, 401)
    assert APIClient().post("/api/players", {"name": "Ivan"}, format="json").status_code == 201  # the name is free
    assert other.get("/api/players/me").status_code == 200


def test_a_deleted_players_token_is_refused_at_once():
    client = new_player("Jun")
    assert client.get("/api/players/me").status_code == 200
    assert client.delete("/api/players/me").status_code == 204
    refused = client.get("/api/players/me")
    assert refused.status_code == 401
    assert client.post("/api/challenges/today/attempt").status_code == 401
