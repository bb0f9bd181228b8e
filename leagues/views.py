"""The leagues' pages: mine (create, join), one league (its day board, its week, its
members), and the join link. Boards are rendered here from the selectors the API answers
with; what changes a league (create, join, rename, new code, remove, leave) the page's
script asks of the API."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.shortcuts import render

from challenges import days
from challenges.accounts import normal_code
from challenges.auth import current_player

from . import selectors
from .services import MAX_LEAGUES, MAX_MEMBERS


def _private(response):
    response["Cache-Control"] = "private, no-store"
    return response


def leagues(request):
    player = current_player(request)
    today = days.today()
    return _private(
        render(
            request,
            "leagues/index.html",
            {
                "player": player,
                "today": today,
                "mine": selectors.places(player, today) if player else [],
                "max_leagues": MAX_LEAGUES,
            },
        )
    )


def league(request, league_id: int):
    """404 to anyone but a member (selectors.member_league), like the API."""
    player = current_player(request)
    found = selectors.member_league(league_id=league_id, player=player)
    today = days.today()
    day = selectors.parse_day(request.GET.get("day") or "today")
    monday = selectors.parse_week(request.GET.get("week") or "current")
    detail = selectors.league_detail(found)
    week = selectors.week_standings(found.pk, monday, member=player)
    previous_monday = monday - dt.timedelta(days=7)
    return _private(
        render(
            request,
            "leagues/league.html",
            {
                "player": player,
                "league": detail,
                "is_owner": player is not None and found.owner_id == player.pk,
                "join_path": f"/leagues/join/{found.code}/",
                "today": today,
                "first_day": settings.FIRST_DAY,
                "day": day,
                "board": selectors.day_board(found.pk, day, member=player),
                "previous_day": day - dt.timedelta(days=1) if day > settings.FIRST_DAY else None,
                "next_day": day + dt.timedelta(days=1) if day < today else None,
                "week": week,
                "monday": monday,
                "sunday": monday + dt.timedelta(days=6),
                "previous_week": selectors.week_of(previous_monday)
                if previous_monday + dt.timedelta(days=6) >= settings.FIRST_DAY
                else None,
                "next_week": selectors.week_of(monday + dt.timedelta(days=7))
                if monday + dt.timedelta(days=7) <= today
                else None,
                "max_members": MAX_MEMBERS,
            },
        )
    )


def join(request, code: str):
    """The invite link. Nothing is looked up here (guesses are counted by the API's join,
    per address and per player): the page's script joins, after a visitor without a name
    has chosen one."""
    return _private(
        render(request, "leagues/join.html", {"player": current_player(request), "code": normal_code(code)})
    )
