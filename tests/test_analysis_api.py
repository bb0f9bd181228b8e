"""/api/attempts/<id>/analysis (POST asks for it, GET reads it) and the day's par: for a game the caller may see
replayed, after the day's close only; worked out once on its own queue and kept; the par
the same for every player, shown on the leaderboard only once the day is closed."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client, override_settings
from django.utils import timezone

from challenges import analysis_jobs, services
from challenges.models import DayPar, GameAnalysis
from games.analysis import game as analysis_game
from tests.conftest import first_rank, verified_game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("analysis_inline")]

CLOSED = dt.date(2026, 6, 2)


def client_of(attempt) -> Client:
    client = Client()
    client.force_login(attempt.player.user)
    return client


def last_rank(state) -> str:
    return list(state.hands[0])[-1]


def test_a_closed_day_s_game_is_analysed_once_for_anyone_with_the_day_s_par():
    attempt = verified_game("Ana Lyse", day=CLOSED)
    url = f"/api/attempts/{attempt.pk}/analysis"
    # A look starts nothing: not worked out yet.
    assert Client().get(url).status_code == 202 and not GameAnalysis.objects.exists()
    answer = Client().post(url)  # a public replay: anyone may ask for its analysis
    assert answer.status_code == 200, answer.content
    data = answer.json()
    expected = analysis_game.analyse(attempt.challenge.seed, attempt.moves)
    assert data["accuracy"] == round(expected.accuracy, 1) and data["luck"] == round(expected.luck, 2)
    assert [a["rank"] for a in data["asks"]] == attempt.moves
    for ask, found in zip(data["asks"], expected.asks):
        assert set(ask) >= {"index", "rank", "best", "values", "loss", "label"}
        assert ask == found.as_dict()
    par = analysis_game.par(attempt.challenge.seed)
    assert data["par"] == par["score"]
    # Stored: the second view is a read of the same row (no second analysis nor par).
    assert GameAnalysis.objects.count() == 1 and DayPar.objects.count() == 1
    assert client_of(attempt).get(url).json() == data
    assert Client().post(url).json() == data and GameAnalysis.objects.count() == 1


def test_the_par_is_the_same_for_every_player_of_the_day():
    one = verified_game("First Fay", day=CLOSED)
    two = verified_game("Last Lou", day=CLOSED, choose=last_rank)
    a = Client().post(f"/api/attempts/{one.pk}/analysis").json()
    b = Client().post(f"/api/attempts/{two.pk}/analysis").json()
    assert a["par"] == b["par"] is not None and DayPar.objects.count() == 1
    assert a["asks"] != b["asks"]


def test_before_the_close_the_analysis_is_refused_and_nothing_is_worked_out():
    attempt = verified_game("Early Eve")
    assert not attempt.challenge.is_revealed(timezone.now())
    url = f"/api/attempts/{attempt.pk}/analysis"
    own = client_of(attempt).get(url)
    assert own.status_code == 409 and own.json()["error"] == "day_open"
    assert client_of(attempt).post(url).status_code == 409
    # Another player's game of an open day, or no such game: not found (nothing told).
    assert Client().get(url).status_code == 404 and Client().post(url).status_code == 404
    assert Client().get("/api/attempts/987654/analysis").status_code == 404
    # Superusers replay it before the close; its analysis waits for the close all the same.
    root = get_user_model().objects.create_superuser("root", "r@example.com", "pw-Root-123")
    admin = Client()
    admin.force_login(root)
    assert admin.get(url).status_code == 409
    assert analysis_jobs.pars_due() == 0  # the beat leaves an open day alone
    board = Client().get(f"/leaderboard/{attempt.challenge.date}/").content.decode()
    assert 'id="par"' not in board
    assert not GameAnalysis.objects.exists() and not DayPar.objects.exists()


def test_the_beat_works_out_the_par_of_a_closed_day_and_the_leaderboard_shows_it():
    attempt = verified_game("Board Bea", day=CLOSED)
    # The beat's round covers the days closed this past week: move this one's close there.
    type(attempt.challenge).objects.filter(pk=attempt.challenge_id).update(
        reveals_at=timezone.now() - dt.timedelta(hours=1)
    )
    assert analysis_jobs.pars_due() == 1 and analysis_jobs.pars_due() == 0  # once
    score = DayPar.objects.get().score
    assert score == analysis_game.par(attempt.challenge.seed)["score"]
    board = Client().get(f"/leaderboard/{CLOSED}/").content.decode()
    assert f"Par: {score}" in board
    # The archive lists it beside the day (the days of the last month only).
    assert f"Par: {score}" not in Client().get("/daily/archive/").content.decode()
    type(attempt.challenge).objects.filter(pk=attempt.challenge_id).update(
        date=timezone.localdate() - dt.timedelta(days=1)
    )
    assert f"Par: {score}" in Client().get("/daily/archive/").content.decode()


def test_an_analysis_goes_on_its_own_queue_and_a_pending_one_answers_202(monkeypatch):
    assert settings.CELERY_TASK_ROUTES["challenges.tasks.analyse_attempt"] == {"queue": "analysis"}
    assert settings.CELERY_TASK_ROUTES["challenges.tasks.pars_due"] == {"queue": "analysis"}
    attempt = verified_game("Queued Quinn", day=CLOSED)
    sent = []
    monkeypatch.setattr(
        services, "_task", lambda name: type("T", (), {"apply_async": lambda *a, **k: sent.append((name, a, k))})
    )
    assert Client().get(f"/api/attempts/{attempt.pk}/analysis").status_code == 202 and sent == []  # a look
    answer = Client().post(f"/api/attempts/{attempt.pk}/analysis")
    assert answer.status_code == 202 and answer.json()["code"] == "analysis_pending"
    assert answer["Retry-After"] == "2"
    assert sent == [("analyse_attempt", ((attempt.pk,),), {"queue": "analysis", "retry": False})]
    # A page asking again meanwhile does not queue it twice.
    assert Client().post(f"/api/attempts/{attempt.pk}/analysis").status_code == 202 and len(sent) == 1
    cache.delete(analysis_jobs.ANALYSIS_WANTED.format(attempt.pk))  # (ids come back in the next test's database)


def test_a_practice_game_has_no_analysis():
    attempt = verified_game("Practice Pat", day=CLOSED, choose=first_rank)
    type(attempt).objects.filter(pk=attempt.pk).update(ranked=False)
    assert Client().get(f"/api/attempts/{attempt.pk}/analysis").status_code == 404
    assert analysis_jobs.attempt_analyse(attempt_id=attempt.pk) is False


def test_games_not_analysed_yet_are_asked_for_a_few_times_an_hour_per_address_and_an_analysed_one_always():
    games = [verified_game(name, day=CLOSED) for name in ("Ann Alyse", "Bea Curious", "Cy Script")]
    limits = {**settings.RATE_LIMITS, "analyses": "2/hour"}
    with override_settings(RATE_LIMITS=limits):
        for attempt in games[:2]:
            assert Client().post(f"/api/attempts/{attempt.pk}/analysis").status_code == 200
        over = Client().post(f"/api/attempts/{games[2].pk}/analysis")
        assert over.status_code == 429, over.content
        assert over.json()["error"] == "rate_limited" and int(over["Retry-After"]) > 0
        # Refused before any work: the third game has no analysis, and a look still starts none.
        assert not GameAnalysis.objects.filter(attempt_id=games[2].pk).exists()
        assert Client().get(f"/api/attempts/{games[2].pk}/analysis").status_code == 202
        # A game analysed already costs nothing: answered over the limit too.
        again = Client().post(f"/api/attempts/{games[0].pk}/analysis")
        assert again.status_code == 200 and again.json()["asks"]
        # Another address has its own count.
        other = Client(REMOTE_ADDR="198.51.100.7").post(f"/api/attempts/{games[2].pk}/analysis")
        assert other.status_code == 200 and GameAnalysis.objects.filter(attempt_id=games[2].pk).exists()


def test_the_beat_analyses_every_ranked_game_of_a_closed_day_together_once(monkeypatch):
    """After the close the beat's rounds analyse the day's ranked games before anyone asks,
    a batch at a time (games that share their first asks together), each as it is analysed
    alone; a round out of time starts no batch; a game analysed is not analysed again."""
    games = [verified_game(name, day=CLOSED) for name in ("Bea One", "Bea Two")]
    games.append(verified_game("Lou Last", day=CLOSED, choose=last_rank))
    type(games[0].challenge).objects.filter(pk=games[0].challenge_id).update(
        reveals_at=timezone.now() - dt.timedelta(hours=1)
    )
    assert settings.CELERY_BEAT_SCHEDULE["day-analyses"]["task"] == "challenges.tasks.analyses_due"
    assert settings.CELERY_TASK_ROUTES["challenges.tasks.analyses_due"] == {"queue": "analysis"}
    monkeypatch.setattr(analysis_jobs, "ANALYSIS_BATCH", 2)
    assert analysis_jobs.analyses_due(seconds=0) == 0 and not GameAnalysis.objects.exists()
    assert analysis_jobs.analyses_due() == 3 and analysis_jobs.analyses_due() == 0
    seed = games[0].challenge.seed
    for attempt in games:
        stored = GameAnalysis.objects.get(attempt=attempt)
        alone = analysis_game.analyse(seed, attempt.moves)
        assert stored.asks == [a.as_dict() for a in alone.asks] and stored.accuracy == round(alone.accuracy, 1)
    assert DayPar.objects.filter(challenge=games[0].challenge).exists()
    # A reader's view is now a read, and a player's own page shows the game's accuracy
    # without its replay ever having been opened.
    assert Client().get(f"/api/attempts/{games[2].pk}/analysis").status_code == 200
    page = client_of(games[0]).get("/me/", follow=True).content.decode()
    shown = round(GameAnalysis.objects.get(attempt=games[0]).accuracy)
    assert f'<td class="accuracy">{shown} %</td>' in page


def test_the_day_s_budget_holds_across_addresses_a_game_costs_once_and_a_player_s_own_game_always_passes(monkeypatch):
    """Many addresses, each under its own limit, cannot fill the analysis queue: the games
    handed over from every address together are counted against one budget; over it, 429
    `analysis_budget` with Retry-After and nothing queued. A game handed over already is
    not handed over again and costs nothing."""
    from config import metrics

    games = [verified_game(name, day=CLOSED) for name in ("Al Pha", "Be Ta", "Gam Ma", "Del Ta")]
    sent = []
    monkeypatch.setattr(
        services, "_task", lambda name: type("T", (), {"apply_async": lambda *a, **k: sent.append(a[0][0])})
    )
    refused = metrics.ANALYSIS_REFUSED.labels("budget")
    before = refused._value.get()
    address = (f"203.0.113.{n}" for n in range(1, 100))
    with override_settings(RATE_LIMITS={**settings.RATE_LIMITS, "analyses_day": "2/day"}):
        # The same game asked for from five addresses: handed over once, one of the budget.
        for _ in range(5):
            answer = Client(REMOTE_ADDR=next(address)).post(f"/api/attempts/{games[0].pk}/analysis")
            assert answer.status_code == 202, answer.content
        assert sent == [games[0].pk]
        assert Client(REMOTE_ADDR=next(address)).post(f"/api/attempts/{games[1].pk}/analysis").status_code == 202
        assert sent == [games[0].pk, games[1].pk]
        # The budget is spent: a fresh address, under its own limit, is refused.
        over = Client(REMOTE_ADDR=next(address)).post(f"/api/attempts/{games[2].pk}/analysis")
        assert over.status_code == 429, over.content
        assert over.json()["error"] == "analysis_budget" and 0 < int(over["Retry-After"]) <= 86400
        assert sent == [games[0].pk, games[1].pk] and refused._value.get() == before + 1
        # Refused, the game is not left claimed: asked again later it is handed over.
        assert cache.get(analysis_jobs.ANALYSIS_WANTED.format(games[2].pk)) is None
        # The games handed over already are still answered (pending), costing nothing.
        assert Client(REMOTE_ADDR=next(address)).post(f"/api/attempts/{games[0].pk}/analysis").status_code == 202
        # A player's own game passes whatever the budget.
        own = client_of(games[3]).post(f"/api/attempts/{games[3].pk}/analysis")
        assert own.status_code == 202, own.content
        assert sent == [games[0].pk, games[1].pk, games[3].pk]
    for attempt in games:  # (ids come back in the next test's database)
        cache.delete(analysis_jobs.ANALYSIS_WANTED.format(attempt.pk))


def test_a_game_analysed_already_is_answered_when_the_day_s_budget_is_spent():
    attempt = verified_game("Done Dora", day=CLOSED)
    assert Client().post(f"/api/attempts/{attempt.pk}/analysis").status_code == 200  # worked out (eager)
    with override_settings(RATE_LIMITS={**settings.RATE_LIMITS, "analyses_day": "0/day"}):
        other = verified_game("Late Lee", day=CLOSED)
        assert Client().post(f"/api/attempts/{other.pk}/analysis").json()["error"] == "analysis_budget"
        again = Client().post(f"/api/attempts/{attempt.pk}/analysis")
        assert again.status_code == 200 and again.json()["asks"]
