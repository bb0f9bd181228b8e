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
        board = selectors.day_board(made["id"], today)
        week = selectors.week_standings(made["id"], monday)
    assert [(e["name"], e["score"]) for e in board["entries"]] == [("Bob", 1100)]
    assert [(e["name"], e["points"]) for e in week["entries"]] == [("Bob", 1100), ("Ann", 0)]
    after = prepared_statements()
    for query in (selectors._DAY_SQL["postgresql"], selectors._WEEK_SQL["postgresql"]):
        assert after.get(query, 0) - before.get(query, 0) == 3, "each board's query ran 3 times, prepared"
