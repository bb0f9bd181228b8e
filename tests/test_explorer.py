"""The day's explorer (GET /api/challenges/<date>/positions): for a position of a closed
day's deal, how many of the day's games reached it, each next ask's share and the mean
final score after it, and the analysis engine's view there. Its figures are a count anyone
can make from the day's archive; held and disqualified games never count; nothing before
the close."""

from __future__ import annotations

import ast
import datetime as dt
import json
from collections import defaultdict

import pytest
from django.test import Client

from challenges.models import GameAnalysis
from leaderboard import explorer, positions
from leaderboard.models import Result
from leaderboard.services import result_disqualify
from tests.conftest import ROOT, verified_game

pytestmark = pytest.mark.django_db(transaction=True)

CLOSED = dt.date(2026, 6, 2)


@pytest.fixture(autouse=True)
def fresh_explorer():
    """Each test's days are new to the process (the ids of a flushed database come back)."""
    positions.forget()
    yield
    positions.forget()


def habit(k: int):
    """A player who asks the ((asks so far × k) + k)-th rank in hand: players of the same
    habit play the same line, different habits part at different asks."""
    return lambda state: list(state.hands[0])[(len(state.history) * k + k) % len(state.hands[0])]


def a_closed_day(habits=(0, 0, 0, 1, 1, 2, 3, 5)) -> list:
    return [verified_game(f"Explorer {i}", day=CLOSED, choose=habit(k)) for i, k in enumerate(habits)]


def explore(moves: list[str] | None = None, day: dt.date = CLOSED):
    query = "" if moves is None else "?moves=" + ",".join(moves)
    return Client().get(f"/api/challenges/{day.isoformat()}/positions{query}")


def archive_lines(day: dt.date = CLOSED) -> list[dict]:
    response = Client().get(f"/api/challenges/{day.isoformat()}/archive")
    assert response.status_code == 200
    return [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]


def counted_from_archive(lines: list[dict], moves: list[str]) -> dict:
    """What the explorer must say at ``moves``, counted from the archive's lines alone."""
    reached = [line for line in lines if line["moves"][: len(moves)] == moves]
    after = defaultdict(list)
    for line in reached:
        if len(line["moves"]) > len(moves):
            after[line["moves"][len(moves)]].append(line["score"])
    return {
        "players": len(reached),
        "next": sorted(
            (
                {
                    "rank": rank,
                    "players": len(scores),
                    "share": round(len(scores) / len(reached), 4),
                    "mean_score": round(sum(scores) / len(scores), 1),
                }
                for rank, scores in after.items()
            ),
            key=lambda e: (-e["players"], e["rank"]),
        ),
    }


def test_every_position_of_the_day_answers_what_the_archive_counts():
    a_closed_day()
    lines = archive_lines()
    assert len(lines) == 8
    positions_seen = {(): None}
    for line in lines:
        for k in range(len(line["moves"]) + 1):
            positions_seen[tuple(line["moves"][:k])] = None
    # Some positions are shared, some not: the test sees both kinds of count.
    root = explore().json()
    assert root["players"] == 8 and len(root["next"]) >= 1
    assert any(1 < e["players"] < 8 for p in positions_seen for e in counted_from_archive(lines, list(p))["next"])
    for moves in positions_seen:
        found = explore(list(moves))
        assert found.status_code == 200, found.content
        body = found.json()
        assert {k: body[k] for k in ("players", "next")} == counted_from_archive(lines, list(moves)), moves
    # The root with an empty `moves` is the root.
    assert explore([]).json() == root


def test_held_and_disqualified_games_never_count_even_once_the_tree_is_kept(monkeypatch):
    # A process reads the day's fingerprint again at most every FRESH_SECONDS: this test
    # looks right after each change.
    monkeypatch.setattr(positions, "FRESH_SECONDS", 0.0)
    attempts = a_closed_day((0, 0, 1, 2))
    before = explore().json()
    assert before["players"] == 4
    lone = attempts[3]  # the only player of its habit: its own line ends where only it went
    own_line = list(lone.moves)
    assert explore(own_line).json()["players"] == 1

    # A reviewer's disqualification, then a hold written as the week rule writes it (a bulk
    # update, no signal): each is seen by the next request, though the tree was kept.
    result_disqualify(result_id=lone.result.pk, reason="shared an account")
    assert explore().json()["players"] == 3
    assert explore(own_line).json() == {"players": 0, "next": [], "engine": None}
    Result.objects.filter(attempt=attempts[0]).update(flagged=True, held=True, indexed=False)
    after = explore().json()
    assert after["players"] == 2
    assert after == {"players": 2, "next": counted_from_archive(archive_lines(), [])["next"], "engine": None}
    assert lone.pk not in {line["attempt"] for line in archive_lines()}


def test_a_provisional_newcomers_game_is_left_out_as_the_archive_leaves_it_out():
    attempts = a_closed_day((0, 1, 2))
    Result.objects.filter(attempt=attempts[2]).update(provisional=True)
    assert explore().json()["players"] == 2 == len(archive_lines())


def test_before_the_close_the_explorer_is_refused():
    verified_game("Early Explorer")  # today's day, still open
    found = Client().get("/api/challenges/today/positions")
    assert found.status_code == 409 and found.json()["error"] == "day_open"
    assert Client().get("/api/challenges/today/positions?moves=7").status_code == 409


@pytest.mark.parametrize(
    ("moves", "code"),
    [
        ("7,X", "bad_moves"),
        ("7,,Q", "bad_moves"),
        ("q", "bad_moves"),
        ("7, Q", "bad_moves"),
        ("1", "bad_moves"),
        (",".join(["7"] * (positions.MAX_MOVES + 1)), "too_many_moves"),
        ("10" + ",10" * 500, "too_many_moves"),
    ],
)
def test_a_malformed_line_is_a_400_with_its_code(moves, code):
    verified_game("Lone Explorer", day=CLOSED)
    found = Client().get(f"/api/challenges/{CLOSED.isoformat()}/positions", {"moves": moves})
    assert found.status_code == 400 and found.json()["error"] == code


def test_a_line_nobody_played_is_an_empty_position_not_an_error():
    verified_game("Lone Explorer", day=CLOSED)
    assert explore(["K"] * positions.MAX_MOVES).json() == {"players": 0, "next": [], "engine": None}
    # A day nobody played at all, closed.
    assert explore(day=dt.date(2026, 5, 3)).json() == {"players": 0, "next": [], "engine": None}


@pytest.mark.usefixtures("analysis_inline")
def test_the_engine_is_read_from_an_analysed_game_that_passed_through():
    one, other = a_closed_day((0, 3))
    line = list(one.moves)
    assert explore(line[:2]).json()["engine"] is None  # nothing analysed yet
    analysed = Client().post(f"/api/attempts/{one.pk}/analysis").json()
    positions.forget()  # the engine's marks are topped up every ENGINE_REFRESH_SECONDS
    for k in range(len(line)):
        engine = explore(line[:k]).json()["engine"]
        ask = analysed["asks"][k]
        assert engine == {"values": ask["values"], "best": ask["best"]}, k
    # The end of the game: no ask, no engine values.
    assert explore(line).json() == {"players": 1, "next": [], "engine": None}
    # The other game's own positions (after the lines part) are not the analysed game's.
    parted = next(k for k, (a, b) in enumerate(zip(line, other.moves)) if a != b)
    assert explore(list(other.moves[: parted + 1])).json()["engine"] is None
    assert GameAnalysis.objects.count() == 1


def test_the_tree_imports_nothing_of_django_and_counts_lines():
    tree = ROOT / "leaderboard" / "explorer.py"
    imported = {
        (n.module or "") if isinstance(n, ast.ImportFrom) else a.name
        for n in ast.walk(ast.parse(tree.read_text()))
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    assert imported <= {"__future__", "collections.abc", "typing"}, imported
    built = explorer.build([(["7", "Q"], 1000), (["7", "K"], 1060), (["7", "Q", "A"], 970), (["2"], 940)])
    assert built.answer([]) == {
        "players": 4,
        "next": [
            {"rank": "7", "players": 3, "share": 0.75, "mean_score": 1010.0},
            {"rank": "2", "players": 1, "share": 0.25, "mean_score": 940.0},
        ],
    }
    assert built.answer(["7", "Q"])["players"] == 2 and built.answer(["7", "J"]) == {"players": 0, "next": []}
