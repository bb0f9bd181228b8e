"""Held means private: a held result (under review) appears on no public page, neither the
player's page (today's included, while the day is open) nor its replay after the close, the
day's board, archive or histogram. Its own player sees it "under review"; staff (reviewers)
see everything. Each page is read as an anonymous visitor, another player, the player and
staff."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from challenges import days, services
from challenges.models import Player
from leaderboard import services as board_services
from leaderboard.models import Result
from tests.conftest import first_rank, new_player, verified_game

pytestmark = pytest.mark.django_db(transaction=True)

CLOSED = dt.date(2026, 6, 2)  # its seed is public: replays and the archive are open


def clairvoyant(state) -> str:
    return next((rank for rank in state.hands[0] if rank in state.hands[1]), next(iter(state.hands[0])))


def browser_of(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


@pytest.fixture
def viewers(monkeypatch):
    monkeypatch.setattr(services, "enqueue_verification", lambda attempt_id: None)
    mallory = Player.objects.get(pk=new_player("Mallory").player["id"])
    other = Player.objects.get(pk=new_player("Olive").player["id"])
    staff = Client()
    staff.force_login(get_user_model().objects.create_user("rita", "r@example.com", "pw-Review-123", is_staff=True))
    return (
        {
            "anonymous": Client(),
            "another player": browser_of(other),
            "the player": browser_of(mallory),
            "staff": staff,
        },
        mallory,
        other,
    )


def test_a_held_game_is_private_to_its_player_and_reviewers(viewers):
    clients, mallory, other = viewers
    held = verified_game(day=CLOSED, player=mallory, choose=clairvoyant)
    verified_game(day=CLOSED, player=other, choose=first_rank)
    today = verified_game(player=mallory, choose=clairvoyant)  # the day still open
    # Today's deal changes with the date: its game is held by the rule, flagged or not by it.
    Result.objects.filter(attempt=today).update(flagged=True)
    board_services.rehold([Result.objects.get(attempt=today).pk])
    for attempt in (held, today):
        assert Result.objects.get(attempt=attempt).held
    score = Result.objects.get(attempt=held).score

    for who, client in clients.items():
        private = who in ("the player", "staff")
        page = client.get(f"/players/{mallory.pk}/")
        assert page.status_code == 200
        html = page.content.decode()
        # Both held days, the closed one and today's, only for the player and staff.
        for day in (CLOSED, days.today()):
            assert (f"/leaderboard/{day.isoformat()}/" in html) == private, (who, day)
        assert ("under review" in html) == private, who
        replay = client.get(f"/replays/{held.pk}/")
        assert replay.status_code == (200 if private else 404), who
        if private:
            assert "under review" in replay.content.decode() and str(score) in replay.content.decode()

        # Nowhere on the day's public board, archive or histogram, whoever reads them.
        board = client.get(f"/api/leaderboard/{CLOSED.isoformat()}?limit=200").json()
        assert [e["name"] for e in board["entries"]] == ["Olive"] and board["total"] == 1
        bins = client.get(f"/api/leaderboard/{CLOSED.isoformat()}/histogram").json()["bins"]
        assert sum(b["count"] for b in bins) == 1
        archive = client.get(f"/api/challenges/{CLOSED.isoformat()}/archive")
        lines = [json.loads(line) for line in b"".join(archive.streaming_content).decode().splitlines()]
        assert [line["player"] for line in lines] == ["Olive"]
        assert 'data-name="Mallory"' not in client.get(f"/leaderboard/{CLOSED.isoformat()}/").content.decode()
        assert 'data-name="Olive"' in client.get(f"/leaderboard/{CLOSED.isoformat()}/").content.decode()

    # Once cleared it is public again, its replay too.
    Result.objects.filter(attempt=held).update(held=False)
    assert clients["anonymous"].get(f"/replays/{held.pk}/").status_code == 200
    assert f"/leaderboard/{CLOSED.isoformat()}/" in clients["anonymous"].get(f"/players/{mallory.pk}/").content.decode()
