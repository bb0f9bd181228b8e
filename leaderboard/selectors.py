"""Reads of the leaderboard: the rank index when it is ready, SQL otherwise. Reads only:
a day whose index is not ready is built by the beat (services.rank_indexes_kept),
never by a reader."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.db import connection
from django.db.models import Count, Q

from challenges import days
from challenges.models import Attempt, Player
from challenges.names import shown_name
from games.analysis.game import VERSION as ANALYSIS_VERSION

from . import linking, rank_index, spoke
from .models import COUNTED, Result

RANK_ORDER = ("-score", "asks", "finished_at", "attempt_id")


def ranked_results(challenge_id: int):
    """The day's ranking: what its rank index holds (services.counts says the same of one
    result). Disqualified and held (flagged, not cleared yet) results count for no one."""
    return Result.objects.filter(COUNTED, challenge_id=challenge_id)


ENTRY_FIELDS = (
    "attempt_id",
    "player__name",
    "player_id",
    "score",
    "asks",
    "player_pairs",
    "opponent_pairs",
    "finished_at",
    "disqualified",
    "held",
)
ENTRY_KEYS = ("attempt_id", "name", *ENTRY_FIELDS[2:])


def _entry(row: tuple, rank: int) -> dict:
    entry = {"rank": rank, **dict(zip(ENTRY_KEYS, row))}
    entry["name"] = shown_name(entry["name"], entry["player_id"])  # a deleted account's label
    return entry


def _rows_by_attempt(attempt_ids: list[int]) -> dict[int, tuple]:
    """The page's rows in one plain query: this is the site's hottest read, and the ORM's
    query building cost more than Postgres' answer."""
    if not attempt_ids:
        return {}
    marks = ", ".join(["%s"] * len(attempt_ids))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT r.attempt_id, p.name, r.player_id, r.score, r.asks, r.player_pairs, r.opponent_pairs, "
            f"r.finished_at, r.disqualified, r.held FROM {Result._meta.db_table} r "
            f"JOIN {Player._meta.db_table} p ON p.id = r.player_id WHERE r.attempt_id IN ({marks})",
            attempt_ids,
        )
        return {row[0]: row for row in cursor.fetchall()}


def leaderboard_page(*, challenge_id: int | None, offset: int, limit: int) -> dict:
    """A page of the day's public list: the ranking without provisional results (their
    players not established yet, services.provisional_of), each entry with its rank among
    everybody (a provisional result ahead leaves a gap: nobody's rank reads better than it
    is). ``total``: how many rank; ``listed``: how many the list holds (its pages);
    ``indexed``: whether the rank index answered (False: SQL did; the caller may ask for
    the index to be rebuilt)."""
    if challenge_id is None:  # a day nobody opened (challenges.selectors.challenge_read)
        return {"total": 0, "listed": 0, "entries": [], "indexed": True}
    found = rank_index.listed_page(challenge_id, offset, limit)
    if found is not None:
        total, listed, ranked = found
        rows = _rows_by_attempt([aid for aid, _ in ranked])
        # A member whose removal failed (Redis down then) is skipped until the next rebuild.
        entries = [
            _entry(rows[aid], position + 1)
            for aid, position in ranked
            if aid in rows and position is not None and not (rows[aid][-2] or rows[aid][-1])
        ]
        return {"total": total, "listed": listed, "entries": entries, "indexed": True}
    counted = ranked_results(challenge_id)
    listed_rows = counted.filter(provisional=False).order_by(*RANK_ORDER)
    page_rows: list[tuple] = list(listed_rows.values_list(*ENTRY_FIELDS)[offset : offset + limit])
    entries = []
    if page_rows:
        first, last = _keys(page_rows[0]), _keys(page_rows[-1])
        # The provisional results between the page's first and last: the gaps in its ranks.
        between = sorted(
            (-score, asks, finished_at, attempt_id)
            for score, asks, finished_at, attempt_id in counted.filter(provisional=True)
            .filter(_ranked("ahead", *last), _ranked("behind", *first))
            .values_list("score", "asks", "finished_at", "attempt_id")
        )
        rank, gaps = _sql_rank_of(challenge_id, *first), 0
        for i, row in enumerate(page_rows):
            score, asks, finished_at, attempt_id = _keys(row)
            while gaps < len(between) and between[gaps] < (-score, asks, finished_at, attempt_id):
                gaps += 1
            entries.append(_entry(row, rank + i + gaps))
    return {"total": counted.count(), "listed": listed_rows.count(), "entries": entries, "indexed": False}


# How many of a day's newcomers the board names (the best of them): a new site's day has a
# handful, a busy day may have thousands, and the count of all is the board's total − listed.
NEWCOMERS_SHOWN = 50


def day_newcomers(*, challenge_id: int | None, limit: int = NEWCOMERS_SHOWN) -> list[dict]:
    """The day's newcomers (provisional results: ranked, not listed yet), best first, for
    the board's "New players today", apart from the ranks and unnumbered: so that a day
    people played is never an empty board (a new site's first days have nobody
    established). Held and disqualified results never (COUNTED), as on the list."""
    if challenge_id is None:
        return []
    rows = ranked_results(challenge_id).filter(provisional=True).order_by(*RANK_ORDER).values_list(*ENTRY_FIELDS)
    newcomers = []
    for row in rows[:limit]:
        entry = dict(zip(ENTRY_KEYS, row))
        entry["name"] = shown_name(entry["name"], entry["player_id"])
        newcomers.append(entry)
    return newcomers


def _keys(row: tuple) -> tuple:
    """An ENTRY_FIELDS row's ranking keys, in _ranked's order (score, asks, finished_at, attempt)."""
    return row[3], row[4], row[7], row[0]


def _ranked(side: str, score: int, asks: int, finished_at, attempt_id: int) -> Q:
    """The results ranked ``side`` ("ahead" or "behind") of one with these keys, in
    RANK_ORDER (score desc, then asks, finished_at, attempt_id asc): one definition for
    counting a rank and for reading the ranking in keyset batches."""
    more, less = ("gt", "lt") if side == "ahead" else ("lt", "gt")
    return (
        Q(**{f"score__{more}": score})
        | Q(score=score, **{f"asks__{less}": asks})
        | Q(score=score, asks=asks, **{f"finished_at__{less}": finished_at})
        | Q(score=score, asks=asks, finished_at=finished_at, **{f"attempt_id__{less}": attempt_id})
    )


def sql_rank(result: Result) -> int:
    """1-based rank by counting the results ranked ahead (uses the ranking index)."""
    return _sql_rank_of(result.challenge_id, result.score, result.asks, result.finished_at, result.attempt_id)


def _sql_rank_of(challenge_id: int, score: int, asks: int, finished_at, attempt_id: int) -> int:
    return ranked_results(challenge_id).filter(_ranked("ahead", score, asks, finished_at, attempt_id)).count() + 1


def result_rank(result: Result, *, index_ready: bool | None = None) -> int | None:
    """None when the result does not rank: practice, disqualified or held. ``index_ready``:
    whether the day's rank index is ready, if the caller knows (else it is asked)."""
    if not result.ranked or result.disqualified or result.held:
        return None
    if result.indexed and _ready(result.challenge_id, index_ready):
        position = rank_index.rank_of(result.challenge_id, result.attempt_id)
        if position is not None:
            return position + 1
    return sql_rank(result)


# --- a player's standing: of how many, better than whom, streaks ----------------------


def _ready(challenge_id: int, known: bool | None) -> bool:
    return rank_index.is_ready(challenge_id) if known is None else known


def day_players(challenge_id: int, *, index_ready: bool | None = None) -> int:
    """How many players rank that day (each ranks once: one ranked game a day): the rank
    index's size once it is ready, as the leaderboard's ``total``; SQL's count otherwise.
    Held and disqualified results count for no one; a deleted player's stay (their rows
    stay on the leaderboard, so nobody's rank moves)."""
    if _ready(challenge_id, index_ready):
        size = rank_index.size(challenge_id)
        if size is not None:
            return size
    return ranked_results(challenge_id).count()


def top_percent(*, rank: int | None, players: int) -> int | None:
    """The smallest whole share of the day's ranked players, from the top, that holds
    ``rank``: ``ceil(100 × rank / players)``, 1 to 100, rounded up (it never says better
    than it is). The first of 1000 is in the top 1 %, the 5th of 40 in the top 13 %, the
    last in the top 100 %. The pages say "first" rather than a share of rank 1 (the top
    100 % of a lone player would undersell a win). Ranks are strict (ties are broken by
    asks, then finish time). None when there is no rank (held, disqualified, practice)."""
    if rank is None or players <= 0:
        return None
    return max(1, min(100, -(-100 * rank // players)))  # the index and SQL may disagree for a moment


def percentile(*, rank: int | None, players: int) -> float | None:
    """The share of the day's ranked players ranked strictly below ``rank``, in percent
    with one decimal, rounded down (it never says better than it is):
    ``floor(1000 × (players − rank) / players) / 10``. The API's original field, kept for
    the clients that read it beside ``top_percent`` (the share from the top that holds the
    rank, which the pages say): for the same rank the two add up to about 100 (the first of
    3 is 66.6 here and in the top 34 %). A lone player, or the last, is 0. None when there
    is no rank (held, disqualified, practice)."""
    if rank is None or players <= 0:
        return None
    below = max(0, players - rank)  # the index and SQL may disagree for a moment
    return (1000 * below // players) / 10


@dataclass(frozen=True)
class Streaks:
    streak: int  # consecutive days with a counted result, ending with the day (0: none that day)
    best_streak: int  # the longest such run up to and including the day


def counted_days(*, player_id: int, game: str, through: dt.date) -> list[dt.date]:
    """The days up to ``through`` on which the player has a result that counts: ranked,
    neither disqualified nor held. A deleted player's results count for no one here (they
    have no streak), though they stay on the days' leaderboards."""
    return sorted(
        set(
            Result.objects.filter(
                COUNTED,
                player_id=player_id,
                player__deleted_at__isnull=True,
                challenge__game=game,
                challenge__date__lte=through,
            ).values_list("challenge__date", flat=True)
        )
    )


def player_streaks(*, player_id: int, game: str, day: dt.date, ongoing: bool = False) -> Streaks:
    """The player's streaks as of ``day``. With ``ongoing`` (``day`` is today and its game
    may still be ahead), a run that ended the day before is still the current one."""
    played = counted_days(player_id=player_id, game=game, through=day)
    best = run = 0
    previous: dt.date | None = None
    for date in played:
        run = run + 1 if previous is not None and date - previous == dt.timedelta(days=1) else 1
        best = max(best, run)
        previous = date
    last = day if not ongoing or day in played else day - dt.timedelta(days=1)
    current = run if previous == last else 0
    return Streaks(streak=current, best_streak=best)


def standing(result: Result, *, index_ready: bool | None = None) -> dict[str, Any]:
    """What ``/api/leaderboard/<date>/me`` says of a result beside its row: rank, of how
    many players, the top share it is in, the streaks, and whether it is held or disqualified
    (with the reviewer's reason). ``index_ready``: as for ``result_rank`` (asked here once
    otherwise, for both the rank and the count)."""
    if index_ready is None and result.indexed:
        index_ready = rank_index.is_ready(result.challenge_id)
    rank = result_rank(result, index_ready=index_ready)
    players = day_players(result.challenge_id, index_ready=index_ready)
    streaks = player_streaks(player_id=result.player_id, game=result.challenge.game, day=result.challenge.date)
    return {
        "rank": rank,
        "players": players,
        "top_percent": top_percent(rank=rank, players=players),
        "percentile": percentile(rank=rank, players=players),
        "streak": streaks.streak,
        "best_streak": streaks.best_streak,
        "held": result.held,
        "disqualified": result.disqualified,
        "reason": result.review_reason if result.disqualified else None,
        # Ranked, and its rank is true, but not on the public list: a newcomer's.
        "provisional": result.provisional,
    }


def player_days(
    *, player_id: int, game: str, accuracy: bool, now: dt.datetime, private: bool = False
) -> list[dict[str, Any]]:
    """A player's page: each day they ranked, newest first, with its result and rank (None
    when disqualified or held), its replay once the day's deal is public and, with
    ``accuracy`` (the player's own page), the game's accuracy once analysed (after the
    close: challenges.analysis_jobs.analysis_wanted; None until then).

    Held means private: a held result is listed only with ``private`` (its own player, who
    sees it under review, or a reviewer), today's included; and a provisional result's rank,
    which the public list leaves out, is shown only there too."""
    rows: list[dict[str, Any]] = []
    results = Result.objects.filter(player_id=player_id, ranked=True, challenge__game=game)
    if not private:
        results = results.filter(held=False)
    for r in results.select_related("challenge", "attempt", "attempt__analysis").order_by("-challenge__date"):
        revealed = r.challenge.is_revealed(now)
        try:
            analysis = r.attempt.analysis if accuracy and revealed else None
        except ObjectDoesNotExist:
            analysis = None
        rows.append(
            {
                "date": r.challenge.date,
                "score": r.score,
                "player_pairs": r.player_pairs,
                "opponent_pairs": r.opponent_pairs,
                "asks": r.asks,
                "disqualified": r.disqualified,
                "held": r.held,
                "rank": result_rank(r) if private or not r.provisional else None,  # None when disqualified or held
                "provisional": r.provisional,
                "replay": r.attempt_id if revealed else None,
                "accuracy": analysis.accuracy
                if analysis is not None and analysis.version == ANALYSIS_VERSION
                else None,
                "analysable": accuracy and revealed and not r.disqualified,
            }
        )
    return rows


TREND_DAYS = 7  # the trend compares the last week's mean accuracy with the week's before


def accuracy_trend(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The accuracy per day of ``player_days`` (newest first) as a trend: the days oldest
    first with their accuracy (for the chart), the mean of the last TREND_DAYS analysed
    games and of the TREND_DAYS before them; None with fewer than two analysed games."""
    days = [(r["date"], r["accuracy"]) for r in reversed(rows) if r["accuracy"] is not None]
    if len(days) < 2:
        return None
    recent = [a for _, a in days[-TREND_DAYS:]]
    before = [a for _, a in days[-2 * TREND_DAYS : -TREND_DAYS]]
    return {
        "days": days[-30:],
        "recent": sum(recent) / len(recent),
        "before": sum(before) / len(before) if before else None,
    }


def day_settled(*, challenge, now: dt.datetime) -> bool:
    """The day's ranking is complete: its seed is revealed (no ranked game of it changes any
    more) and none of its ranked attempts is still being verified (the attempt's status,
    ``attempt_status_enqueued`` index). Only a reviewer's decision changes it now."""
    return challenge.is_revealed(now) and not (
        Attempt.objects.filter(status=Attempt.Status.VERIFYING, challenge_id=challenge.pk, ranked=True).exists()
    )


def player_result(*, challenge_id: int, player_id: int) -> Result | None:
    return (
        Result.objects.select_related("player", "challenge")
        .filter(challenge_id=challenge_id, player_id=player_id, ranked=True)
        .first()
    )


def score_histogram(*, challenge_id: int) -> list[dict]:
    return list(ranked_results(challenge_id).values("score").annotate(count=Count("id")).order_by("score"))


# --- fair play ---------------------------------------------------------------------

WEEK = 7  # the days the week rule looks over (services.week_assess), the game's own included


def week_window(result: Result):
    """The player's ranked results of the week ending on ``result``'s day (it included)."""
    day = result.challenge.date
    return Result.objects.filter(
        player_id=result.player_id,
        ranked=True,
        challenge__game=result.challenge.game,
        challenge__date__range=(day - dt.timedelta(days=WEEK - 1), day),
    )


def week_members(result: Result) -> list[int]:
    """The attempts of ``result``'s flagged week as a reviewer decides it: the player's
    results of the 7 days ending on its day that the week rule marked, in date order."""
    marked = week_window(result).filter(week_flagged=True).order_by("challenge__date", "attempt_id")
    return list(marked.values_list("attempt_id", flat=True))


def history_tallies(result: Result) -> dict[str, dict[str, float]]:
    """The counts behind a stored history's figure (what its words say: spoke.channel_words),
    added up from its games' stored evidence when a reviewer looks: verification reads only
    their profiles (services._player_games). One query over the history's days."""
    first = (result.history_evidence or {}).get("first")
    if not first:
        return {}
    rows = Result.objects.filter(
        player_id=result.player_id,
        ranked=True,
        challenge__game=result.challenge.game,
        challenge__date__range=(dt.date.fromisoformat(first), result.challenge.date),
    ).values_list("evidence__tallies", flat=True)
    return spoke.tallies_sum(rows)


def spoken(result: Result, *, history_tallies_read: bool = True) -> dict[str, list[str]]:
    """Which channels carry the result's figures, in words (spoke.channel_words): for the
    game, its week and its history (the history's counts read with ``history_tallies_read``,
    one query; without it, the words name the channels alone)."""
    history = dict(result.history_evidence or {})
    if history and history_tallies_read and "tallies" not in history:
        history["tallies"] = history_tallies(result)
    return {
        "game": spoke.figure_words(result.evidence),
        "week": spoke.figure_words(result.week_evidence),
        "history": spoke.figure_words(history),
    }


def _queue_order(row: dict) -> tuple:
    return (
        not (row["flagged"] or row["linked_accounts"]),
        not (row["week_flagged"] or row["history_flagged"]),
        -row["suspicion"],
        row["attempt"],
    )


def review_queue(*, challenge, limit: int | None = None) -> list[dict]:
    """The day's ranked results for reviewers, most suspicious first: each game's own
    figure, the player's figure over the week up to that day (an occasional cheater shows
    over several games where one proves nothing), and the other players of the day who
    started from the same address or the same browser (throwaway players mapping the
    deal for one who then plays it knowing the cards).

    Linked accounts (linking.py) come as groups: the rows of a group follow each other, the
    group placed by its most suspicious member; each row names its ``group`` (None alone),
    the ``ties`` that put it there and its ``reasons`` (``suspicion``: the game is
    flagged; ``week``: the week is; ``history``: the player's history is;
    ``linked_accounts``), and in ``spoke`` which channels carry the game's, the week's and
    the history's figures, in words (``spoken``). A group's first row carries
    ``group_head`` (its members, including unfinished games, for one decision on all)."""
    rows_read = Result.objects.filter(challenge=challenge, ranked=True).select_related("player", "attempt")
    results = list(rows_read.order_by("-linked_accounts", "-suspicion", "attempt_id")[:limit])
    if not results:
        return []
    groups = linking.day_groups(challenge.pk)
    # A flagged group is shown whole, however low its other members' figures.
    shown = {r.attempt_id for r in results}
    missing = {
        pk for r in results if r.linked_accounts and r.attempt_id in groups for pk in groups[r.attempt_id].attempts
    }
    if missing - shown:
        results += list(rows_read.filter(attempt_id__in=missing - shown))
    by_client: dict[str, set[int]] = {}
    by_browser: dict[str, set[int]] = {}
    for player_id, client_key, browser_key in Attempt.objects.filter(challenge=challenge, ranked=True).values_list(
        "player_id", "client_key", "browser_key"
    ):
        if client_key:
            by_client.setdefault(client_key, set()).add(player_id)
        if browser_key:
            by_browser.setdefault(browser_key, set()).add(player_id)
    rows: list[dict[str, Any]] = []
    for r in results:
        group = groups.get(r.attempt_id)
        same_client = by_client.get(r.attempt.client_key, set()) - {r.player_id}
        same_browser = by_browser.get(r.attempt.browser_key, set()) - {r.player_id}
        r.challenge = challenge  # the queue's day: its week's window reads it
        # The week rule as decided at verification (services.week_assess); a result
        # verified before it was stored shows its own game alone.
        week = r.week_evidence or {"suspicion": 0.0, "games": 1}
        # The history rule as decided at verification (services.history_assess); none for
        # a result verified before it was stored.
        history = r.history_evidence or {}
        rows.append(
            {
                "attempt": r.attempt_id,
                "result": r.pk,
                "player": r.player.shown_name,
                "player_id": r.player_id,
                "score": r.score,
                "asks": r.asks,
                "suspicion": round(r.suspicion, 2),
                "flagged": r.flagged,
                "week_suspicion": round(week["suspicion"], 2),
                "week_games": week["games"],
                "week_flagged": r.week_flagged,
                "week_members": week_members(r) if r.week_flagged else [],
                "history_suspicion": round(history["suspicion"], 2) if history.get("suspicion") is not None else None,
                "history_games": history.get("games", 0),
                "history_first": history.get("first"),
                "history_flagged": r.history_flagged,
                # Which channels carry each figure, in words: the history's counts are read
                # for a flagged history only (a query each).
                "spoke": spoken(r, history_tallies_read=r.history_flagged),
                "disqualified": r.disqualified,
                "held": r.held,
                "cleared": r.cleared_at is not None,
                "same_client": len(same_client),
                "same_browser": len(same_browser),
                "cluster": bool(same_client or same_browser),
                "linked_accounts": r.linked_accounts,
                "link_evidence": r.link_evidence,
                "group": group.id if group else None,
                "ties": sorted(group.ties[r.attempt_id]) if group else [],
                "reasons": [
                    reason
                    for reason, on in (
                        ("suspicion", r.flagged),
                        ("week", r.week_flagged),
                        ("history", r.history_flagged),
                        ("linked_accounts", r.linked_accounts),
                    )
                    if on
                ],
            }
        )
    # Most suspicious first: a flagged game (by the detector or as a linked account's),
    # then a flagged week, then the figures; a group's rows together, where its first is.
    placed: dict[int, tuple] = {}
    for row in rows:
        if row["group"] is not None:
            placed[row["group"]] = min(placed.get(row["group"], _queue_order(row)), _queue_order(row))
    rows.sort(
        key=lambda row: (
            placed.get(row["group"], _queue_order(row)),
            row["group"] or 0,
            not row["linked_accounts"],
            _queue_order(row),
        )
    )
    heads: set[int] = set()
    for row in rows:
        group = groups.get(row["attempt"])
        row["group_head"] = None
        if group is not None and group.id not in heads:
            heads.add(group.id)
            row["group_head"] = {
                "id": group.id,
                "members": group.attempts,
                "flagged": any(r["linked_accounts"] for r in rows if r["group"] == group.id),
                "held": any(r["held"] for r in rows if r["group"] == group.id),
                "disqualified": any(r["disqualified"] for r in rows if r["group"] == group.id),
                # What flagged it: the late game and what it copied (linking.judge).
                "late": next((r["attempt"] for r in rows if r["group"] == group.id and r["linked_accounts"]), None),
                "evidence": next(
                    (r["link_evidence"] for r in rows if r["group"] == group.id and r["linked_accounts"]), None
                ),
            }
    return rows


# --- the day's archive -----------------------------------------------------------------

ARCHIVE_BATCH = 2000


def archive_entries(*, challenge) -> Iterator[dict]:
    """Every listed result of a closed day in rank order (a provisional newcomer's is left
    out, its rank a gap, as on the board), as docs/rules.md §5 Pêche cases plus
    what the leaderboard published (docs/fairplay.md): any implementation of the rules can
    replay each line and compare.

    Read in keyset batches (the ranking index's order), not through one cursor: a day of a
    million results never sits in memory, and a slow download holds no cursor or
    transaction open between batches. Ranks are positions in that order, which is the
    leaderboard's (RANK_ORDER; the rank index orders ties the same way).
    """
    fields = (
        "score",
        "asks",
        "finished_at",
        "attempt_id",
        "player__name",
        "player_pairs",
        "opponent_pairs",
        "attempt__moves",
        "player_id",
        "provisional",
    )
    rows = ranked_results(challenge.pk).order_by(*RANK_ORDER).values_list(*fields)
    seed, date, game = challenge.seed, challenge.date.isoformat(), challenge.game
    rank = 0
    after = None
    while True:
        batch = rows
        if after is not None:
            batch = rows.filter(_ranked("behind", *after))
        found = list(batch[:ARCHIVE_BATCH])
        for (
            score,
            asks,
            finished_at,
            attempt_id,
            name,
            player_pairs,
            opponent_pairs,
            moves,
            player_id,
            newcomer,
        ) in found:
            rank += 1
            if newcomer:  # ranked, not listed: its rank is a gap, as on the board
                continue
            yield {
                "game": game,
                "seed": seed,
                "moves": list(moves),
                "date": date,
                "rank": rank,
                "player": shown_name(name, player_id),
                "score": score,
                "asks": asks,
                "player_pairs": player_pairs,
                "opponent_pairs": opponent_pairs,
                "attempt": attempt_id,
                "finished_at": finished_at.isoformat(),
            }
        if len(found) < ARCHIVE_BATCH:
            return
        after = found[-1][:4]


def archive_lines(*, challenge) -> Iterator[str]:
    """The archive as JSON Lines text: the API and ``manage.py archive`` write the same bytes."""
    for entry in archive_entries(challenge=challenge):
        yield json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"


def results_gauges() -> list[tuple[str, str, dict[str, str], float]]:
    """Today's ranked results by outcome, read at each scrape of /metrics (config/metrics.py):
    ranked, held (``reason``: flagged by the detector, linked accounts, or both; or the
    player's week, flagged by another of its games; or the player's history) until a
    reviewer decides, disqualified."""
    found = {("ranked", ""): 0, ("held", "flagged"): 0, ("held", "linked"): 0, ("held", "week"): 0}
    found[("held", "history")] = 0
    found[("disqualified", "")] = 0
    rows = (
        Result.objects.filter(challenge__date=days.today(), challenge__game="peche", ranked=True)
        .values_list("disqualified", "held", "flagged", "linked_accounts", "week_flagged")
        .annotate(n=Count("id"))
    )
    for disqualified, held, flagged, linked, week, n in rows:
        if disqualified:
            outcome = ("disqualified", "")
        elif held:
            if flagged or linked:
                reason = "flagged_linked" if flagged and linked else "linked" if linked else "flagged"
            else:
                reason = "week" if week else "history"
            outcome = ("held", reason)
        else:
            outcome = ("ranked", "")
        found[outcome] = found.get(outcome, 0) + n
    text = "Today's ranked results by outcome (held: until a reviewer decides)."
    return [("peche_results", text, {"outcome": o, "reason": r}, float(n)) for (o, r), n in found.items()]
