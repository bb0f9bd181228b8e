"""The daily Pêche challenge through the HTTP API."""

from __future__ import annotations

import datetime as dt
import json
import threading

import pytest
from django.db import IntegrityError, transaction

from challenges import days, services
from challenges.models import Attempt, DailyChallenge
from games.rules.peche import ENGINE
from leaderboard.models import Result
from tests.conftest import new_player, wait_for


def start(client):
    response = client.post("/api/challenges/today/attempt")
    assert response.status_code in (200, 201), response.content
    return response.json()


def play_to_end(client, view, responses=None):
    """Ask the first rank in hand until the game is over; returns the last view."""
    while view["status"] == "playing":
        response = client.post(
            f"/api/attempts/{view['id']}/asks", {"rank": view["hand"][0][:-1], "move": view["move"]}, format="json"
        )
        assert response.status_code == 200, response.content
        if responses is not None:
            responses.append(response.content.decode())
        view = response.json()
    return view


def cards_seen_by_player(seed: str, moves: list[str]) -> set[str]:
    """Every card the player legitimately saw: its own hands at every step and its draws."""
    state = ENGINE.new(seed=seed)
    seen = set(state.hands[0].values())
    for rank in moves:
        for event in ENGINE.apply(state, rank):
            view = ENGINE.event_view(event, 0)
            if "card" in view:
                seen.add(view["card"])
            seen.update(view.get("cards", ()))  # what the opponent handed over
        seen.update(state.hands[0].values())
    return seen


ALL_CARDS = {r + s for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K") for s in "SHDC"}


def cards_in(text: str) -> set[str]:
    import re

    return set(re.findall(r'"((?:10|[2-9AJQK])[SHDC])"', text))


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_full_game_is_verified_ranked_and_leaks_nothing(celery_worker_process):
    alice = new_player("Alice")
    responses = [json.dumps(alice.get("/api/challenges/today").json())]
    view = start(alice)
    responses.append(json.dumps(view))
    view = play_to_end(alice, view, responses)
    assert view["status"] in ("verifying", "verified")

    attempt = Attempt.objects.get(pk=view["id"])
    final = wait_for(lambda: (v := alice.get(f"/api/attempts/{view['id']}").json())["status"] == "verified" and v)
    expected = ENGINE.outcome(ENGINE.replay({"seed": attempt.challenge.seed}, attempt.moves))
    assert final["result"]["score"] == expected.score
    assert final["result"]["asks"] == len(attempt.moves)
    assert final["result"]["rank"] == 1
    board = alice.get(f"/api/leaderboard/{attempt.challenge.date}").json()
    assert board["total"] == 1
    assert board["entries"][0]["name"] == "Alice" and board["entries"][0]["score"] == expected.score
    me = alice.get(f"/api/leaderboard/{attempt.challenge.date}/me").json()
    assert me["rank"] == 1

    seen = cards_seen_by_player(attempt.challenge.seed, attempt.moves)
    for text in responses:
        assert attempt.challenge.seed not in text
        leaked = cards_in(text) - seen
        assert not leaked, f"unseen cards in a response: {leaked} in {text[:3000]}"


@pytest.mark.django_db(transaction=True)
def test_embedded_default_verifies_in_process(settings):
    if settings.REDIS_URL:
        pytest.skip("the embedded default has no REDIS_URL")
    bob = new_player("Bob")
    view = play_to_end(bob, start(bob))
    final = bob.get(f"/api/attempts/{view['id']}").json()
    assert final["status"] == "verified"
    assert final["result"]["rank"] == 1


def all_at_once(n: int, token: str, request):
    """``request(client)`` from n threads released together, each with its own API client
    and database connection, as n tabs or retries of one player; their responses."""
    from django.db import connections
    from rest_framework.test import APIClient

    responses = []
    barrier = threading.Barrier(n)

    def one():
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=token)
        barrier.wait()
        try:
            responses.append(request(client))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return responses


# Concurrent asks with one move number: tests/test_stored_games.py (both kinds of stored game).


@pytest.mark.django_db(transaction=True)
def test_ten_tabs_starting_todays_game_at_once_get_one_attempt():
    """No test transaction around it: the losing INSERTs run as in production, each its own
    transaction, and must come back as the attempt that won."""
    heidi = new_player("Heidi")
    responses = all_at_once(
        10, f"Token {heidi.player['token']}", lambda client: client.post("/api/challenges/today/attempt")
    )
    answers = [(r.status_code, r.json()["id"]) for r in responses]
    assert len(answers) == 10 and len({attempt_id for _, attempt_id in answers}) == 1
    assert sorted(code for code, _ in answers) == [200] * 9 + [201]
    assert Attempt.objects.filter(player__name="Heidi").count() == 1


@pytest.mark.django_db
def test_another_players_attempt_is_404():
    dave, eve = new_player("Dave"), new_player("Eve")
    view = start(dave)
    assert eve.get(f"/api/attempts/{view['id']}").status_code == 404
    response = eve.post(f"/api/attempts/{view['id']}/asks", {"rank": view["hand"][0][:-1], "move": 0}, format="json")
    assert response.status_code == 404
    assert Attempt.objects.get(pk=view["id"]).moves == []


@pytest.mark.django_db
def test_one_ranked_attempt_per_player_per_day():
    frank = new_player("Frank")
    first = frank.post("/api/challenges/today/attempt")
    again = frank.post("/api/challenges/today/attempt")
    assert first.status_code == 201 and again.status_code == 200
    assert first.json()["id"] == again.json()["id"]
    attempt = Attempt.objects.get(pk=first.json()["id"])
    with pytest.raises(IntegrityError), transaction.atomic():
        Attempt.objects.create(player=attempt.player, challenge=attempt.challenge, ranked=True)
    assert Attempt.objects.filter(player=attempt.player).count() == 1


@pytest.mark.django_db
def test_past_days_are_unranked_practice():
    grace = new_player("Grace")
    yesterday = (days.today() - dt.timedelta(days=1)).isoformat()
    view = grace.post(f"/api/challenges/{yesterday}/attempt").json()
    assert view["ranked"] is False
    tomorrow = (days.today() + dt.timedelta(days=1)).isoformat()
    assert grace.post(f"/api/challenges/{tomorrow}/attempt").status_code == 404


@pytest.mark.django_db
def test_reading_a_day_nobody_opened_stores_nothing(client):
    """A GET writes nothing: a past day read through every public page and endpoint is
    derived (its commitment, and once revealed its seed, are the day's own) and stays
    unstored until someone plays it."""
    day = days.today() - dt.timedelta(days=3)
    derived = DailyChallenge.of_day(day)
    assert not DailyChallenge.objects.filter(date=day).exists()
    challenge = client.get(f"/api/challenges/{day}").json()
    assert challenge["commitment"] == derived.commitment and challenge["seed"] == derived.seed
    assert client.get(f"/api/leaderboard/{day}").json()["entries"] == []
    assert client.get(f"/api/leaderboard/{day}/histogram").json()["bins"] == []
    archive = client.get(f"/api/challenges/{day}/archive")
    assert archive.status_code == 200 and b"".join(archive.streaming_content) == b""
    assert client.get(f"/leaderboard/{day}/").status_code == 200
    assert not DailyChallenge.objects.filter(date=day).exists()
    # Playing it stores it, with the same derived deal.
    new_player("Ada").post(f"/api/challenges/{day}/attempt")
    assert DailyChallenge.objects.get(date=day).seed == derived.seed


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body, status, code",
    [
        (b"{not json", 400, "bad_json"),
        (b"[1, 2]", 400, "bad_request"),
        (json.dumps({"rank": "Z", "move": 0}).encode(), 400, "bad_move"),
        (json.dumps({"rank": "1", "move": 0}).encode(), 400, "bad_move"),
        (json.dumps({"rank": 7, "move": 0}).encode(), 400, "wrong_type"),
        (json.dumps({"rank": "A", "move": "0"}).encode(), 400, "wrong_type"),
        (json.dumps({"rank": "A", "move": True}).encode(), 400, "wrong_type"),
        (json.dumps({"rank": "A"}).encode(), 400, "missing_field"),
        (json.dumps({"rank": "A", "move": 0, "score": 1780}).encode(), 400, "unknown_field"),  # as the socket
        (json.dumps({"rank": "A", "move": 5}).encode(), 409, "stale_move"),
        (json.dumps({"rank": "A" * 40000, "move": 0}).encode(), 413, "too_large"),
    ],
)
def test_bad_input_is_a_4xx_with_a_code_and_changes_nothing(body, status, code):
    heidi = new_player("Heidi")
    view = start(heidi)
    response = heidi.generic("POST", f"/api/attempts/{view['id']}/asks", body, content_type="application/json")
    assert response.status_code == status, response.content
    assert response.json()["error"] == code
    assert Attempt.objects.get(pk=view["id"]).moves == []


@pytest.mark.django_db
def test_a_rank_not_in_hand_is_illegal_ask():
    ivan = new_player("Ivan")
    view = start(ivan)
    held = {c[:-1] for c in view["hand"]}
    missing = next(r for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K") if r not in held)
    response = ivan.post(f"/api/attempts/{view['id']}/asks", {"rank": missing, "move": 0}, format="json")
    assert response.status_code == 400 and response.json()["error"] == "illegal_ask"
    assert Attempt.objects.get(pk=view["id"]).moves == []


@pytest.mark.django_db
def test_player_names_are_validated(api):
    assert api.post("/api/players", {"name": "x"}, format="json").json()["error"] == "bad_name"
    assert api.post("/api/players", {"name": "<script>"}, format="json").json()["error"] == "bad_name"
    assert api.post("/api/players", {"name": 12}, format="json").json()["error"] == "wrong_type"
    assert api.post("/api/players", {"name": "Judy"}, format="json").status_code == 201
    taken = api.post("/api/players", {"name": "jUDY"}, format="json")
    assert taken.status_code == 409 and taken.json()["error"] == "name_taken"
    assert api.post("/api/players", {"name": "鈴木 花子"}, format="json").status_code == 201


@pytest.mark.django_db
def test_seed_is_revealed_only_after_the_day_closes(api):
    today = api.get("/api/challenges/today").json()
    assert "seed" not in today
    challenge = DailyChallenge.of_day(dt.date.fromisoformat(today["date"]))  # what the day's seed is
    assert today["commitment"] == days.commitment(challenge.seed)
    past = (days.today() - dt.timedelta(days=1)).isoformat()
    closed = api.get(f"/api/challenges/{past}").json()
    assert days.commitment(closed["seed"]) == closed["commitment"]


def finish_without_verifying(name: str) -> Attempt:
    """A finished attempt left `verifying` (its task never ran)."""
    client = new_player(name)
    view = start(client)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(services, "enqueue_verification", lambda attempt_id: None)
        view = play_to_end(client, view)
    return Attempt.objects.get(pk=view["id"])


@pytest.mark.django_db(transaction=True)
def test_duplicated_verification_leaves_one_result():
    from challenges.tasks import verify_attempt

    attempt = finish_without_verifying("Mallory")
    assert attempt.status == "verifying"
    threads = [threading.Thread(target=verify_attempt.apply, args=((attempt.pk,),)) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    verify_attempt.apply((attempt.pk,))
    assert Result.objects.filter(attempt=attempt).count() == 1
    attempt.refresh_from_db()
    assert attempt.status == "verified"


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_sweeper_reenqueues_a_stuck_attempt(celery_worker_process, settings):
    attempt = finish_without_verifying("Niaj")
    enqueued = attempt.verify_enqueued_at
    # The sweeper's clock, not a sleep: just before VERIFY_STUCK_AFTER the attempt is left alone...
    services.sweep_verifying(now=enqueued + settings.VERIFY_STUCK_AFTER - dt.timedelta(milliseconds=100))
    attempt.refresh_from_db()
    assert (attempt.status, attempt.verify_enqueued_at) == ("verifying", enqueued)
    # ...just after, it is stuck: enqueued again, and verified by the worker.
    assert services.sweep_verifying(now=enqueued + settings.VERIFY_STUCK_AFTER + dt.timedelta(milliseconds=100)) >= 1
    wait_for(lambda: Attempt.objects.get(pk=attempt.pk).status == "verified")
    assert Result.objects.filter(attempt=attempt).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_tampered_attempt_is_rejected_with_the_reason():
    from challenges.tasks import verify_attempt

    attempt = finish_without_verifying("Olivia")
    Attempt.objects.filter(pk=attempt.pk).update(moves=attempt.moves + ["A"])
    verify_attempt.apply((attempt.pk,))
    attempt.refresh_from_db()
    assert attempt.status == "rejected"
    assert attempt.reject_reason.startswith("extra_moves at ask")
    assert not Result.objects.filter(attempt=attempt).exists()


@pytest.mark.django_db
def test_a_browser_ask_reads_user_and_player_in_one_query_and_still_checks_csrf(django_assert_num_queries):
    """Browsers play with the session cookie. No web process remembers a session: each ask
    reads it, and the user with the player: with REDIS_URL both from Redis in one round trip
    (cached_db, and the user's copy made by the request before: challenges/auth.py), else
    the session's row and one query; then the ask's own two statements. A POST without the
    CSRF header is refused all the same."""
    from django.conf import settings
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    created = browser.post("/api/players", {"name": "Cookie player"}, content_type="application/json")
    assert created.status_code == 201
    csrf = {"HTTP_X_CSRFTOKEN": browser.cookies["csrftoken"].value}
    view = browser.post("/api/challenges/today/attempt", content_type="application/json", **csrf).json()
    with django_assert_num_queries(2 if settings.SESSION_ENGINE == "config.sessions" else 4):
        response = browser.post(
            f"/api/attempts/{view['id']}/asks",
            {"rank": view["hand"][0][:-1], "move": 0},
            content_type="application/json",
            **csrf,
        )
    assert response.status_code == 200 and response.json()["move"] == 1
    assert "Cookie" in response.headers.get("Vary", "")

    view = response.json()
    forged = browser.post(
        f"/api/attempts/{view['id']}/asks", {"rank": view["hand"][0][:-1], "move": 1}, content_type="application/json"
    )
    assert forged.status_code == 403 and "CSRF" in forged.json()["detail"]
    assert len(Attempt.objects.get(pk=view["id"]).moves) == 1  # the forged ask changed nothing


@pytest.mark.django_db
def test_logging_in_as_another_player_forgets_the_old_session():
    """Two players in one browser: after logging in as the second, the first's old cookie is
    not taken for either of them (its session is gone, from the database and the cache)."""
    from django.test import Client

    first = Client()
    assert first.post("/api/players", {"name": "First one"}, content_type="application/json").status_code == 201
    assert first.get("/api/players/me").json()["name"] == "First one"  # its session is now cached
    old_cookie = first.cookies["sessionid"].value
    second = first.post("/api/players", {"name": "Second one"}, content_type="application/json")
    assert second.status_code == 201
    assert first.get("/api/players/me").json()["name"] == "Second one"

    replay = Client()
    replay.cookies["sessionid"] = old_cookie
    assert replay.get("/api/players/me").status_code == 401


@pytest.mark.django_db
def test_an_ask_after_the_line_started_updates_the_attempt_in_place_on_postgres():
    """An ask appends to ``moves``; no index reads ``moves`` past its first LINE_START asks
    (Attempt.line_start), so from then on Postgres updates the row in place (a HOT update:
    none of the table's nine indexes written). An index on expressions of ``moves`` made
    every ask a full update."""
    from django.db import connection

    from challenges.models import LINE_START

    if connection.vendor != "postgresql":
        pytest.skip("HOT updates are Postgres's")
    client = new_player("Hot Hannah")
    view = start(client)

    def updates() -> tuple[int, int]:
        # This transaction's own counts (the test runs in one): nobody else's asks.
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_stat_get_xact_tuples_updated(%s::regclass), pg_stat_get_xact_tuples_hot_updated(%s::regclass)",
                ["challenges_attempt", "challenges_attempt"],
            )
            return cursor.fetchone()

    asks = 0
    while view["status"] == "playing" and asks < LINE_START + 8:
        before = updates()
        response = client.post(
            f"/api/attempts/{view['id']}/asks", {"rank": view["hand"][0][:-1], "move": view["move"]}, format="json"
        )
        assert response.status_code == 200, response.content
        view, asks = response.json(), asks + 1
        updated, hot = (a - b for a, b in zip(updates(), before, strict=True))
        assert updated == 1, "one write of the attempt per ask"
        if asks > LINE_START and view["status"] == "playing":
            assert hot == 1, f"ask {asks}: the attempt's indexes were written"
    assert asks > LINE_START + 1, "the game ended before the line started"
    assert Attempt.objects.get(pk=view["id"]).line_start == " ".join(
        Attempt.objects.get(pk=view["id"]).moves[:LINE_START]
    )
