"""Reads of leagues: a player's leagues, a league's members, its day board and its week's
standings, and where a player stands in each of their leagues on a day.

A league's boards are read from the day's ranking (leaderboard.selectors.ranked_results:
ranked, neither disqualified nor held), in its order and tie rule (RANK_ORDER), so a league
board is the global board with everybody else left out. A member whose result is held or
disqualified is, there as on the global board, not on it: listed with those who have not
played.

Privacy: ``member_league`` is the one door to a league's data; a player who is not a member
gets ``not_found``, as for a league that does not exist.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.conf import settings
from django.db.models import Count, OuterRef, Subquery, Sum

from challenges import days
from challenges.models import DailyChallenge, Player
from challenges.names import shown_name
from challenges.services import DAILY_GAME
from leaderboard import rank_index
from leaderboard import selectors as board
from leaderboard.models import COUNTED, Result

from .models import League, Membership
from .services import LeagueError, not_found

DATE_SHAPE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
WEEK_SHAPE = re.compile(r"^([0-9]{4})-W([0-9]{2})$")


def member_league(*, league_id: int, player: Player | None) -> League:
    """The league if ``player`` is one of its members; for anyone else it does not exist."""
    if player is None:
        raise not_found()
    league = League.objects.select_related("owner").filter(pk=league_id, memberships__player=player).first()
    if league is None:
        raise not_found()
    return league


def _owner(league: League) -> dict[str, Any] | None:
    owner = league.owner
    if owner is None:
        return None
    return {"id": owner.pk, "name": shown_name(owner.name, owner.pk)}


def league_summary(league: League) -> dict[str, Any]:
    """What creating, joining or renaming answers: id, name, members, owner."""
    size = Membership.objects.filter(league=league).count()
    return {"id": league.pk, "name": league.name, "members": size, "owner": _owner(league)}


def player_leagues(player: Player) -> list[dict[str, Any]]:
    """The player's leagues, in the order they joined them: id, name, members, owner."""
    mine = Membership.objects.filter(player=player)
    leagues = (
        League.objects.filter(pk__in=mine.values("league_id"))
        .select_related("owner")
        .annotate(size=Count("memberships"), joined=Subquery(mine.filter(league=OuterRef("pk")).values("joined_at")))
        .order_by("joined", "id")
    )
    return [{"id": lg.pk, "name": lg.name, "members": lg.size, "owner": _owner(lg)} for lg in leagues]


def league_detail(league: League) -> dict[str, Any]:
    """A member's view of the league: its code and its members (oldest first)."""
    members = [
        {"id": pid, "name": shown_name(name, pid), "joined_at": joined.isoformat(), "owner": pid == league.owner_id}
        for pid, name, joined in Membership.objects.filter(league=league)
        .order_by("joined_at", "id")
        .values_list("player_id", "player__name", "joined_at")
    ]
    return {
        "id": league.pk,
        "name": league.name,
        "code": league.code,
        "members": len(members),
        "owner": _owner(league),
        "member_list": members,
    }


# --- days and weeks named in a URL ---------------------------------------------------------


def parse_day(text: str) -> dt.date:
    """``today`` or YYYY-MM-DD, from the first challenge (FIRST_DAY) to today."""
    today = days.today()
    if text == "today":
        return today
    if not DATE_SHAPE.match(text):
        raise LeagueError("bad_date", "dates are YYYY-MM-DD")
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise LeagueError("bad_date", "no such date") from None
    if day < settings.FIRST_DAY or day > today:
        raise LeagueError("not_found", "there is no challenge on that day")
    return day


def week_of(day: dt.date) -> str:
    """The ISO week of a day, as URLs name it: ``2026-W49``."""
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def parse_week(text: str) -> dt.date:
    """The Monday of an ISO week ``YYYY-Www`` (weeks run Monday to Sunday, days in the
    site's timezone), ``current`` for today's; a week that has not begun, or ended before
    the first challenge, is ``not_found``."""
    if text == "current":
        text = week_of(days.today())
    shape = WEEK_SHAPE.match(text)
    if shape is None:
        raise LeagueError("bad_week", "weeks are YYYY-Www (ISO 8601), e.g. 2026-W49")
    try:
        monday = dt.date.fromisocalendar(int(shape[1]), int(shape[2]), 1)
    except ValueError:
        raise LeagueError("bad_week", "this year has no such week") from None
    if monday > days.today() or monday + dt.timedelta(days=6) < settings.FIRST_DAY:
        raise LeagueError("not_found", "there is no challenge in that week")
    return monday


# --- the boards ---------------------------------------------------------------------------------


def _members(league: League) -> dict[int, str]:
    return {
        pid: shown_name(name, pid)
        for pid, name in Membership.objects.filter(league=league).values_list("player_id", "player__name")
    }


def _global_ranks(challenge_id: int, results: list[Result]) -> dict[int, int]:
    """The results' ranks on the day's global board, by attempt id: from the rank index in
    one round trip when it is ready (a board of 200 members asks 200 ranks), by SQL's count
    (leaderboard.selectors.sql_rank) for a result it does not hold yet, as
    ``result_rank`` does for one. ``results`` are counted ones (``ranked_results``)."""
    found = rank_index.ranks_of(challenge_id, [r.attempt_id for r in results if r.indexed])
    ranks: dict[int, int] = {}
    if found is None:
        found = {}
        if rank_index.available():  # not ready: one rank asked as any reader does starts its rebuild
            ranks[results[0].attempt_id] = board.result_rank(results[0]) or board.sql_rank(results[0])
    for r in results:
        if r.attempt_id in ranks:
            continue
        position = found.get(r.attempt_id)
        ranks[r.attempt_id] = position + 1 if position is not None else board.sql_rank(r)
    return ranks


def day_board(league: League, day: dt.date) -> dict[str, Any]:
    """The members' results of the day in the global order, each with its rank in the
    league and on the day's global board; then the members not on it (not played yet,
    or their result does not count), by name."""
    members = _members(league)
    challenge = DailyChallenge.objects.filter(game=DAILY_GAME, date=day).only("pk").first()
    results: list[Result] = []
    if challenge is not None:
        results = list(
            board.ranked_results(challenge.pk)
            .filter(player_id__in=Membership.objects.filter(league=league).values("player_id"))
            .only(
                "attempt_id",
                "player_id",
                "score",
                "asks",
                "finished_at",
                "ranked",
                "disqualified",
                "held",
                "indexed",
                "challenge_id",
            )
            .order_by(*board.RANK_ORDER)
        )
    ranks = _global_ranks(challenge.pk, results) if challenge is not None and results else {}
    entries = [
        {
            "rank": position,
            "player_id": r.player_id,
            "name": members.get(r.player_id, ""),
            "score": r.score,
            "asks": r.asks,
            "global_rank": ranks.get(r.attempt_id),
        }
        for position, r in enumerate(results, start=1)
    ]
    on_board = {r.player_id for r in results}
    waiting = [
        {"player_id": pid, "name": name}
        for pid, name in sorted(members.items(), key=lambda m: (m[1].casefold(), m[0]))
        if pid not in on_board
    ]
    return {"date": day.isoformat(), "entries": entries, "not_played": waiting}


def week_standings(league: League, monday: dt.date) -> dict[str, Any]:
    """The week's standings: points = the sum of each member's counted daily scores of the
    week (a day not played adds nothing), the days played, the asks of those days. Ranked
    by points, then fewer asks; members equal in both share a rank (listed by name)."""
    sunday = monday + dt.timedelta(days=6)
    members = _members(league)
    totals = {
        pid: (points, played, asks)
        for pid, points, played, asks in Result.objects.filter(
            COUNTED,
            challenge__game=DAILY_GAME,
            challenge__date__range=(monday, sunday),
            player_id__in=Membership.objects.filter(league=league).values("player_id"),
        )
        .values("player_id")
        .annotate(points=Sum("score"), played=Count("id"), total_asks=Sum("asks"))
        .values_list("player_id", "points", "played", "total_asks")
    }
    ordered = sorted(
        ((pid, name, *totals.get(pid, (0, 0, 0))) for pid, name in members.items()),
        key=lambda m: (-m[2], m[4], m[1].casefold(), m[0]),
    )
    rows = [
        {"player_id": pid, "name": name, "points": points, "days": played, "asks": asks}
        for pid, name, points, played, asks in ordered
    ]
    entries: list[dict[str, Any]] = []
    for i, row in enumerate(rows):
        tied = i > 0 and (rows[i - 1]["points"], rows[i - 1]["asks"]) == (row["points"], row["asks"])
        entries.append({"rank": entries[-1]["rank"] if tied else i + 1, **row})
    return {"week": week_of(monday), "from": monday.isoformat(), "to": sunday.isoformat(), "entries": entries}


def places(player: Player, day: dt.date) -> list[dict[str, Any]]:
    """Where ``player`` stands in each of their leagues on ``day``: the league, its
    members, how many of them are on its board, and the player's rank there (None: not on
    it). Two queries whatever the number of leagues (at most 20 of 200 members)."""
    leagues = player_leagues(player)
    if not leagues:
        return []
    pairs = list(
        Membership.objects.filter(league_id__in=[lg["id"] for lg in leagues]).values_list("league_id", "player_id")
    )
    keys: dict[int, tuple] = {}
    challenge = DailyChallenge.objects.filter(game=DAILY_GAME, date=day).only("pk").first()
    if challenge is not None:
        keys = {
            pid: (-score, asks, finished, attempt)
            for pid, score, asks, finished, attempt in board.ranked_results(challenge.pk)
            .filter(player_id__in={pid for _, pid in pairs})
            .values_list("player_id", "score", "asks", "finished_at", "attempt_id")
        }
    mine = keys.get(player.pk)
    found = []
    for league in leagues:
        on_board = [keys[pid] for lid, pid in pairs if lid == league["id"] and pid in keys]
        rank = None if mine is None else 1 + sum(1 for key in on_board if key < mine)
        found.append({**league, "rank": rank, "ranked": len(on_board)})
    return found
