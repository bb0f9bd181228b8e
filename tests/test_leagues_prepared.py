"""On Postgres a league's boards are read by prepared statements of the connection
(leagues.selectors._rows): Postgres parses and plans them once a connection, not once a
request (a quarter of a board's time in Postgres on a day of a million results,
bench.leagues_scale). What the boards answer is the same either way
(tests/test_leagues_api.py); what fails here is psycopg's prepared statements turned off
again (Django's default, prepare_threshold None, even for a cursor that binds on the
server), which silently gives each board its planning back."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection

from challenges import days
from leagues import selectors
from tests.conftest import new_player
from tests.test_leagues_api import create, join, player_of, result

pytestmark = pytest.mark.django_db


def prepared_statements() -> dict[str, int]:
    """The connection's prepared statements, as the selectors write them (%s for $n): how
    many times each ran."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements")
        return {re.sub(r"\$[0-9]+", "%s", statement): runs for statement, runs in cursor.fetchall()}


def test_the_boards_are_read_by_statements_prepared_once_a_connection():
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are the Postgres path's")
    ann, bob = new_player("Ann"), new_player("Bob")
    made = create(ann)
    join(bob, made["code"])
    today = days.today()
    result(player_of(bob), today, 1100, 30)
    monday = today - dt.timedelta(days=today.weekday())
    before = prepared_statements()
    for _ in range(3):
        board = selectors.day_board(made["id"], today, member=player_of(ann))
        week = selectors.week_standings(made["id"], monday, member=player_of(ann))
    assert [(e["name"], e["score"]) for e in board["entries"]] == [("Bob", 1100)]
    assert [(e["name"], e["points"]) for e in week["entries"]] == [("Bob", 1100), ("Ann", 0)]
    after = prepared_statements()
    for query in (selectors._DAY_SQL["postgresql"], selectors._WEEK_SQL["postgresql"]):
        assert after.get(query, 0) - before.get(query, 0) == 3, "each board's query ran 3 times, prepared"


def test_a_strangers_board_reads_no_member_whether_the_league_exists_or_not():
    """The boards check the caller's membership in their own query (one round trip): the
    check must run first and alone, or a stranger's 404 would take longer on a league that
    exists (its members read) than on one that does not, and tell which ids exist."""
    if connection.vendor != "postgresql":
        pytest.skip("the plan is Postgres'")
    ann, eve = new_player("Ann"), new_player("Eve")
    made = create(ann)
    today = days.today()
    result(player_of(ann), today, 1100, 30)
    monday = today - dt.timedelta(days=today.weekday())

    def plan(query: str, params: list, member: int) -> str:
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) {query}", [*params, made["id"], member])
            return "\n".join(row[0] for row in cursor.fetchall())

    for query, params in (
        (selectors._DAY_SQL["postgresql"], ["peche", today, made["id"]]),
        (selectors._WEEK_SQL["postgresql"], ["peche", monday, monday + dt.timedelta(days=6), made["id"]]),
    ):
        stranger, member = plan(query, params, player_of(eve).pk), plan(query, params, player_of(ann).pk)
        # The members' scan: read for Ann, never started for Eve.
        scan = next(line.strip() for line in member.splitlines() if "leagues_membership m" in line)
        assert "never executed" not in scan and "One-Time Filter" in member
        assert any("leagues_membership m" in line and "never executed" in line for line in stranger.splitlines())
