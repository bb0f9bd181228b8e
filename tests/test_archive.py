"""The day's archive: once a day's seed is public, its whole ranking as JSON
Lines that `manage.py replay --jsonl` (or any implementation of the rules) recomputes;
nothing of it before."""

from __future__ import annotations

import datetime as dt
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from challenges import days, services
from challenges.models import Attempt
from leaderboard import selectors
from leaderboard.models import Result
from tests.conftest import verified_game

pytestmark = pytest.mark.django_db(transaction=True)

CLOSED_DAY = dt.date(2026, 6, 2)


def played(name: str, day: dt.date, choice: int, finished: dt.datetime | None = None) -> Attempt:
    """A verified ranked game in which the player always asks the ``choice``-th rank in
    hand (so that players differ in score and asks)."""
    return verified_game(
        name, day=day, choose=lambda state: list(state.hands[0])[choice % len(state.hands[0])], finished=finished
    )


def a_closed_day(players: int = 6) -> list[Attempt]:
    closes = services.challenge_for_day(day=CLOSED_DAY).closes_at
    # Two players share a finish time so that the last tie-break (the attempt) is needed.
    return [
        played(f"Archivist {i}", CLOSED_DAY, i % 4, closes - dt.timedelta(minutes=10 * (i // 2) + 1))
        for i in range(players)
    ]


def archive(day: dt.date = CLOSED_DAY) -> tuple[object, list[dict]]:
    response = Client().get(f"/api/challenges/{day.isoformat()}/archive")
    if response.status_code != 200:
        return response, []
    body = b"".join(response.streaming_content).decode()
    return response, [json.loads(line) for line in body.splitlines()]


def test_the_archive_replays_to_every_published_score_and_its_ranks_are_the_leaderboards(tmp_path):
    a_closed_day()
    response, lines = archive()
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"].startswith("application/jsonl")
    assert len(lines) == 6 and len({(line["score"], line["asks"]) for line in lines}) > 1
    seed = services.challenge_for_day(day=CLOSED_DAY).seed
    assert {line["seed"] for line in lines} == {seed}

    # The conformance runner knows nothing of the extra fields: it replays game + seed + moves.
    cases = tmp_path / "archive.jsonl"
    cases.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = io.StringIO()
    call_command("replay", jsonl=str(cases), stdout=out)
    replayed = [json.loads(row) for row in out.getvalue().splitlines()]
    assert [(r["score"], r["player_asks"], r["player_pairs"]) for r in replayed] == [
        (line["score"], line["asks"], line["player_pairs"]) for line in lines
    ]

    board = Client().get(f"/api/leaderboard/{CLOSED_DAY.isoformat()}").json()
    assert [(e["rank"], e["name"], e["score"], e["asks"]) for e in board["entries"]] == [
        (line["rank"], line["player"], line["score"], line["asks"]) for line in lines
    ]


def test_the_archive_is_read_in_batches_and_leaves_out_disqualified_games(monkeypatch):
    attempts = a_closed_day(8)
    # Ties at every level of the order (score, then asks, then finish, then attempt), so
    # that batch edges fall inside each kind of tie.
    finish = services.challenge_for_day(day=CLOSED_DAY).closes_at - dt.timedelta(hours=2)
    grid = [
        (1000, 25, 0),
        (1000, 25, 0),
        (1000, 25, 5),
        (1000, 27, 0),
        (1000, 27, 0),
        (940, 26, 0),
        (940, 26, 0),
        (940, 26, 1),
    ]
    for attempt, (score, asks, minutes) in zip(attempts, grid):
        Result.objects.filter(attempt=attempt).update(
            score=score, asks=asks, finished_at=finish + dt.timedelta(minutes=minutes)
        )
    Result.objects.filter(attempt=attempts[6]).update(disqualified=True)
    expected = list(
        selectors.ranked_results(attempts[0].challenge_id)
        .order_by(*selectors.RANK_ORDER)
        .values_list("attempt_id", flat=True)
    )
    assert len(expected) == 7 and attempts[6].pk not in expected
    for batch in (1, 2, 3, 7, 2000):
        monkeypatch.setattr(selectors, "ARCHIVE_BATCH", batch)
        lines = archive()[1]
        assert [line["attempt"] for line in lines] == expected, batch
        assert [line["rank"] for line in lines] == list(range(1, 8))


def test_the_operator_command_writes_the_same_lines(tmp_path):
    a_closed_day(3)
    response = Client().get(f"/api/challenges/{CLOSED_DAY.isoformat()}/archive")
    served = b"".join(response.streaming_content).decode()
    out = io.StringIO()
    call_command("archive", date=CLOSED_DAY.isoformat(), stdout=out)
    assert out.getvalue() == served
    written = tmp_path / "day.jsonl"
    call_command("archive", date=CLOSED_DAY.isoformat(), out=str(written), stderr=io.StringIO())
    assert written.read_text() == served


def test_no_archive_while_the_seed_is_secret():
    today = days.today()
    played("Early Bird", today, 0)
    response, _ = archive(today)
    assert response.status_code == 409 and response.json()["error"] == "day_open"
    assert services.challenge_for_day(day=today).seed not in response.content.decode()
    with pytest.raises(CommandError, match="still open"):
        call_command("archive", date="today", stdout=io.StringIO())


def test_days_that_do_not_exist_have_no_archive():
    assert archive(dt.date(2025, 12, 31))[0].status_code == 404
    assert archive(days.today() + dt.timedelta(days=1))[0].status_code == 404
    assert Client().get("/api/challenges/2026-13-01/archive").status_code in (400, 404)


def test_the_leaderboard_links_the_archive_once_the_day_is_closed():
    played("Linker", CLOSED_DAY, 1)
    played("Hider", days.today(), 1)
    closed = Client().get(f"/leaderboard/{CLOSED_DAY.isoformat()}/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert f'href="/api/challenges/{CLOSED_DAY.isoformat()}/archive"' in closed and "L'archive du jour" in closed
    open_day = Client().get(f"/leaderboard/{days.today().isoformat()}/").content.decode()
    assert f"/api/challenges/{days.today().isoformat()}/archive" not in open_day
