"""Leagues through the API: create, join, leave, the owner's rights, the limits, privacy
(404 for anyone but a member on every league URL), code renewal and guessing, the day
board (the global order, held and disqualified results left out, global ranks), the
week's standings against hand-made days, the places of the end panel, and the account's
export and deletion."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from challenges import days, services
from challenges.models import Attempt, Player
from leaderboard.models import Result
from leagues import services as league_services
from leagues.models import League, Membership
from tests.conftest import new_player, verified_game

pytestmark = pytest.mark.django_db


def create(client, name="Friday Club"):
    response = client.post("/api/leagues", {"name": name}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def join(client, code):
    return client.post("/api/leagues/join", {"code": code}, format="json")


def player_of(client) -> Player:
    return Player.objects.get(pk=client.player["id"])


def result(player: Player, day: dt.date, score: int, asks: int, *, minute: int = 0, **flags) -> Result:
    """A hand-made verified ranked result of ``day`` (what the worker's replay writes)."""
    challenge = services.challenge_for_day(day=day)
    finished = challenge.closes_at - dt.timedelta(hours=2) + dt.timedelta(minutes=minute)
    attempt = Attempt.objects.create(
        player=player, challenge=challenge, ranked=True, moves=[], status="verified", finished_at=finished
    )
    return Result.objects.create(
        attempt=attempt,
        challenge=challenge,
        player=player,
        ranked=True,
        score=score,
        player_pairs=7,
        opponent_pairs=6,
        asks=asks,
        finished_at=finished,
        **flags,
    )


# --- create, join, leave --------------------------------------------------------------------------


def test_a_league_is_created_with_a_code_and_joined_by_it():
    ann, bob = new_player("Ann"), new_player("Bob")
    made = create(ann)
    assert set(made) == {"id", "name", "code", "members", "owner"}
    assert made["members"] == 1 and made["owner"] == {"id": ann.player["id"], "name": "Ann"}
    assert len(made["code"]) == 10 and set(made["code"]) <= set(league_services.CODE_ALPHABET)
    joined = join(bob, made["code"].lower())  # case does not matter
    assert joined.status_code == 201 and joined.json()["members"] == 2
    again = join(bob, made["code"])
    assert again.status_code == 200 and again.json()["members"] == 2  # already a member: nothing changes
    mine = bob.get("/api/leagues").json()
    assert mine == {"leagues": [{"id": made["id"], "name": "Friday Club", "members": 2, "owner": made["owner"]}]}
    assert join(bob, "NOSUCHCODE").status_code == 404
    assert join(bob, "NOSUCHCODE").json()["error"] == "not_found"
    assert APIClient().get("/api/leagues").status_code == 401


def test_codes_differ_and_carry_at_least_40_random_bits():
    ann = new_player("Ann")
    codes = {create(ann, f"League {n}")["code"] for n in range(5)}
    assert len(codes) == 5
    assert len(league_services.CODE_ALPHABET) ** league_services.CODE_LENGTH >= 2**40


@pytest.mark.parametrize(
    ("name", "code"),
    [("", "bad_name"), ("   ", "bad_name"), ("x" * 41, "bad_name"), ("Bad#Name", "bad_name"), ("Раul", "bad_name")],
)
def test_a_bad_name_is_refused_and_nothing_is_made(name, code):
    ann = new_player("Ann")
    response = ann.post("/api/leagues", {"name": name}, format="json")
    assert response.status_code == 400 and response.json()["error"] == code
    assert not League.objects.exists()


def test_one_owner_has_no_two_leagues_that_look_alike_but_two_owners_may():
    ann, bob = new_player("Ann"), new_player("Bob")
    create(ann, "Team Alpha")
    # The same letters in any case (names.fold), or the same shapes as shown (names.look:
    # capital I for l in "Team AIpha").
    for look_alike in ("team alpha", "TeamAlpha", "Team A1pha", "Ｔｅａｍ Alpha", "Team-Alpha", "Team AIpha"):
        refused = ann.post("/api/leagues", {"name": look_alike}, format="json")
        assert refused.status_code == 409 and refused.json()["error"] == "name_taken", look_alike
    assert create(bob, "Team Alpha")["name"] == "Team Alpha"
    assert create(ann, "Team Beta")["name"] == "Team Beta"
    assert create(ann, "7")["name"] == "7"  # one character is a name
    # Names that differ as shown in any case are two names, as for players (Lia, Ila).
    assert create(ann, "Lia's table")["name"] == "Lia's table"
    assert create(ann, "Ila's table")["name"] == "Ila's table"
    assert League.objects.filter(owner__name="Ann").count() == 5


def test_a_member_leaves_and_sees_the_league_no_more():
    ann, bob = new_player("Ann"), new_player("Bob")
    made = create(ann)
    join(bob, made["code"])
    assert bob.delete(f"/api/leagues/{made['id']}/members/me").status_code == 204
    assert bob.get("/api/leagues").json() == {"leagues": []}
    assert bob.get(f"/api/leagues/{made['id']}/leaderboard/today").status_code == 404
    assert ann.get(f"/api/leagues/{made['id']}").json()["members"] == 1
    assert bob.delete(f"/api/leagues/{made['id']}/members/me").status_code == 404


def test_an_owner_who_leaves_passes_the_league_to_its_oldest_member_and_the_last_ends_it():
    ann, bob, cid = new_player("Ann"), new_player("Bob"), new_player("Cid")
    made = create(ann)
    join(bob, made["code"])
    join(cid, made["code"])
    assert ann.delete(f"/api/leagues/{made['id']}/members/me").status_code == 204
    assert League.objects.get(pk=made["id"]).owner_id == bob.player["id"]
    assert bob.delete(f"/api/leagues/{made['id']}/members/{bob.player['id']}").status_code == 204  # own id: leaves
    assert League.objects.get(pk=made["id"]).owner_id == cid.player["id"]
    assert cid.delete(f"/api/leagues/{made['id']}/members/me").status_code == 204
    assert not League.objects.filter(pk=made["id"]).exists()


# --- the owner's rights ---------------------------------------------------------------------------


def test_only_the_owner_renames_makes_a_new_code_and_removes_members():
    ann, bob, cid = new_player("Ann"), new_player("Bob"), new_player("Cid")
    made = create(ann)
    join(bob, made["code"])
    join(cid, made["code"])
    lid = made["id"]
    for response in (
        bob.patch(f"/api/leagues/{lid}", {"name": "Bob's"}, format="json"),
        bob.post(f"/api/leagues/{lid}/code"),
        bob.delete(f"/api/leagues/{lid}/members/{cid.player['id']}"),
    ):
        assert response.status_code == 403 and response.json()["error"] == "not_owner"
    league = League.objects.get(pk=lid)
    assert (league.name, league.code, league.memberships.count()) == ("Friday Club", made["code"], 3)

    renamed = ann.patch(f"/api/leagues/{lid}", {"name": "Saturday Club"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["name"] == "Saturday Club"
    assert ann.patch(f"/api/leagues/{lid}", {"name": ""}, format="json").json()["error"] == "bad_name"
    assert ann.patch(f"/api/leagues/{lid}", {}, format="json").json()["error"] == "missing_field"
    assert ann.delete(f"/api/leagues/{lid}/members/{cid.player['id']}").status_code == 204
    assert cid.get(f"/api/leagues/{lid}").status_code == 404
    gone = ann.delete(f"/api/leagues/{lid}/members/{cid.player['id']}")
    assert gone.status_code == 404 and gone.json()["error"] == "not_found"
    assert ann.delete(f"/api/leagues/{lid}/members/nobody").status_code == 404


def test_a_new_code_stops_the_old_one_and_keeps_the_members():
    ann, bob, cid = new_player("Ann"), new_player("Bob"), new_player("Cid")
    made = create(ann)
    join(bob, made["code"])
    fresh = ann.post(f"/api/leagues/{made['id']}/code")
    assert fresh.status_code == 200 and fresh.json()["code"] != made["code"]
    old = join(cid, made["code"])
    assert old.status_code == 404 and old.json()["error"] == "not_found"
    assert join(cid, fresh.json()["code"]).status_code == 201
    assert bob.get(f"/api/leagues/{made['id']}").json()["members"] == 3
    assert bob.get(f"/api/leagues/{made['id']}").json()["code"] == fresh.json()["code"]


# --- limits -----------------------------------------------------------------------------------------


def test_a_league_has_at_most_200_members(monkeypatch):
    ann = new_player("Ann")
    made = create(ann)
    league = League.objects.get(pk=made["id"])
    # 199 more members written directly (200 sign-ups through the API would be slow).
    others = [Player.objects.create(name=f"M{n}", name_key=f"m{n}", token_hash=f"t{n}") for n in range(199)]
    Membership.objects.bulk_create([Membership(league=league, player=p) for p in others])
    late = new_player("Late")
    refused = join(late, made["code"])
    assert refused.status_code == 409 and refused.json()["error"] == "league_full"
    assert league.memberships.count() == 200 and late.get("/api/leagues").json() == {"leagues": []}
    ann.delete(f"/api/leagues/{made['id']}/members/{others[0].pk}")
    assert join(late, made["code"]).status_code == 201


def test_a_player_is_in_at_most_20_leagues():
    ann, bob = new_player("Ann"), new_player("Bob")
    for n in range(20):
        create(ann, f"League {n}")
    refused = ann.post("/api/leagues", {"name": "League 21"}, format="json")
    assert refused.status_code == 409 and refused.json()["error"] == "too_many_leagues"
    bobs = create(bob, "Bob's")
    refused = join(ann, bobs["code"])
    assert refused.status_code == 409 and refused.json()["error"] == "too_many_leagues"
    assert Membership.objects.filter(player=player_of(ann)).count() == 20
    assert (
        ann.delete(f"/api/leagues/{League.objects.filter(owner=player_of(ann)).first().pk}/members/me").status_code
        == 204
    )
    assert join(ann, bobs["code"]).status_code == 201


def test_guessing_codes_is_limited_per_address_and_per_player():
    ann = new_player("Ann")
    code = create(ann)["code"]
    with override_settings(RATE_LIMITS={"league_joins": "6/hour", "league_joins_player": "3/hour"}):
        guesser = new_player("Guesser")
        for n in range(3):
            assert join(guesser, f"GUESS{n}").status_code == 404
        limited = join(guesser, code)  # even the right code, once the player's tries are spent
        assert limited.status_code == 429 and limited.json()["error"] == "rate_limited"
        assert "Retry-After" in limited
        # Another player from the same address: the address has counted 4 tries, 2 are left.
        other = new_player("Other")
        assert join(other, "GUESSX").status_code == 404
        assert join(other, code).status_code == 201
        assert join(new_player("Third"), code).status_code == 429
    assert not Membership.objects.filter(player__name="Guesser").exists()


# --- privacy: 404 for everyone but a member ------------------------------------------------------


def test_every_league_url_is_404_to_strangers_and_anonymous_visitors():
    ann, eve = new_player("Ann"), new_player("Eve")
    made = create(ann)
    lid = made["id"]
    week = selectors_week()
    for client in (eve, APIClient()):
        answers = [
            client.get(f"/api/leagues/{lid}"),
            client.patch(f"/api/leagues/{lid}", {"name": "Mine now"}, format="json"),
            client.post(f"/api/leagues/{lid}/code"),
            client.get(f"/api/leagues/{lid}/leaderboard/today"),
            client.get(f"/api/leagues/{lid}/leaderboard/not-a-date"),
            client.get(f"/api/leagues/{lid}/week/{week}"),
            client.get(f"/api/leagues/{lid}/week/bad"),
            client.delete(f"/api/leagues/{lid}/members/me"),
            client.delete(f"/api/leagues/{lid}/members/{ann.player['id']}"),
            client.get(f"/leagues/{lid}/"),
        ]
        assert [a.status_code for a in answers] == [404] * len(answers)
        assert all(a.json()["error"] == "not_found" for a in answers[:-1])
        # A league that does not exist answers the same.
        assert client.get(f"/api/leagues/{lid + 1000}").json() == answers[0].json()
    league = League.objects.get(pk=lid)
    assert (league.name, league.code, league.memberships.count()) == ("Friday Club", made["code"], 1)
    page = ann.get(f"/leagues/{lid}/")
    assert page.status_code == 200 and made["code"] in page.content.decode()
    assert page["Cache-Control"] == "private, no-store"


def selectors_week() -> str:
    from leagues.selectors import week_of

    return week_of(days.today())


# --- the day board --------------------------------------------------------------------------------


def test_the_day_board_ranks_members_in_the_global_order_with_their_global_ranks():
    ann, bob, cid, dan = (new_player(n) for n in ("Ann", "Bob", "Cid", "Dan"))
    outsider = Player.objects.get(pk=new_player("Out").player["id"])
    made = create(ann)
    for client in (bob, cid, dan):
        join(client, made["code"])
    today = days.today()
    result(outsider, today, 1200, 20)
    result(player_of(ann), today, 1100, 30, minute=5)
    result(player_of(bob), today, 1100, 30, minute=1)  # equal score and asks: the earlier finish first
    result(player_of(cid), today, 1100, 25, minute=9)  # equal score, fewer asks: ahead of both
    board = ann.get(f"/api/leagues/{made['id']}/leaderboard/{today.isoformat()}")
    assert board.status_code == 200 and board["Cache-Control"] == "private, no-store"
    data = board.json()
    assert data["date"] == today.isoformat()
    assert [(e["rank"], e["name"], e["score"], e["asks"], e["global_rank"]) for e in data["entries"]] == [
        (1, "Cid", 1100, 25, 2),
        (2, "Bob", 1100, 30, 3),
        (3, "Ann", 1100, 30, 4),
    ]
    assert [m["name"] for m in data["not_played"]] == ["Dan"]
    assert ann.get(f"/api/leagues/{made['id']}/leaderboard/today").json() == data


def test_a_board_says_whether_its_global_ranks_came_from_the_days_rank_index(monkeypatch):
    """Without the day's rank index the global ranks are counted in SQL, and the board says
    so (the beat builds the index: a read only reads)."""
    ann = new_player("Ann")
    made = create(ann)
    today = days.today()
    result(player_of(ann), today, 1000, 30)
    data = ann.get(f"/api/leagues/{made['id']}/leaderboard/today").json()
    assert data["indexed"] is False and data["entries"][0]["global_rank"] == 1

    monkeypatch.setattr("leagues.selectors.rank_index.ranks_of", lambda cid, ids: {i: 0 for i in ids})
    data = ann.get(f"/api/leagues/{made['id']}/leaderboard/today").json()
    assert data["indexed"] is True and data["entries"][0]["global_rank"] == 1


def test_held_and_disqualified_results_are_not_on_a_league_board():
    ann, bob, cid = new_player("Ann"), new_player("Bob"), new_player("Cid")
    made = create(ann)
    join(bob, made["code"])
    join(cid, made["code"])
    today = days.today()
    result(player_of(ann), today, 1000, 30)
    result(player_of(bob), today, 1300, 20, held=True, flagged=True)
    result(player_of(cid), today, 1250, 20, disqualified=True)
    data = ann.get(f"/api/leagues/{made['id']}/leaderboard/today").json()
    assert [(e["name"], e["rank"], e["global_rank"]) for e in data["entries"]] == [("Ann", 1, 1)]
    assert [m["name"] for m in data["not_played"]] == ["Bob", "Cid"]
    week = ann.get(f"/api/leagues/{made['id']}/week/current").json()
    assert {e["name"]: e["points"] for e in week["entries"]} == {"Ann": 1000, "Bob": 0, "Cid": 0}


def test_a_played_game_is_on_the_league_board_with_its_real_global_rank():
    ann, bob = new_player("Ann"), new_player("Bob")
    made = create(ann)
    join(bob, made["code"])
    verified_game("Stranger")
    mine = verified_game(player=player_of(bob))
    data = ann.get(f"/api/leagues/{made['id']}/leaderboard/today").json()
    assert [(e["name"], e["score"], e["global_rank"]) for e in data["entries"]] == [
        ("Bob", mine.result.score, bob.get(f"/api/attempts/{mine.pk}").json()["result"]["rank"])
    ]


@pytest.mark.parametrize(
    ("date", "status", "code"),
    [
        ("2026-13-01", 400, "bad_date"),
        ("yesterday", 400, "bad_date"),
        ("2999-01-01", 404, "not_found"),
        ("2020-01-01", 404, "not_found"),
    ],
)
def test_a_bad_day_is_refused_to_a_member(date, status, code):
    ann = new_player("Ann")
    made = create(ann)
    response = ann.get(f"/api/leagues/{made['id']}/leaderboard/{date}")
    assert response.status_code == status and response.json()["error"] == code


# --- the week's standings ---------------------------------------------------------------------------


def test_the_weeks_points_are_the_sum_of_daily_scores_with_ties_broken_by_fewer_asks():
    ann, bob, cid, dan = (new_player(n) for n in ("Ann", "Bob", "Cid", "Dan"))
    made = create(ann)
    for client in (bob, cid, dan):
        join(client, made["code"])
    today = days.today()
    monday = today - dt.timedelta(days=today.weekday() + 7)  # last week's: a closed week
    ann_p, bob_p, cid_p = player_of(ann), player_of(bob), player_of(cid)
    # Ann: three days; Bob: two days making the same points with fewer asks; Cid: one.
    result(ann_p, monday, 1000, 30)
    result(ann_p, monday + dt.timedelta(days=3), 1030, 28)
    result(ann_p, monday + dt.timedelta(days=6), 970, 32)  # Sunday: still this week
    result(bob_p, monday + dt.timedelta(days=1), 1500, 40)
    result(bob_p, monday + dt.timedelta(days=2), 1500, 40)
    result(cid_p, monday + dt.timedelta(days=4), 1090, 22)
    # Outside the week (the Sunday before, the Monday after): they add nothing. (The Sunday
    # before is made between the week's days: its challenge's id lies among theirs.)
    result(cid_p, monday - dt.timedelta(days=1), 1390, 10)
    result(cid_p, monday + dt.timedelta(days=7), 1390, 10)
    # Held and disqualified days add nothing either.
    result(cid_p, monday + dt.timedelta(days=5), 1390, 10, held=True, flagged=True)
    result(cid_p, monday + dt.timedelta(days=2), 1390, 10, disqualified=True)
    iso_year, iso_week, _ = monday.isocalendar()
    week = f"{iso_year}-W{iso_week:02d}"
    response = ann.get(f"/api/leagues/{made['id']}/week/{week}")
    assert response.status_code == 200
    data = response.json()
    assert (data["week"], data["from"], data["to"]) == (
        week,
        monday.isoformat(),
        (monday + dt.timedelta(days=6)).isoformat(),
    )
    assert [(e["rank"], e["name"], e["points"], e["days"], e["asks"]) for e in data["entries"]] == [
        (1, "Bob", 3000, 2, 80),
        (2, "Ann", 3000, 3, 90),
        (3, "Cid", 1090, 1, 22),
        (4, "Dan", 0, 0, 0),
    ]


def test_members_equal_in_points_and_asks_share_a_rank():
    ann, bob = new_player("Ann"), new_player("Bob")
    made = create(ann)
    join(bob, made["code"])
    today = days.today()
    result(player_of(ann), today, 1000, 30)
    result(player_of(bob), today, 1000, 30, minute=3)
    entries = ann.get(f"/api/leagues/{made['id']}/week/current").json()["entries"]
    assert [(e["rank"], e["name"]) for e in entries] == [(1, "Ann"), (1, "Bob")]


@pytest.mark.parametrize(
    ("week", "status", "code"),
    [("2026-49", 400, "bad_week"), ("2026-W54", 400, "bad_week"), ("2026-W00", 400, "bad_week"),
     ("2025-W53", 400, "bad_week"), ("W49", 400, "bad_week"), ("2999-W01", 404, "not_found"),
     ("2020-W10", 404, "not_found")],
)  # fmt: skip
def test_a_bad_week_is_refused_with_a_code(week, status, code):
    ann = new_player("Ann")
    made = create(ann)
    response = ann.get(f"/api/leagues/{made['id']}/week/{week}")
    assert response.status_code == status and response.json()["error"] == code


def test_the_week_runs_monday_to_sunday_in_the_sites_timezone(settings, monkeypatch):
    """At 12:00 UTC on Sunday 2026-11-29 it is already Monday 2026-11-30 in Auckland: a
    site there is in week 2026-W49, whose first day is that Monday."""
    settings.CHALLENGE_TIMEZONE = "Pacific/Auckland"
    ann = new_player("Ann")
    made = create(ann)
    result(player_of(ann), dt.date(2026, 11, 29), 1000, 30)
    result(player_of(ann), dt.date(2026, 11, 30), 1100, 30)
    sunday_noon_utc = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)
    monkeypatch.setattr("challenges.days.timezone.now", lambda: sunday_noon_utc)
    data = ann.get(f"/api/leagues/{made['id']}/week/current").json()
    assert (data["week"], data["from"], data["to"]) == ("2026-W49", "2026-11-30", "2026-12-06")
    assert [(e["points"], e["days"]) for e in data["entries"]] == [(1100, 1)]
    previous = ann.get(f"/api/leagues/{made['id']}/week/2026-W48").json()
    assert [(e["points"], e["days"]) for e in previous["entries"]] == [(1000, 1)]


# --- places (the end panel, the home page) ------------------------------------------------------


def test_places_say_the_players_rank_in_each_league_today():
    ann, bob, cid = new_player("Ann"), new_player("Bob"), new_player("Cid")
    first = create(ann, "Family")
    second = create(bob, "Office")
    join(bob, first["code"])
    join(cid, first["code"])
    join(ann, second["code"])
    today = days.today()
    result(player_of(ann), today, 1000, 30)
    result(player_of(bob), today, 1200, 30)
    places = ann.get("/api/leagues/places/today").json()
    assert places["date"] == today.isoformat()
    assert [(p["name"], p["rank"], p["ranked"], p["members"]) for p in places["places"]] == [
        ("Family", 2, 2, 3),
        ("Office", 2, 2, 2),
    ]
    assert [p["rank"] for p in cid.get("/api/leagues/places/today").json()["places"]] == [None]
    assert APIClient().get("/api/leagues/places/today").status_code == 401
    assert ann.get("/api/leagues/places/12-12").json()["error"] == "bad_date"


# --- the account: export and deletion ----------------------------------------------------------------


def test_the_export_lists_the_players_leagues():
    ann, bob = new_player("Ann"), new_player("Bob")
    made = create(ann, "Family")
    join(bob, made["code"])
    create(bob, "Bob's own")
    data = bob.get("/api/players/me/export").json()
    assert [(lg["name"], lg["owner"], lg["members"]) for lg in data["leagues"]] == [
        ("Family", False, 2),
        ("Bob's own", True, 1),
    ]
    assert all(lg["joined_at"] for lg in data["leagues"])


def test_deleting_an_account_removes_its_memberships_and_passes_on_its_leagues():
    ann, bob, cid = new_player("Ann"), new_player("Bob"), new_player("Cid")
    shared = create(ann, "Shared")
    alone = create(ann, "Alone")
    joined = create(cid, "Cid's")
    join(cid, shared["code"])  # Cid joins first: the oldest member after Ann
    join(bob, shared["code"])
    join(ann, joined["code"])
    ann_id = ann.player["id"]
    assert ann.delete("/api/players/me").status_code == 204
    assert not Membership.objects.filter(player_id=ann_id).exists()
    assert League.objects.get(pk=shared["id"]).owner_id == cid.player["id"]
    assert not League.objects.filter(pk=alone["id"]).exists()
    assert League.objects.get(pk=joined["id"]).memberships.count() == 1
    names = [m["name"] for m in bob.get(f"/api/leagues/{shared['id']}").json()["member_list"]]
    assert names == ["Cid", "Bob"]


def test_global_ranks_come_from_the_rank_index_when_it_is_ready_and_from_sql_otherwise(own_redis, monkeypatch):
    from leaderboard import rank_index
    from leaderboard import selectors as board
    from leaderboard import services as board_services

    with override_settings(REDIS_URL=own_redis.url):
        ann, bob = new_player("Ann"), new_player("Bob")
        made = create(ann)
        join(bob, made["code"])
        today = days.today()
        outsiders = [Player.objects.get(pk=new_player(f"Out {n}").player["id"]) for n in range(3)]
        for n, outsider in enumerate(outsiders):
            result(outsider, today, 1000 + 100 * n, 30)  # 1000, 1100, 1200
        result(player_of(ann), today, 1150, 30)
        result(player_of(bob), today, 1050, 30)
        challenge_id = services.challenge_for_day(day=today).pk
        url = f"/api/leagues/{made['id']}/leaderboard/today"
        # Not ready yet: SQL counts; then the beat builds the day's index (here, in process).
        assert not rank_index.is_ready(challenge_id)
        by_sql = [(e["name"], e["global_rank"]) for e in ann.get(url).json()["entries"]]
        assert by_sql == [("Ann", 2), ("Bob", 4)]
        board_services.rebuild_index(challenge_id=challenge_id)
        Result.objects.update(indexed=True)
        assert rank_index.is_ready(challenge_id)
        monkeypatch.setattr(board, "sql_rank", lambda result: pytest.fail("asked SQL"))
        assert [(e["name"], e["global_rank"]) for e in ann.get(url).json()["entries"]] == by_sql
        # A result the index does not hold yet is counted by SQL, the others read from it.
        monkeypatch.undo()
        rank_index.remove(challenge_id, Result.objects.get(player__name="Bob").attempt_id)
        assert [(e["name"], e["global_rank"]) for e in ann.get(url).json()["entries"]] == by_sql
