"""Reads of leagues: a player's leagues, a league's members, its day board and its week's
standings, and where a player stands in each of their leagues on a day.

A league's boards are read from the day's ranking (leaderboard.selectors.ranked_results:
ranked, neither disqualified nor held), in its order and tie rule (RANK_ORDER), so a league
board is the global board with everybody else left out. A member whose result is held or
disqualified is, there as on the global board, not on it: listed with those who have not
played.

Privacy: ``member_league`` is the door to a league's data, and the boards (``day_board``,
``week_standings``) check the caller's membership in their own query (_MEMBER_GATE); a
player who is not a member gets ``not_found``, as for a league that does not exist.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count, OuterRef, Q, Subquery

from challenges import days
from challenges.days import DATE_SHAPE
from challenges.models import DAILY_GAME, DailyChallenge, Player
from challenges.names import shown_name
from config.db import prepared_rows
from leaderboard import rank_index
from leaderboard import selectors as board
from leaderboard.models import Result

from .errors import LeagueError, not_found
from .hints import board_hints
from .models import League, Membership

WEEK_SHAPE = re.compile(r"^([0-9]{4})-W([0-9]{2})$")


def member_league(*, league_id: int, player: Player | None) -> League:
    """The league if ``player`` is one of its members; for anyone else it does not exist."""
    if player is None:
        raise not_found()
    league = League.objects.select_related("owner").filter(pk=league_id, memberships__player=player).first()
    if league is None:
        raise not_found()
    return league


_MEMBER_SQL = f"SELECT 1 FROM {Membership._meta.db_table} WHERE league_id = %s AND player_id = %s"


def member_league_id(*, league_id: int, player: Player | None) -> int:
    """``league_id`` if ``player`` is one of its members; for anyone else it does not exist.
    member_league's check without reading the league, in one plain query: for a board's
    request whose date or week is refused before the board's own gated query runs."""
    if player is None:
        raise not_found()
    if not _rows(_MEMBER_SQL, [league_id, player.pk]):
        raise not_found()
    return league_id


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


def _global_ranks(
    challenge_id: int, played: list[tuple], asked: dict[int, int | None] | None
) -> tuple[dict[int, int], bool]:
    """The ranks on the day's global board of counted results (rows of ``_DAY_SQL``), by
    attempt id: from the rank index when it is ready, else counted in SQL (``_sql_ranks``)
    for any result the index does not hold; and whether the index was ready.

    ``asked``: the index's answer to the question asked ahead of the query (leagues/hints.py). It is
    the answer when it covers every result the index holds (``indexed``); else every rank
    is asked again, after the query, in one question: ranks read at two moments could give
    a member who played since the last read and the one they passed the same rank."""
    indexed = [row[2] for row in played if row[5]]
    if asked is None or any(aid not in asked for aid in indexed):
        found = rank_index.ranks_of(challenge_id, indexed)
    else:
        found = asked
    ready = found is not None or asked is not None
    ranks = {aid: p + 1 for aid in indexed if found is not None and (p := found.get(aid)) is not None}
    missing = [row[2:5] for row in played if row[2] not in ranks]
    if not missing:
        return ranks, ready
    # The finish breaks ties: read only for the ranks SQL counts (parsing 200 timestamps
    # cost the board more than its query).
    finished = dict(
        Result.objects.filter(attempt_id__in=[m[0] for m in missing]).values_list("attempt_id", "finished_at")
    )
    sql = _sql_ranks(challenge_id, [(aid, score, asks, finished[aid]) for aid, score, asks in missing])
    return {**ranks, **sql}, ready


def _sql_ranks(challenge_id: int, rows: list[tuple[int, int, int, dt.datetime]]) -> dict[int, int]:
    """Ranks counted in SQL without the rank index, in RANK_ORDER: the day's counted results
    by (score, asks) in one grouped query, then for each member only the results of their
    own (score, asks) ahead of them (an earlier finish, then a lower attempt id: a range of
    the ranking's index). One count per member over all the results ahead, as sql_rank
    does for one, would read up to the whole day 200 times."""
    groups = dict(
        ((score, asks), n)
        for score, asks, n in board.ranked_results(challenge_id)
        .order_by()
        .values_list("score", "asks")
        .annotate(n=Count("id"))
    )
    ahead_of_group: dict[tuple[int, int], int] = {}
    total = 0
    for group in sorted(groups, key=lambda g: (-g[0], g[1])):
        ahead_of_group[group] = total
        total += groups[group]
    ranks = {}
    for aid, score, asks, finished in rows:
        tied_ahead = (
            board.ranked_results(challenge_id)
            .filter(score=score, asks=asks)
            .filter(Q(finished_at__lt=finished) | Q(finished_at=finished, attempt_id__lt=aid))
            .count()
        )
        ranks[aid] = ahead_of_group.get((score, asks), 0) + tied_ahead + 1
    return ranks


# A league's boards read each member's counted results (leaderboard.models.COUNTED: ranked,
# neither disqualified nor held) with the members and their names, in one plain query each:
# a board answers in a few milliseconds on a day of a million results (bench.leagues_scale),
# and building the ORM's query and 200 model instances cost more than Postgres' answer.
#
# The members and their names are one range of the index ``membership_board`` (the league,
# then each member's id and name: migration 0004, whose triggers keep the membership's copy
# of the player's name, on Postgres); each member's results one short range of the index ``result_member_days``
# (player, day: migration 0002). Postgres reads them member by member because the query says so
# (LATERAL): joined plainly, it could not know how many results the day has (the day's id
# is a subquery's, and days differ a thousandfold) and with a year of history it chose to
# hash the whole day, a million rows (3.5 s). SQLite, the tests' database, has no LATERAL
# and always reads a joined table row by row through an index: the same conditions,
# joined plainly.
_COUNTED_SQL = "r.ranked AND NOT r.disqualified AND NOT r.held"
_THE_DAY = f"(SELECT c.id FROM {DailyChallenge._meta.db_table} c WHERE c.game = %s AND c.date = %s)"
# The members' names: on Postgres the membership's copy (migration 0004), elsewhere the
# players' table.
_DAY_SELECT = {
    "postgresql": f"""
SELECT m.player_id, m.name, r.attempt_id, r.score, r.asks, r.indexed, r.challenge_id
FROM {Membership._meta.db_table} m
""",
    "other": f"""
SELECT m.player_id, p.name, r.attempt_id, r.score, r.asks, r.indexed, r.challenge_id
FROM {Membership._meta.db_table} m
JOIN {Player._meta.db_table} p ON p.id = m.player_id
""",
}
# The caller's membership is the boards' own condition (_MEMBER_GATE): one round trip, not
# a check and then the board (a millisecond of a board's request in bench.leagues_scale).
# Postgres runs the uncorrelated EXISTS once, before anything else (a one-time filter): for
# a stranger no member is read, whether the league exists or not, so that its answer's time
# tells no more than its 404.
_MEMBER_GATE = f"EXISTS (SELECT 1 FROM {Membership._meta.db_table} g WHERE g.league_id = %s AND g.player_id = %s)"
_DAY_ORDER = f"""
WHERE m.league_id = %s AND {_MEMBER_GATE}
ORDER BY r.score DESC, r.asks, r.finished_at, r.attempt_id
"""
_DAY_SQL = {
    "postgresql": f"""{_DAY_SELECT["postgresql"]}
LEFT JOIN LATERAL (
    SELECT r.attempt_id, r.score, r.asks, r.indexed, r.challenge_id, r.finished_at
    FROM {Result._meta.db_table} r
    WHERE r.player_id = m.player_id AND {_COUNTED_SQL} AND r.challenge_id = {_THE_DAY}
    LIMIT 1  -- one ranked game a day; and the subquery stays apart from the join
) r ON TRUE{_DAY_ORDER}""",
    "other": f"""{_DAY_SELECT["other"]}
LEFT JOIN {Result._meta.db_table} r
    ON r.player_id = m.player_id AND {_COUNTED_SQL} AND r.challenge_id = {_THE_DAY}{_DAY_ORDER}""",
}
# The week's days are read in the query itself (one round trip). Postgres reads each
# member's results over the range of ids the week's days span and keeps those of its days:
# "challenge_id + 0" keeps that test out of the index scan, where Postgres 15 would descend
# the index once per day (7 x 200 descents instead of 200).
_WEEK_SQL = {
    "postgresql": f"""
WITH week AS MATERIALIZED (
    SELECT array_agg(c.id) AS ids, min(c.id) AS lo, max(c.id) AS hi
    FROM {DailyChallenge._meta.db_table} c WHERE c.game = %s AND c.date BETWEEN %s AND %s
)
SELECT m.player_id, m.name, w.points, w.played, w.asks
FROM week, {Membership._meta.db_table} m
CROSS JOIN LATERAL (
    SELECT COALESCE(SUM(r.score), 0) AS points, COUNT(*) AS played, COALESCE(SUM(r.asks), 0) AS asks
    FROM {Result._meta.db_table} r
    WHERE r.player_id = m.player_id AND {_COUNTED_SQL}
      AND r.challenge_id BETWEEN week.lo AND week.hi AND (r.challenge_id + 0) = ANY(week.ids)
) w
WHERE m.league_id = %s AND {_MEMBER_GATE}
""",
    "other": f"""
SELECT m.player_id, p.name, COALESCE(SUM(r.score), 0), COUNT(r.attempt_id), COALESCE(SUM(r.asks), 0)
FROM {Membership._meta.db_table} m
JOIN {Player._meta.db_table} p ON p.id = m.player_id
LEFT JOIN {Result._meta.db_table} r ON r.player_id = m.player_id AND {_COUNTED_SQL} AND r.challenge_id IN (
    SELECT c.id FROM {DailyChallenge._meta.db_table} c WHERE c.game = %s AND c.date BETWEEN %s AND %s)
WHERE m.league_id = %s AND {_MEMBER_GATE}
GROUP BY m.player_id, p.name
""",
}


def _sql(texts: dict[str, str]) -> str:
    return texts.get(connection.vendor, texts["other"])


def _gated_rows(sql: dict[str, str], params: list, member: Player | None, league_id: int) -> list[tuple]:
    """A board's rows, the query's last parameters being its membership gate; none (a
    league has at least one member): not_found."""
    rows = _rows(sql, [*params, league_id, member.pk]) if member is not None else []
    if not rows:
        raise not_found()
    return rows


def _rows(sql: str | dict[str, str], params: list) -> list[tuple]:
    """The rows of a board's query (or of the member check), in one round trip, prepared
    on Postgres (config/db.py ``prepared_rows``: a generic plan kept, where planning was a
    quarter of a board's Postgres time). The plans are the ones of the queries above
    either way: the day's id and the week's ids are the queries' own. The boards read no
    timestamp."""
    return prepared_rows(_sql(sql) if isinstance(sql, dict) else sql, params)


def _by_name(member: tuple) -> tuple:
    return (member[1].casefold(), member[0])


def day_board(league_id: int, day: dt.date, *, member: Player | None) -> dict[str, Any]:
    """The members' results of the day in the global order (RANK_ORDER: score desc, fewer
    asks, earlier finish, then the attempt), each with its rank in the league and on the
    day's global board; then the members not on it (not played yet, or their result does
    not count), by name. Read for ``member``: for anyone else the league does not exist."""
    asking = board_hints.ask(league_id, day, member)
    with asking or contextlib.nullcontext():
        try:
            rows = _gated_rows(_DAY_SQL, [DAILY_GAME, day, league_id], member, league_id)
        except LeagueError:
            if asking is not None:  # a member no more: the hint goes, and asks nothing ahead for them again
                board_hints.forget(league_id, day)
            raise
        asked = asking.answer() if asking is not None else None
    # In RANK_ORDER (the members who have no result that day come first or last, by the
    # database's place for NULL: they are listed apart).
    played = [row for row in rows if row[2] is not None]
    board_hints.keep(league_id, day, rows, played, asking)
    if asking is not None and played and asking.challenge_id != played[0][6]:
        asked = None  # another day's index (tests' databases come and go): not this board's
    ranks, indexed = _global_ranks(played[0][6], played, asked) if played else ({}, True)
    entries = [
        {
            "rank": position,
            "player_id": pid,
            "name": shown_name(name, pid),
            "score": score,
            "asks": asks,
            "global_rank": ranks[aid],
        }
        for position, (pid, name, aid, score, asks, *_) in enumerate(played, start=1)
    ]
    waiting = [
        {"player_id": pid, "name": shown_name(name, pid)}
        for pid, name, *_ in sorted((row for row in rows if row[2] is None), key=_by_name)
    ]
    # ``indexed`` False: the global ranks were counted in SQL (the day's rank index is not
    # built: the beat builds it, leaderboard.services.rank_indexes_kept).
    return {"date": day.isoformat(), "entries": entries, "not_played": waiting, "indexed": indexed}


def week_standings(league_id: int, monday: dt.date, *, member: Player | None) -> dict[str, Any]:
    """The week's standings: points = the sum of each member's counted daily scores of the
    week (a day not played adds nothing), the days played, the asks of those days. Ranked
    by points, then fewer asks; members equal in both share a rank (listed by name). Read
    for ``member``: for anyone else the league does not exist."""
    sunday = monday + dt.timedelta(days=6)
    # Sorted once by a key made once per member (what _by_name orders by after points and
    # asks): the sort was a third of the selector's time with a key function.
    keyed = []
    rows = _gated_rows(_WEEK_SQL, [DAILY_GAME, monday, sunday, league_id], member, league_id)
    for pid, name, points, played, asks in rows:
        shown = shown_name(name, pid)
        keyed.append((-int(points), int(asks), shown.casefold(), pid, shown, played))
    keyed.sort()
    entries: list[dict[str, Any]] = []
    rank, last = 0, None
    for i, (minus_points, asks, _, pid, name, played) in enumerate(keyed, start=1):
        if (minus_points, asks) != last:
            rank, last = i, (minus_points, asks)
        entries.append(
            {"rank": rank, "player_id": pid, "name": name, "points": -minus_points, "days": played, "asks": asks}
        )
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
