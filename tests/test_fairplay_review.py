"""Fair-play review: verification stores how each ranked game's asks were chosen; the
`fairplay` command and the admin's review queue put a player who saw the cards first,
and show players of one day who came from one address or one browser."""

from __future__ import annotations

import datetime as dt
import io
import json
import random

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from challenges import services
from challenges.models import Attempt, Player
from games.fairplay import players
from games.rules.peche import ENGINE
from leaderboard.models import Result
from tests.conftest import first_rank, new_player, verified_game

DAY = dt.date(2026, 6, 2)  # a fixed deal (the test settings' seed secret is fixed)


def clairvoyant(state) -> str:
    """Asks a rank the opponent holds whenever there is one: the player knows the deal."""
    return next((rank for rank in state.hands[0] if rank in state.hands[1]), next(iter(state.hands[0])))


def first_in_hand(state) -> str:
    return next(iter(state.hands[0]))


def last_in_hand(state) -> str:
    return list(state.hands[0])[-1]


def ranked_game(
    name: str,
    choose=None,
    *,
    day: dt.date = DAY,
    player: Player | None = None,
    chooser: players.Chooser | None = None,
) -> Attempt:
    """A verified ranked game of ``day``, each ask chosen by ``choose(state)`` (or by a
    simulated player of games/fairplay/players.py, which sees the table and, if it cheats,
    the truth)."""
    challenge = services.challenge_for_day(day=day)
    moves = None
    if chooser is not None:
        moves, _, _ = players.play(ENGINE.new(seed=challenge.seed).deck, chooser, random.Random(f"{name}/{day}"))
    return verified_game(
        name,
        day=day,
        choose=choose or first_rank,
        moves=moves,
        player=player,
        finished=challenge.closes_at - dt.timedelta(hours=2),
    )


@pytest.mark.django_db(transaction=True)
def test_the_fairplay_command_puts_a_full_knowledge_cheater_first_and_flags_only_him():
    honest = [ranked_game("Hana", first_in_hand), ranked_game("Ivo", last_in_hand)]
    cheater = ranked_game("Mallory", clairvoyant)
    stored = Result.objects.get(attempt=cheater)
    assert stored.flagged and stored.suspicion > max(Result.objects.get(attempt=a).suspicion for a in honest)

    out = io.StringIO()
    call_command("fairplay", date=DAY.isoformat(), stdout=out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["player"] for line in lines][0] == "Mallory"
    assert {line["player"]: line["flagged"] for line in lines} == {"Mallory": True, "Hana": False, "Ivo": False}
    for line in lines:
        assert {"attempt", "player", "score", "suspicion", "flagged"} <= line.keys()
        assert line["score"] == Result.objects.get(attempt_id=line["attempt"]).score

    out = io.StringIO()
    call_command("fairplay", date=DAY.isoformat(), flagged_only=True, stdout=out)
    assert [json.loads(line)["player"] for line in out.getvalue().splitlines()] == ["Mallory"]


@pytest.mark.django_db(transaction=True)
def test_recompute_restores_figures_from_seed_and_asks():
    cheater = ranked_game("Mallory", clairvoyant)
    Result.objects.filter(attempt=cheater).update(suspicion=0.0, flagged=False)
    call_command("fairplay", date=DAY.isoformat(), recompute=True, stdout=io.StringIO(), stderr=io.StringIO())
    assert Result.objects.get(attempt=cheater).flagged


@pytest.mark.django_db(transaction=True)
def test_players_of_one_browser_are_shown_together(settings):
    from leaderboard.selectors import review_queue

    settings.CHALLENGE_TIMEZONE = "UTC"
    shared = APIClient()  # one browser: its cookies survive a new player's log-in
    for name in ("Thrower One", "Thrower Two"):
        assert shared.post("/api/players", {"name": name}, format="json").status_code == 201
        assert shared.post("/api/challenges/today/attempt").status_code == 201
    other = APIClient(REMOTE_ADDR="10.9.8.7")
    assert other.post("/api/players", {"name": "Loner"}, format="json").status_code == 201
    assert other.post("/api/challenges/today/attempt").status_code == 201
    attempts = {a.player.name: a for a in Attempt.objects.select_related("player")}
    assert attempts["Thrower One"].browser_key == attempts["Thrower Two"].browser_key != ""
    assert attempts["Loner"].browser_key not in ("", attempts["Thrower One"].browser_key)
    # Keyed hashes, never the address or the cookie itself.
    assert "127.0.0.1" not in attempts["Thrower One"].client_key
    assert attempts["Thrower One"].client_key == attempts["Thrower Two"].client_key != attempts["Loner"].client_key

    for attempt in attempts.values():  # finish them as the verification would
        state = ENGINE.new(seed=attempt.challenge.seed)
        while not state.over:
            attempt.moves.append(first_in_hand(state))
            ENGINE.apply(state, attempt.moves[-1])
        Attempt.objects.filter(pk=attempt.pk).update(
            moves=attempt.moves, status="verifying", finished_at=attempt.challenge.closes_at - dt.timedelta(hours=1)
        )
        services.attempt_verify(attempt_id=attempt.pk)
    rows = {row["player"]: row for row in review_queue(challenge=attempts["Loner"].challenge)}
    assert rows["Thrower One"]["same_browser"] == 1 and rows["Thrower One"]["same_client"] == 1
    assert rows["Loner"]["same_browser"] == 0 and rows["Loner"]["same_client"] == 0
    assert rows["Thrower Two"]["cluster"] and not rows["Loner"]["cluster"]


@pytest.mark.django_db(transaction=True)
def test_a_quiet_peeker_shows_over_the_week():
    from leaderboard.selectors import review_queue

    # A week of games in which a held rank was asked on 70 % of the asks, from memory
    # otherwise (games/fairplay/players.py): no game is flagged alone, the week's games
    # weighed together as one peek rate add up.
    player = Player.objects.get(pk=new_player("Sly").player["id"])
    peeker = dict(players.CHEATERS)["peek 70 %, memory otherwise"]
    for offset in reversed(range(7)):  # day by day, as a player plays them
        ranked_game("Sly", day=DAY - dt.timedelta(days=offset), player=player, chooser=peeker)
    last = services.challenge_for_day(day=DAY)
    assert not Result.objects.filter(player=player, flagged=True).exists()
    row = review_queue(challenge=last)[0]
    assert not row["flagged"] and row["week_games"] == 7 and row["week_flagged"]
