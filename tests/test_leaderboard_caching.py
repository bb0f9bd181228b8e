"""A settled day's leaderboard (seed revealed, nothing left to verify) is cacheable
by a CDN — public for a bounded time, with a strong ETag and 304s; an open day, a day still
verifying and anything personal are not (leaderboard/caching.py)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.http import HttpResponse
from django.test import Client, RequestFactory

from challenges import analysis_jobs, days, services
from challenges.models import Attempt, Player
from games.rules.peche import ENGINE
from leaderboard.caching import BROWSER_SECONDS, CDN_SECONDS, LeaderboardCacheMiddleware, mark
from tests.conftest import new_player, verified_game

pytestmark = pytest.mark.django_db(transaction=True)

CLOSED_DAY = dt.date(2026, 6, 2)


@pytest.fixture(autouse=True)
def closed_day_par():
    """The closed day's par, as the beat works it out minutes after the close: a settled
    day's page is public (a CDN may keep it) only once it holds its par."""
    analysis_jobs.day_par_ensure(challenge=services.challenge_for_day(day=CLOSED_DAY))


def directives(response) -> set[str]:
    return {d.strip() for d in response.get("Cache-Control", "").split(",") if d.strip()}


def varies(response) -> set[str]:
    return {v.strip() for v in response.get("Vary", "").split(",") if v.strip()}


def is_public(response) -> bool:
    return directives(response) == {"public", f"max-age={BROWSER_SECONDS}", f"s-maxage={CDN_SECONDS}"}


def is_private(response) -> bool:
    return {"private", "no-cache"} <= directives(response) and "public" not in directives(response)


def still_verifying(name: str, day: dt.date) -> Attempt:
    """A ranked game of ``day`` finished before its close whose replay has not run yet."""
    challenge = services.challenge_for_day(day=day)
    state, moves = ENGINE.new(seed=challenge.seed), []
    while not state.over:
        moves.append(next(iter(state.hands[0])))
        ENGINE.apply(state, moves[-1])
    return Attempt.objects.create(
        player=Player.objects.get(pk=new_player(name).player["id"]),
        challenge=challenge,
        ranked=True,
        moves=moves,
        status=Attempt.Status.VERIFYING,
        finished_at=challenge.closes_at - dt.timedelta(hours=1),
    )


def signed_in(attempt: Attempt) -> Client:
    client = Client()
    client.force_login(attempt.player.user)
    return client


def test_a_settled_days_page_is_public_and_holds_nothing_of_the_visitor():
    verified_game("Cached Carla", day=CLOSED_DAY)
    page = Client().get(f"/leaderboard/{CLOSED_DAY}/")
    assert page.status_code == 200 and "Cached Carla" in page.content.decode()
    assert is_public(page)
    assert varies(page) == {"Accept-Language", "Cookie"}  # the language: header or cookie
    assert page["ETag"].startswith('"') and not page.has_header("Last-Modified")  # strong; no date
    assert not page.cookies and not page.has_header("Set-Cookie")
    text = page.content.decode()
    assert "csrfmiddlewaretoken" not in text and 'class="me"' not in text and "logout" not in text


def test_a_signed_in_players_page_is_private_and_their_own():
    attempt = verified_game("Private Pia", day=CLOSED_DAY)
    page = signed_in(attempt).get(f"/leaderboard/{CLOSED_DAY}/")
    assert page.status_code == 200 and is_private(page)
    assert "Cookie" in varies(page)
    text = page.content.decode()
    assert 'class="me"' in text and "csrfmiddlewaretoken" in text and 'data-viewer="Private Pia"' in text


def test_the_304_round_trip_of_the_page_and_the_api():
    verified_game("Etag Elsa", day=CLOSED_DAY)
    for url in (
        f"/leaderboard/{CLOSED_DAY}/",
        f"/api/leaderboard/{CLOSED_DAY}",
        f"/api/leaderboard/{CLOSED_DAY}/histogram",
    ):
        first = Client().get(url)
        assert first.status_code == 200 and is_public(first), url
        again = Client().get(url, HTTP_IF_NONE_MATCH=first["ETag"])
        assert again.status_code == 304 and again.content == b"", url
        assert is_public(again) and again["ETag"] == first["ETag"], url
        other = Client().get(url, HTTP_IF_NONE_MATCH='"something-else"')
        assert other.status_code == 200 and other.content == first.content, url


def test_the_etag_changes_with_the_page():
    verified_game("First Fay", day=CLOSED_DAY)
    before = Client().get(f"/api/leaderboard/{CLOSED_DAY}")
    Player.objects.filter(name="First Fay").update(name="Renamed Fay")  # the boards show current names
    after = Client().get(f"/api/leaderboard/{CLOSED_DAY}", HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    assert after.json()["entries"][0]["name"] == "Renamed Fay"


def test_the_api_answers_the_same_to_everybody_and_so_does_not_vary_by_cookie():
    attempt = verified_game("Token Tom", day=CLOSED_DAY)
    client = new_player("Other Olga")
    with_token = client.get(f"/api/leaderboard/{CLOSED_DAY}")
    anonymous = Client().get(f"/api/leaderboard/{CLOSED_DAY}")
    by_session = signed_in(attempt).get(f"/api/leaderboard/{CLOSED_DAY}")
    assert with_token.content == anonymous.content == by_session.content
    for answer in (with_token, anonymous, by_session):
        assert is_public(answer) and "Cookie" not in varies(answer) and not answer.cookies
    mine = client.get(f"/api/leaderboard/{CLOSED_DAY}/me")
    assert mine.status_code == 404 and not is_public(mine)
    own = new_player("Own Otto")
    verified_game(day=CLOSED_DAY, player=Player.objects.get(pk=own.player["id"]))
    answer = own.get(f"/api/leaderboard/{CLOSED_DAY}/me")
    assert answer.status_code == 200 and is_private(answer)


def test_a_closed_day_still_verifying_is_not_public_until_its_last_game_is_verified():
    verified_game("Done Dora", day=CLOSED_DAY)
    waiting = still_verifying("Waiting Will", CLOSED_DAY)
    urls = (f"/leaderboard/{CLOSED_DAY}/", f"/api/leaderboard/{CLOSED_DAY}", f"/api/challenges/{CLOSED_DAY}/archive")
    for url in urls:
        answer = Client().get(url)
        assert answer.status_code == 200 and is_private(answer), url
    services.attempt_verify(attempt_id=waiting.pk)
    for url in urls:
        assert is_public(Client().get(url)), url


def test_an_open_day_is_never_public():
    verified_game("Today Tina")
    today = days.today().isoformat()
    for url in (f"/leaderboard/{today}/", f"/api/leaderboard/{today}", "/api/leaderboard/today"):
        answer = Client().get(url)
        assert answer.status_code == 200 and is_private(answer), url


def test_the_archive_is_public_once_settled_but_has_no_etag():
    verified_game("Archived Anna", day=CLOSED_DAY)
    archive = Client().get(f"/api/challenges/{CLOSED_DAY}/archive")
    assert archive.status_code == 200 and is_public(archive) and not archive.has_header("ETag")
    assert b"Archived Anna" in b"".join(archive.streaming_content)


def test_a_public_answer_that_sets_a_cookie_on_its_way_out_is_sent_private():
    def view_then_session(request):
        response = mark(HttpResponse("the board"), public=True)
        response.set_cookie("sessionid", "abc")  # as a layer below the guard may
        return response

    answer = LeaderboardCacheMiddleware(view_then_session)(RequestFactory().get("/leaderboard/2026-06-02/"))
    assert is_private(answer) and answer.cookies["sessionid"].value == "abc"
    plain = LeaderboardCacheMiddleware(lambda r: HttpResponse("x"))(RequestFactory().get("/"))
    assert not plain.has_header("Cache-Control") and not plain.has_header("ETag")  # unmarked: untouched


def test_the_language_picker_of_a_public_page_works_without_a_token():
    verified_game("Lang Lou", day=CLOSED_DAY)
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(f"/leaderboard/{CLOSED_DAY}/")
    assert is_public(page) and "csrfmiddlewaretoken" not in page.content.decode()
    chosen = browser.post("/i18n/setlang/", {"language": "fr", "next": f"/leaderboard/{CLOSED_DAY}/"})
    assert chosen.status_code == 302 and chosen.cookies["django_language"].value == "fr"
    french = browser.get(f"/leaderboard/{CLOSED_DAY}/")
    assert french["Content-Language"] == "fr" and is_public(french) and french["ETag"] != page["ETag"]
