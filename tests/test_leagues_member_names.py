"""A league's boards read each member's name from the membership (Membership.name), a copy
the database keeps with triggers (leagues migration 0004), not from the players' table: one
index of the league's instead of 200 probes of a million players. The copy must never show
an old name: renamed through the account, by an admin's bulk update, or written over by
hand, the boards show the player's name as it is."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection

from challenges import days
from challenges.models import Player
from tests.conftest import new_player
from tests.test_leagues_api import create, join, player_of, result

pytestmark = pytest.mark.django_db


def boards(client, league) -> tuple[list[str], list[str], list[str]]:
    """The names on the league's day board (played, then not played) and week standings."""
    day = client.get(f"/api/leagues/{league['id']}/leaderboard/today").json()
    week = client.get(f"/api/leagues/{league['id']}/week/current").json()
    return (
        [e["name"] for e in day["entries"]],
        [m["name"] for m in day["not_played"]],
        sorted(e["name"] for e in week["entries"]),
    )


def test_a_member_renamed_through_their_account_shows_the_new_name_on_every_board():
    ann, bob = new_player("Ann"), new_player("Bob")
    made = create(ann)
    join(bob, made["code"])
    result(player_of(bob), days.today(), 1100, 30)
    assert boards(ann, made) == (["Bob"], ["Ann"], ["Ann", "Bob"])
    assert bob.patch("/api/players/me", {"name": "Robert"}, format="json").status_code == 200
    assert ann.patch("/api/players/me", {"name": "Annie"}, format="json").status_code == 200
    assert boards(ann, made) == (["Robert"], ["Annie"], ["Annie", "Robert"])


def test_a_name_changed_by_a_bulk_update_reaches_the_boards_too():
    """Player.objects.update() sends no signal and calls no service: the copy follows
    because the database keeps it."""
    ann, bob = new_player("Ann"), new_player("Bob")
    made = create(ann)
    join(bob, made["code"])
    Player.objects.filter(pk=player_of(bob).pk).update(name="Bobby")
    assert boards(ann, made)[1] == ["Ann", "Bobby"]


def copies(league_id: int) -> dict[int, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT player_id, name FROM leagues_membership WHERE league_id = %s", [league_id])
        return dict(cursor.fetchall())


def test_a_copy_written_over_by_hand_is_the_players_name_again():
    if connection.vendor != "postgresql":
        pytest.skip("the copy is Postgres' (SQLite reads the players' table)")
    ann, bob = new_player("Ann"), new_player("Bob")
    made = create(ann)
    join(bob, made["code"])
    bob_id = player_of(bob).pk
    assert copies(made["id"])[bob_id] == "Bob"  # copied on joining
    with connection.cursor() as cursor:
        cursor.execute("UPDATE leagues_membership SET name = 'Mallory' WHERE player_id = %s", [bob_id])
        cursor.execute(
            "INSERT INTO leagues_membership (league_id, player_id, joined_at, name) VALUES (%s, %s, now(), 'Mallory')",
            [made["id"], player_of(new_player("Cid")).pk],
        )
    assert sorted(copies(made["id"]).values()) == ["Ann", "Bob", "Cid"]
    assert boards(ann, made)[1] == ["Ann", "Bob", "Cid"]


@pytest.mark.django_db(transaction=True)
def test_a_rename_committed_while_a_member_joins_reaches_the_copy():
    """The join reads the player's name and the rename rewrites the copies: without a lock,
    a rename committed between the two finds no membership to rewrite yet, and the join then
    commits the old name for good. The join's read holds the player's row (FOR SHARE): the
    rename waits for the join to commit, then rewrites its copy too."""
    if connection.vendor != "postgresql":
        pytest.skip("the copy is Postgres'")
    import threading

    import psycopg

    ann, dee = new_player("Ann"), new_player("Dee")
    made = create(ann)
    dee_id = player_of(dee).pk
    settings = connection.settings_dict
    dsn = f"host={settings['HOST'] or '127.0.0.1'} port={settings['PORT'] or 5432} dbname={settings['NAME']} user={settings['USER']}"
    with psycopg.connect(dsn) as joining, psycopg.connect(dsn, autocommit=True) as renaming:
        joining.execute(
            "INSERT INTO leagues_membership (league_id, player_id, joined_at) VALUES (%s, %s, now())",
            [made["id"], dee_id],
        )  # not committed yet: the join's transaction is open
        done = threading.Event()

        def rename():
            renaming.execute("UPDATE challenges_player SET name = 'Renamed' WHERE id = %s", [dee_id])
            done.set()

        thread = threading.Thread(target=rename)
        thread.start()
        waited = not done.wait(0.5)  # the fault: a rename under way while the join is open
        joining.commit()
        thread.join(10)
    assert waited, "the rename did not wait for the join"
    assert done.is_set()
    assert copies(made["id"])[dee_id] == "Renamed"


def test_the_day_board_reads_no_players_table():
    if connection.vendor != "postgresql":
        pytest.skip("the plan is Postgres'")
    ann = new_player("Ann")
    made = create(ann)
    today = days.today()
    result(player_of(ann), today, 1100, 30)
    from leagues import selectors

    monday = today - dt.timedelta(days=today.weekday())
    for query, params in (
        (selectors._DAY_SQL["postgresql"], ["peche", today, made["id"]]),
        (selectors._WEEK_SQL["postgresql"], ["peche", monday, monday + dt.timedelta(days=6), made["id"]]),
    ):
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN (COSTS OFF) {query}", [*params, made["id"], player_of(ann).pk])
            plan = "\n".join(row[0] for row in cursor.fetchall())
        assert "challenges_player" not in plan
