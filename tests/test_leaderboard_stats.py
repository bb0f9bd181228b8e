"""Where a player stands on a day: `players`, `top_percent`, `streak` and
`best_streak` of `GET /api/leaderboard/<date>/me`, and the streaks of the player page.
Held (flagged, not cleared) and disqualified results count for no one; a deleted
player's results stay ranked (nobody's rank moves) but make no streak."""

from __future__ import annotations

import datetime as dt

import pytest

from challenges import accounts, services
from challenges.models import Player
from leaderboard import selectors
from leaderboard.models import Result
from leaderboard.services import result_disqualify
from tests.conftest import new_player, verified_game

pytestmark = pytest.mark.django_db(transaction=True)

DAY = dt.date(2026, 6, 2)  # a closed day with a fixed deal (the test settings' seed secret)


def clairvoyant(state) -> str:
    """Asks a rank the opponent holds whenever there is one: flagged by the detector."""
    return next((rank for rank in state.hands[0] if rank in state.hands[1]), next(iter(state.hands[0])))


class Someone:
    """A player with an API client: plays days, asks /me."""

    def __init__(self, name: str) -> None:
        self.client = new_player(name)
        self.player = Player.objects.get(pk=self.client.player["id"])

    def play(self, day: dt.date, *, minutes_before_close: int = 60, choose=None):
        closes = services.challenge_for_day(day=day).closes_at
        kwargs = {"choose": choose} if choose else {}
        return verified_game(
            day=day, player=self.player, finished=closes - dt.timedelta(minutes=minutes_before_close), **kwargs
        )

    def me(self, day: dt.date) -> dict:
        response = self.client.get(f"/api/leaderboard/{day.isoformat()}/me")
        assert response.status_code == 200, response.content
        return response.json()


def test_top_percent_is_the_smallest_share_from_the_top_holding_the_rank_rounded_up():
    assert selectors.top_percent(rank=1, players=1000) == 1  # the first of many: the top 1 %
    assert selectors.top_percent(rank=1, players=3) == 34  # 33.33… rounded up: never better than it is
    assert selectors.top_percent(rank=2, players=3) == 67
    assert selectors.top_percent(rank=5, players=40) == 13  # 12.5 rounded up
    assert selectors.top_percent(rank=500, players=1000) == 50
    assert selectors.top_percent(rank=3, players=3) == 100  # the last
    assert selectors.top_percent(rank=1, players=1) == 100  # a lone player: the pages say "first" instead
    assert selectors.top_percent(rank=4, players=3) == 100  # the index a moment ahead of SQL: still a share
    assert selectors.top_percent(rank=None, players=3) is None  # held, disqualified


def test_a_lone_player_on_a_first_day():
    ann = Someone("Ann Solo")
    ann.play(DAY)
    me = ann.me(DAY)
    assert (me["rank"], me["players"], me["top_percent"]) == (1, 1, 100)
    assert (me["streak"], me["best_streak"], me["held"], me["disqualified"]) == (1, 1, False, False)


def test_ties_are_broken_so_each_rank_has_its_own_top_share():
    # The same asks, so the same score and the same number of asks: the finish time decides.
    first, second, third = Someone("Tie One"), Someone("Tie Two"), Someone("Tie Three")
    first.play(DAY, minutes_before_close=90)
    second.play(DAY, minutes_before_close=60)
    third.play(DAY, minutes_before_close=30)
    scores = {r.score for r in Result.objects.all()}
    assert len(scores) == 1  # tied on score (and asks)
    stands = [(m["rank"], m["players"], m["top_percent"]) for m in (p.me(DAY) for p in (first, second, third))]
    assert stands == [(1, 3, 34), (2, 3, 67), (3, 3, 100)]


def test_streaks_through_a_gap():
    days = [DAY - dt.timedelta(days=n) for n in (4, 3, 2)] + [DAY]  # DAY-1 missed
    ann = Someone("Ann Streak")
    for day in days:
        ann.play(day)
    seen = {day: (ann.me(day)["streak"], ann.me(day)["best_streak"]) for day in days}
    assert seen == {
        DAY - dt.timedelta(days=4): (1, 1),  # the first day
        DAY - dt.timedelta(days=3): (2, 2),
        DAY - dt.timedelta(days=2): (3, 3),
        DAY: (1, 3),  # after the gap: a new run; the best so far stays
    }
    # The player page's view on the next day: today's game may still be ahead, so a run
    # that ended yesterday is the current one; without `ongoing`, today has none.
    after = DAY + dt.timedelta(days=1)
    ongoing = selectors.player_streaks(player_id=ann.player.pk, game="peche", day=after, ongoing=True)
    assert (ongoing.streak, ongoing.best_streak) == (1, 3)
    assert selectors.player_streaks(player_id=ann.player.pk, game="peche", day=after).streak == 0
    two_days_later = selectors.player_streaks(player_id=ann.player.pk, game="peche", day=after + dt.timedelta(days=1))
    assert (two_days_later.streak, two_days_later.best_streak) == (0, 3)


def test_disqualified_and_held_results_count_for_no_one():
    day_before = DAY - dt.timedelta(days=1)
    honest, cheat = Someone("Honest Hal"), Someone("Peeking Pia")
    honest.play(day_before)
    honest.play(DAY, minutes_before_close=30)
    cheat.play(day_before, minutes_before_close=90)
    cheat.play(DAY, minutes_before_close=90, choose=clairvoyant)

    # Pia's game of DAY is flagged at verification, so held: it counts for no one. It tips
    # her week too: her game of the day before is held with it (no streak left).
    held = Result.objects.get(player=cheat.player, challenge__date=DAY)
    assert held.flagged and held.held
    assert Result.objects.get(player=cheat.player, challenge__date=day_before).held
    mine = cheat.me(DAY)
    assert mine["held"] and mine["rank"] is None and mine["top_percent"] is None
    assert mine["score"] == held.score  # the provisional score
    assert (mine["players"], mine["streak"], mine["best_streak"]) == (1, 0, 0)
    hal = honest.me(DAY)
    assert (hal["rank"], hal["players"], hal["top_percent"], hal["streak"], hal["best_streak"]) == (1, 1, 100, 2, 2)

    # Pia's game of the day before, disqualified from its hold: off too.
    before = Result.objects.get(player=cheat.player, challenge__date=day_before)
    result_disqualify(result_id=before.pk, reason="shared an account")
    gone = cheat.me(day_before)
    assert gone["disqualified"] and gone["reason"] == "shared an account" and gone["rank"] is None
    assert (gone["players"], gone["top_percent"], gone["streak"], gone["best_streak"]) == (1, None, 0, 0)
    assert honest.me(day_before)["players"] == 1
    assert honest.me(day_before)["top_percent"] == 100
    assert selectors.player_streaks(player_id=cheat.player.pk, game="peche", day=DAY).best_streak == 0


def test_a_deleted_players_results_stay_ranked_but_make_no_streak():
    stays, leaves = Someone("Stays Sam"), Someone("Leaves Lou")
    stays.play(DAY, minutes_before_close=30)
    for n in (2, 1, 0):
        leaves.play(DAY - dt.timedelta(days=n), minutes_before_close=90)
    assert selectors.player_streaks(player_id=leaves.player.pk, game="peche", day=DAY).streak == 3

    accounts.player_delete(player=leaves.player)

    # Lou finished first: still ranked above Sam, so Sam's rank and top share do not move.
    sam = stays.me(DAY)
    assert (sam["rank"], sam["players"], sam["top_percent"]) == (2, 2, 100)
    lou = selectors.player_streaks(player_id=leaves.player.pk, game="peche", day=DAY)
    assert (lou.streak, lou.best_streak) == (0, 0)
    lou_result = Result.objects.select_related("challenge").get(player=leaves.player, challenge__date=DAY)
    assert selectors.standing(lou_result)["top_percent"] == 50


def test_the_player_page_shows_the_streaks_of_the_selector(client):
    from challenges import days

    today = days.today()
    ann = Someone("Ann Page")
    for n in (3, 2, 1):  # up to yesterday: today's game is still ahead
        ann.play(today - dt.timedelta(days=n))
    page = client.get(f"/players/{ann.player.pk}/")
    assert page.status_code == 200
    assert (page.context["current_streak"], page.context["longest_streak"]) == (3, 3)
