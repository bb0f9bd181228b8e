"""No throwaway on the public podium: a player with a counted ranked result on fewer than
ESTABLISHED_DAYS of the 14 days before the day ranks (and sees the true rank, marked
provisional) but is not listed on the day's public board (page, API, archive), whose ranks
leave a gap where the result stands. The rank index and SQL answer the same."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
import redis
from django.test import Client, override_settings

from challenges import days, services
from challenges.models import Player
from leaderboard import rank_index, selectors
from leaderboard import services as board_services
from leaderboard.models import Result
from tests.conftest import first_rank, new_player, verified_game

pytestmark = pytest.mark.django_db(transaction=True)

DAYS = [dt.date(2026, 5, 30) + dt.timedelta(days=n) for n in range(4)]  # closed days, fixed deals
DAY = DAYS[-1]


@pytest.fixture(params=["index", "sql"])
def board(request, own_redis, monkeypatch, settings):
    """Each test twice: the rank index answering (a redis-server of the test's own), and SQL."""
    monkeypatch.setattr(services, "enqueue_verification", lambda attempt_id: None)
    settings.ESTABLISHED_DAYS = 3
    if request.param == "sql":
        yield None
        return
    with override_settings(REDIS_URL=own_redis.url):
        yield redis.Redis.from_url(own_redis.url)


def play(player, day: dt.date, minutes_before_close: int):
    """The same asks for everyone (one score, one count of asks): the finish time ranks."""
    closes = services.challenge_for_day(day=day).closes_at
    return verified_game(
        day=day, player=player, choose=first_rank, finished=closes - dt.timedelta(minutes=minutes_before_close)
    )


def someone(name: str):
    client = new_player(name)
    return client, Player.objects.get(pk=client.player["id"])


def api_page(day: dt.date, **params) -> dict:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    response = Client().get(f"/api/leaderboard/{day.isoformat()}?{query}")
    assert response.status_code == 200, response.content
    return response.json()


def listed(day: dt.date) -> list[tuple[int, str]]:
    return [(e["rank"], e["name"]) for e in api_page(day, limit=200)["entries"]]


def archive(day: dt.date) -> list[tuple[int, str]]:
    response = Client().get(f"/api/challenges/{day.isoformat()}/archive")
    lines = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    return [(line["rank"], line["player"]) for line in lines]


def index_built(store, day: dt.date) -> None:
    if store is not None:
        challenge_id = services.challenge_for_day(day=day).pk
        board_services.rebuild_index(challenge_id=challenge_id)
        assert rank_index.is_ready(challenge_id)


def test_a_newcomer_ranks_but_is_not_listed_until_established(board):
    vets = [someone("Vet One")[1], someone("Vet Two")[1]]
    for day in DAYS[:-1]:
        for minutes, vet in zip((60, 30), vets, strict=True):
            play(vet, day, minutes)
    newbie_client, newbie = someone("Newbie")
    # The newcomer finishes first on the last day: #1, but nobody sees it at the top.
    play(newbie, DAY, 90)
    for minutes, vet in zip((60, 30), vets, strict=True):
        play(vet, DAY, minutes)
    index_built(board, DAY)
    mine = Result.objects.get(player=newbie, challenge__date=DAY)
    assert mine.provisional and not Result.objects.filter(player__in=vets, challenge__date=DAY, provisional=True)
    # The vets' first day had no history either: provisional then, and it stays so.
    assert Result.objects.filter(player__in=vets, challenge__date=DAYS[0], provisional=True).count() == 2

    assert listed(DAY) == [(2, "Vet One"), (3, "Vet Two")]
    page = api_page(DAY, limit=200)
    assert (page["total"], page["listed"]) == (3, 2)
    assert [(e["rank"], e["name"]) for e in api_page(DAY, offset=1, limit=1)["entries"]] == [(3, "Vet Two")]
    assert archive(DAY) == [(2, "Vet One"), (3, "Vet Two")]
    html = Client().get(f"/leaderboard/{DAY.isoformat()}/").content.decode()
    assert "Vet One" in html and "3 ranked games" in html
    # Listed apart, below the ranks, with no number: on the page and in the API.
    ranks, apart = html.split('id="newcomers-title"')
    assert "Newbie" not in ranks and 'data-name="Newbie"' in apart and "New players this day" in apart
    assert [(n["name"], n["score"]) for n in page["newcomers"]] == [("Newbie", mine.score)]
    assert "rank" not in page["newcomers"][0]
    # The histogram and "of N" count every ranked result: the newcomer is ranked.
    assert selectors.day_players(mine.challenge_id) == 3

    # Its own rank is true and marked provisional, on the API and on the board's page.
    me = newbie_client.get(f"/api/leaderboard/{DAY.isoformat()}/me").json()
    assert (me["rank"], me["players"], me["provisional"]) == (1, 3, True)
    attempt = newbie_client.get(f"/api/attempts/{mine.attempt_id}").json()["result"]
    assert attempt["rank"] == 1 and attempt["provisional"]
    own_html = newbie_client.get(f"/leaderboard/{DAY.isoformat()}/").content.decode()
    assert "provisional" in own_html

    assert "Your rank: 1" in own_html and "provisional" in own_html
    # Its player page shows the rank to the player only (marked); to others, no rank.
    own_row = newbie_client.get(f"/players/{newbie.pk}/").content.decode()
    public_row = Client().get(f"/players/{newbie.pk}/").content.decode()
    assert '<td>1 <span class="provisional">' in own_row
    assert "<td>—</td>" in public_row and 'class="provisional"' not in public_row


def test_established_after_enough_days_that_counted(board):
    late_client, late = someone("Late")
    for n, day in enumerate(DAYS):
        play(late, day, 60)
        index_built(board, day)
        result = Result.objects.get(player=late, challenge__date=day)
        # 0, 1, 2 earlier days: provisional; 3: established, listed as #1.
        assert result.provisional == (n < 3)
        assert listed(day) == ([] if n < 3 else [(1, "Late")])
        assert late_client.get(f"/api/leaderboard/{day.isoformat()}/me").json()["rank"] == 1


def test_a_held_day_does_not_count_towards_being_established(board):
    _, player = someone("Sometimes")
    for day in DAYS[:-1]:
        play(player, day, 60)
    # One of the three days is held (under review): it does not count, nor would a disqualified one.
    Result.objects.filter(player=player, challenge__date=DAYS[1]).update(held=True)
    play(player, DAY, 60)
    index_built(board, DAY)
    assert Result.objects.get(player=player, challenge__date=DAY).provisional
    assert listed(DAY) == []


@pytest.mark.parametrize(
    "lang, words",
    [
        ("en", ("Newcomers.", "3 of the 14 days before", "“provisional”")),
        ("fr", ("Nouveaux joueurs.", "3 des 14 jours précédents", "Vos parties", "«\u00a0provisoire\u00a0»")),
        ("de", ("Neu dabei.", "an 3 der 14 Tage davor", "„vorläufig“")),
        ("ja", ("はじめての方へ。", "14日間のうち3日", "「暫定」")),
    ],
)
def test_the_rules_page_tells_a_newcomer_what_provisional_means(client, settings, lang, words):
    settings.ESTABLISHED_DAYS = 3
    html = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    for word in words:
        assert word in html, (lang, word)
    settings.ESTABLISHED_DAYS = 0  # no rule, nothing said of it
    assert words[0] not in client.get("/rules/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()


@pytest.mark.parametrize("listed_every", [1, 2, 10])
def test_the_index_reads_the_true_rank_of_each_listed_entry(own_redis, listed_every):
    """The listed page reads each entry's rank in the day's set: by one range of it when
    newcomers between are few, one rank each when they are many; the same ranks either way."""
    with override_settings(REDIS_URL=own_redis.url):
        rows = [(aid, 1000 + aid, aid % listed_every == 0) for aid in range(1, 61)]
        assert rank_index.rebuild(7, rows) == 60
        listed = [(aid, aid - 1) for aid, _, shown in rows if shown]
        for offset in (0, 1, len(listed) - 3):
            total, count, page = rank_index.listed_page(7, offset, 3)
            assert (total, count) == (60, len(listed))
            assert page == listed[offset : offset + 3]
        # A member whose removal from the day's set failed to reach the listed one: no rank.
        redis.Redis.from_url(own_redis.url).zrem(rank_index.key(7), rank_index.member(listed[0][0]))
        assert rank_index.listed_page(7, 0, 1)[2] == [(listed[0][0], None)]


def test_the_hub_marks_a_newcomer_s_rank_provisional_and_says_why(board):
    today = days.today()
    _, newcomer = someone("Hub Newcomer")
    _, regular = someone("Hub Regular")
    for back in (3, 2, 1):
        play(regular, today - dt.timedelta(days=back), 30)
    closes = services.challenge_for_day(day=today).closes_at
    verified_game(player=newcomer, choose=first_rank, finished=closes - dt.timedelta(hours=3))
    verified_game(player=regular, choose=first_rank, finished=closes - dt.timedelta(hours=2))
    page = hub_of(newcomer)
    # Its true rank, first, marked; and why it is not on the public board.
    assert re.search(r'id="today-rank">1 of 2 <span class="provisional">\(provisional\)</span><', page), page
    # In the board's words: how many days, of how many (not "a few").
    assert 'data-status="provisional"' in page and "once they have played on 3 of the 14 days before" in page
    # The regular's rank is not marked.
    regular_page = hub_of(regular)
    assert re.search(r'id="today-rank">2 of 2<', regular_page) and 'data-status="provisional"' not in regular_page


def hub_of(player) -> str:
    """The home page as the player's browser sees it (signed in)."""
    browser = Client()
    browser.force_login(player.user)
    return browser.get("/").content.decode()


def test_a_new_site_s_day_is_not_an_empty_board(board):
    """Nobody established yet: the day's players are listed apart, best first, and a held
    or disqualified one never."""
    players = [someone(name)[1] for name in ("First Timer", "Second Timer", "Held Timer", "Banned Timer")]
    for minutes, player in zip((90, 60, 45, 30), players, strict=True):
        play(player, DAY, minutes)
    Result.objects.filter(player=players[2]).update(held=True)
    Result.objects.filter(player=players[3]).update(disqualified=True)
    index_built(board, DAY)
    page = api_page(DAY)
    assert page["entries"] == [] and (page["total"], page["listed"]) == (2, 0)
    assert [n["name"] for n in page["newcomers"]] == ["First Timer", "Second Timer"]  # the finish breaks the tie
    html = Client().get(f"/leaderboard/{DAY.isoformat()}/").content.decode()
    assert "Nobody is ranked on this day yet." not in html
    assert re.findall(r'<tr data-name="([^"]+)"', html) == ["First Timer", "Second Timer"]
    assert "Held Timer" not in html and "Banned Timer" not in html
    # Its own: marked as the viewer's row.
    browser = Client()
    browser.force_login(players[1].user)
    own = browser.get(f"/leaderboard/{DAY.isoformat()}/").content.decode()
    assert '<tr data-name="Second Timer" data-score' in own and 'class="me" aria-current="true"' in own
