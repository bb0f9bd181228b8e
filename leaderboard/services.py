"""Writes of results and the rank index."""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Case, JSONField, Q, When
from django.db.models.fields.json import KeyTransform
from django.utils import timezone

from challenges import days
from challenges.models import DailyChallenge, Review
from games import fairplay
from games.rules.base import DomainError

from . import linking, rank_index, selectors, spoke
from .models import COUNTED, Result

log = logging.getLogger(__name__)


def day_sort_key(*, opened, score: int, asks: int, finished_at) -> int:
    """The rank index key; finish time counts in ms since the day opened."""
    ms = int((finished_at - opened).total_seconds() * 1000)
    return rank_index.sort_key(score=score, asks=asks, finished_ms=ms)


def result_sort_key(result: Result) -> int:
    return day_sort_key(
        opened=days.opens_at(result.challenge.date),
        score=result.score,
        asks=result.asks,
        finished_at=result.finished_at,
    )


def results_record(*, verified: list[tuple]) -> list[Result]:
    """Write (or, on an admin re-verify, update) each attempt's one result from
    ``(attempt, outcome, fair-play assessment or None)``.

    Precondition: the caller holds the attempts' row locks inside a transaction."""
    existing = {r.attempt_id: r for r in Result.objects.filter(attempt_id__in=[a.pk for a, _, _ in verified])}
    evidences = {attempt.pk: game_evidence(assessment) for attempt, _, assessment in verified if assessment is not None}
    judged = [
        (attempt, assessment.profile, evidences[attempt.pk].get("tallies"))
        for attempt, _, assessment in verified
        if assessment is not None
    ]
    # The week and the history of each judged game, from one read of its player's games.
    games = _player_games(judged)
    weeks = _weeks_of(judged, games)
    histories = _histories_of(judged, games)
    newcomers = provisional_of([attempt for attempt, _, _ in verified if attempt.ranked])
    results: list[Result] = []
    for attempt, outcome, assessment in verified:
        # Judged before it is ever public: the games it could have copied finished first.
        link = (
            linking.assess(attempt, outcome.score, assessment.choices if assessment else None)
            if attempt.ranked
            else None
        )
        values = {
            "challenge": attempt.challenge,
            "player_id": attempt.player_id,
            "ranked": attempt.ranked,
            "score": outcome.score,  # a Pêche Outcome (games/rules/events.py): seat 0 is the player
            "player_pairs": outcome.counts[0],
            "opponent_pairs": outcome.counts[1],
            "asks": outcome.asks[0],
            "finished_at": attempt.finished_at,
            "suspicion": assessment.suspicion if assessment else 0.0,
            "flagged": assessment.flagged if assessment else False,
            "evidence": evidences.get(attempt.pk),
            "linked_accounts": link is not None,
            "link_evidence": link,
            "week_evidence": weeks.get(attempt.pk),
            # Judged again at each verification, as the game's own flag: it is this game's
            # history alone (a flagged history holds no other game).
            "history_evidence": histories.get(attempt.pk),
            "history_flagged": bool(histories.get(attempt.pk, {}).get("flagged")),
            "provisional": attempt.pk in newcomers,
        }
        previous = existing.get(attempt.pk)
        # A re-verify never lowers a week's flag: a week another game tipped is released by a
        # reviewer's decision, not by judging one of its games again.
        values["week_flagged"] = bool(weeks.get(attempt.pk, {}).get("flagged")) or (
            previous is not None and previous.week_flagged
        )
        result = previous or Result(attempt=attempt)
        for name, value in values.items():
            setattr(result, name, value)
        results.append(result)
    # Rank them before the commit: one write less, and a worker killed in between redoes
    # both (tasks are acknowledged late; adding to the index is idempotent). If Redis is
    # down, ``indexed`` stays False and the sweeper adds them later.
    by_day: dict[int, list[Result]] = {}
    unranked: list[Result] = []  # a re-verify that holds (or unranks) one: out of the index
    for result in results:
        result.indexed = False
        result.held = holds(result)
        if counts(result):
            by_day.setdefault(result.challenge_id, []).append(result)
        elif result.attempt_id in existing:
            unranked.append(result)
    for challenge_id, day in by_day.items():
        unlisted = {r.attempt_id for r in day if r.provisional}
        if rank_index.add(challenge_id, [(r.attempt_id, result_sort_key(r)) for r in day], unlisted=unlisted):
            for r in day:
                r.indexed = True
    Result.objects.bulk_create([r for r in results if r.pk is None])
    for result in results:
        if result.attempt_id in existing:
            result.save()
    pending = [r.pk for day in by_day.values() for r in day if not r.indexed]
    if pending:
        transaction.on_commit(lambda: index_results(pending))
    # A game that tips its week holds the player's other results of that week at once.
    unranked_ids = [(r.challenge_id, r.attempt_id) for r in unranked]
    for result in results:
        if weeks.get(result.attempt_id, {}).get("flagged"):
            unranked_ids += week_hold(result)
    if unranked_ids:
        transaction.on_commit(lambda: _unindex(unranked_ids))
    return results


def provisional_of(attempts: list[Any]) -> set[int]:
    """The ranked attempts whose players are not established on the attempt's day: fewer
    than settings.ESTABLISHED_DAYS days with a counted result (ranked, neither held nor
    disqualified) in the ESTABLISHED_WINDOW days before it. One query for the batch."""
    needed, window = settings.ESTABLISHED_DAYS, settings.ESTABLISHED_WINDOW
    if not attempts or needed <= 0:
        return set()
    dates = [attempt.challenge.date for attempt in attempts]
    played = set(
        Result.objects.filter(
            COUNTED,
            player_id__in={attempt.player_id for attempt in attempts},
            challenge__date__range=(min(dates) - dt.timedelta(days=window), max(dates) - dt.timedelta(days=1)),
        ).values_list("player_id", "challenge__game", "challenge__date")
    )
    newcomers: set[int] = set()
    for attempt in attempts:
        day, game = attempt.challenge.date, attempt.challenge.game
        days_played = sum(
            1
            for player_id, played_game, date in played
            if player_id == attempt.player_id and played_game == game and day - dt.timedelta(days=window) <= date < day
        )
        if days_played < needed:
            newcomers.add(attempt.pk)
    return newcomers


# --- the week rule ---------------------------------------------------------------------


def game_evidence(assessment: fairplay.GameAssessment) -> dict[str, Any]:
    """What a result stores of its game's judgement (``Result.evidence``): the detector's
    ``evidence()``, with the player's own asks tallied beside the other channels
    (``spoke.asks_tally``: of the asks with a choice, how many found a card, against the
    table's expectation) where the detector does not tally them: the words of the review
    (``spoke.channel_words``) read it."""
    evidence = assessment.evidence()
    tallies = evidence.setdefault("tallies", {})
    if "asks" not in tallies:
        tallies["asks"] = spoke.asks_tally(assessment.asks)
    return evidence


def week_assess(
    games: list[fairplay.GameAssessment | tuple[float, ...]], tallies: list[Any] | None = None
) -> dict[str, Any]:
    """The week rule of the fair-play detector over one player's ranked games of a week,
    each a game's assessment or its stored evidence's profile: the one place the site calls
    it. Returns what it decided as Result.week_evidence stores it: ``flagged``,
    ``suspicion`` (the week's figure), ``games``, the likeliest shared peek ``rate``, each
    channel's share (``channels``) and, with ``tallies`` (its games' stored ones), their sum
    (what ``spoke.channel_words`` says)."""
    week = fairplay.accumulate(games).as_dict()
    if tallies is not None:
        week["tallies"] = spoke.tallies_sum(tallies)
    return week


def history_assess(games: list[tuple[float, ...]], tallies: list[Any] | None = None, **facts: Any) -> dict[str, Any]:
    """The history rule: one player's ranked games of one game, every one since its first
    (or since its restart, ``_histories_of``), each its stored profile, judged as one player
    peeking at one rate by ``fairplay.accumulate`` at ``fairplay.HISTORY_THRESHOLD``: the one
    place the site calls it. By Ville's inequality an honest player's running product ever
    reaches the threshold with chance at most ``fairplay.HISTORY_LEVEL`` (0.1 %), however
    many games it plays and whenever it is read: it may be judged after every game. Returns
    what Result.history_evidence stores: as ``week_assess``, and ``facts`` (``first``, the
    day of its first game; ``restarted_after``; ``unjudged``, games without a stored
    profile, left out)."""
    # Its games' profiles added up column by column first (C loops: a long history is
    # hundreds of games), then judged as one: the same sum ``accumulate`` makes.
    total = [tuple(sum(column) for column in zip(*games))] if games else []
    judged = fairplay.accumulate(total, threshold=fairplay.HISTORY_THRESHOLD)
    history = dataclasses.replace(judged, games=len(games)).as_dict()
    if tallies is not None:
        history["tallies"] = spoke.tallies_sum(tallies)
    return {**history, **facts}


@dataclass
class _Game:
    """One ranked game of a player, as the week and the history read it."""

    attempt_id: int
    date: dt.date
    profile: fairplay.GameAssessment | tuple[float, ...] | None
    tallies: Any
    history_cleared: bool  # its history was flagged and a reviewer cleared it


def _player_games(judged: list[tuple[Any, Any, Any]]) -> dict[tuple[int, str], list[_Game]]:
    """Every ranked game of the judged games' players in their games up to the last judged
    day, by (player, game), oldest first: ONE query (the player's ranked results through the
    result's player index; of the stored evidence only the profile is read, and the tallies
    of the weeks' days, not the whole figure). ``judged``: ``(attempt, profile, tallies)`` of
    the games being verified, whose new figures replace what is stored. The week reads the
    last 7 days of it, the history all of it. A result verified before evidence was stored
    is judged again from seed and asks if it is in a judged game's week (read only for
    those); elsewhere it is left out of the history (``unjudged``).

    Cost, a player with 400 ranked results (SQLite, the test settings, a 2-core AMD EPYC KVM
    guest under load, best of 60, 2026-12-07; a one-off timing, not a benchmark): this read
    takes 5.2 ms where the week's read before it (its 7 days, whole evidence) took 0.65 ms;
    the history's sum and judgement 0.16 ms; the whole verification of that game 35 ms. It
    grows with the player's games (a row of 15 numbers each); Postgres not measured."""
    if not judged:
        return {}
    dates = [attempt.challenge.date for attempt, _, _ in judged]
    rows = (
        Result.objects.filter(
            player_id__in={attempt.player_id for attempt, _, _ in judged},
            challenge__game__in={attempt.challenge.game for attempt, _, _ in judged},
            ranked=True,
            challenge__date__lte=max(dates),
        )
        .annotate(
            # The counts behind the figures (the review's words) for the weeks' days only: the
            # history's are read when a reviewer looks (selectors.history_tallies).
            week_tallies=Case(
                When(
                    challenge__date__gte=min(dates) - dt.timedelta(days=selectors.WEEK - 1),
                    then=KeyTransform("tallies", "evidence"),
                ),
                default=None,
                output_field=JSONField(),
            )
        )
        .values_list(
            "attempt_id",
            "player_id",
            "challenge__game",
            "challenge__date",
            "evidence__profile",
            "week_tallies",
            "history_flagged",
            "cleared_at",
        )
    )
    fresh = {attempt.pk: (attempt, profile, tallies) for attempt, profile, tallies in judged}
    games: dict[tuple[int, str], list[_Game]] = {}
    was_cleared: set[int] = set()  # judged again (a re-verify): whether a reviewer had cleared its history
    for attempt_id, player_id, game, date, profile, tallies, history_flagged, cleared_at in rows:
        cleared = history_flagged and cleared_at is not None
        if attempt_id in fresh:  # judged now: its new figures below
            if cleared:
                was_cleared.add(attempt_id)
            continue
        stored = fairplay.profile_of({"profile": profile})
        games.setdefault((player_id, game), []).append(_Game(attempt_id, date, stored, tallies, cleared))
    for attempt_id, (attempt, profile, tallies) in fresh.items():
        key = (attempt.player_id, attempt.challenge.game)
        games.setdefault(key, []).append(
            _Game(attempt_id, attempt.challenge.date, profile, tallies, attempt_id in was_cleared)
        )
    windows = [(a.player_id, a.challenge.game, a.challenge.date) for a, _, _ in judged]
    unjudged = {
        g.attempt_id: g
        for (player_id, game), mine in games.items()
        for g in mine
        if g.profile is None
        and any(
            p == player_id and gm == game and d - dt.timedelta(days=selectors.WEEK - 1) <= g.date <= d
            for p, gm, d in windows
        )
    }
    if unjudged:
        for attempt_id, seed, moves in Result.objects.filter(attempt_id__in=list(unjudged)).values_list(
            "attempt_id", "challenge__seed", "attempt__moves"
        ):
            unjudged[attempt_id].profile = fairplay.assess(seed, list(moves))
    for mine in games.values():
        mine.sort(key=lambda g: (g.date, g.attempt_id))
    return games


def _weeks_of(
    judged: list[tuple[Any, Any, Any]], games: dict[tuple[int, str], list[_Game]]
) -> dict[int, dict[str, Any]]:
    """The week rule for each judged ``(attempt, profile, tallies)``: its player's ranked
    games of the 7 days ending on its day (``_player_games``), this one included."""
    weeks: dict[int, dict[str, Any]] = {}
    for attempt, _, _ in judged:
        day, first = attempt.challenge.date, attempt.challenge.date - dt.timedelta(days=selectors.WEEK - 1)
        week = [
            g
            for g in games.get((attempt.player_id, attempt.challenge.game), ())
            if first <= g.date <= day and g.profile is not None
        ]
        weeks[attempt.pk] = week_assess([_profile(g.profile) for g in week], [g.tallies for g in week])
    return weeks


def _histories_of(
    judged: list[tuple[Any, Any, Any]], games: dict[tuple[int, str], list[_Game]]
) -> dict[int, dict[str, Any]]:
    """The history rule for each judged ``(attempt, profile, tallies)``: every ranked game
    of its player in its game up to its day (``_player_games``) — held and disqualified
    ones too: Ville's bound is for the product of every game, and a product that left out
    the games a reviewer took away would no longer be the test it bounds.

    **The restart.** The history begins with the player's first ranked game, or, when a
    reviewer cleared (or restored) one of its games whose history was flagged, with the
    first game after the last such game's day: a new test starts after a person looked.
    Continued past a clear, the product would stay above the threshold for many games (it
    had just crossed it) and hold every later game of a player a person judged fair; begun
    afresh at that point (a time fixed by the games before it), it is a new test martingale
    with its own bound, and an honest player is flagged a second time with chance at most
    HISTORY_LEVEL again. A history flag a reviewer did not clear (the game is held, or
    disqualified) does not restart it."""
    histories: dict[int, dict[str, Any]] = {}
    for attempt, _, _ in judged:
        day = attempt.challenge.date
        mine = [g for g in games.get((attempt.player_id, attempt.challenge.game), ()) if g.date <= day]
        restart = max((g.date for g in mine if g.history_cleared and g.date < day), default=None)
        history = [g for g in mine if restart is None or g.date > restart]
        judged_games = [g for g in history if g.profile is not None]
        histories[attempt.pk] = history_assess(
            [_profile(g.profile) for g in judged_games],
            first=min(g.date for g in history).isoformat(),
            restarted_after=restart.isoformat() if restart else None,
            unjudged=len(history) - len(judged_games),
        )
    return histories


def _profile(game: fairplay.GameAssessment | tuple[float, ...] | None) -> tuple[float, ...]:
    assert game is not None
    return game.profile if isinstance(game, fairplay.GameAssessment) else game


def _judged_again(results: list[Result]) -> list[tuple[Any, Any, Any]]:
    """``(attempt, profile, tallies)`` of results judged again from their stored evidence
    (from seed and asks where none is stored)."""
    judged = []
    for r in results:
        profile = fairplay.profile_of(r.evidence)
        tallies = (r.evidence or {}).get("tallies")
        if profile is None:
            evidence = game_evidence(fairplay.assess(r.challenge.seed, list(r.attempt.moves)))
            profile, tallies = fairplay.profile_of(evidence), evidence["tallies"]
        judged.append((r.attempt, profile, tallies))
    return judged


def weeks_reassess(*, challenge_id: int) -> int:
    """Judge the week of each of the day's ranked results again (a newer detector, or
    results verified before the week was stored): its figures are replaced, and a week
    that flags now is held as at verification (``week_hold``). A week's flag is never
    lowered here: a held week is released by a reviewer. Returns how many weeks changed."""
    results = list(
        Result.objects.filter(challenge_id=challenge_id, ranked=True).select_related("attempt__challenge", "challenge")
    )
    assessed = [(r.attempt, fairplay.assess(r.challenge.seed, list(r.attempt.moves))) for r in results]
    judged = [(attempt, a.profile, game_evidence(a)["tallies"]) for attempt, a in assessed]
    weeks = _weeks_of(judged, _player_games(judged))
    changed, unranked = [], []
    for result in results:
        week = weeks[result.attempt_id]
        if result.week_evidence != week or (week["flagged"] and not result.week_flagged):
            result.week_evidence = week
            result.week_flagged = result.week_flagged or week["flagged"]
            changed.append(result)
    with transaction.atomic():
        Result.objects.bulk_update(changed, ["week_evidence", "week_flagged"], batch_size=2000)
        rehold([r.pk for r in changed if r.week_flagged])
        for result in changed:
            if result.week_flagged:
                unranked += week_hold(result)
    _unindex(unranked)
    return len(changed)


def histories_reassess(*, challenge_id: int) -> int:
    """Judge the history of each of the day's ranked results again (a newer detector, a
    recompute of its games, or results verified before the history was stored), from the
    stored evidence, and hold (or release) them as ``holds`` says, as ``results_reassess``
    does with a game's flag (a cleared result is not held again). Returns how many changed."""
    results = list(
        Result.objects.filter(challenge_id=challenge_id, ranked=True).select_related("attempt__challenge", "challenge")
    )
    judged = _judged_again(results)
    histories = _histories_of(judged, _player_games(judged))
    changed = []
    for result in results:
        history = histories[result.attempt_id]
        if (result.history_evidence, result.history_flagged) != (history, history["flagged"]):
            result.history_evidence, result.history_flagged = history, history["flagged"]
            changed.append(result)
    with transaction.atomic():
        Result.objects.bulk_update(changed, ["history_evidence", "history_flagged"], batch_size=2000)
        rehold([r.pk for r in changed])
    return len(changed)


def week_hold(result: Result) -> list[tuple[int, int]]:
    """``result`` tipped its week: mark the player's other results of that week and hold
    those ``holds`` would (a result a reviewer cleared stays ranked; a disqualified one is
    decided already). Conditional updates, as ``rehold``: a decision taken meanwhile is not
    overwritten. Returns the (challenge, attempt) of those newly held, to take out of the
    rank index once committed. Idempotent: a second call finds nothing new to hold."""
    others = selectors.week_window(result).exclude(pk=result.pk)
    Result.objects.filter(pk__in=others.filter(week_flagged=False).values("pk")).update(week_flagged=True)
    to_hold = others.filter(held=False, cleared_at__isnull=True, disqualified=False)
    newly_held = list(to_hold.values_list("pk", "challenge_id", "attempt_id"))
    Result.objects.filter(pk__in=[pk for pk, _, _ in newly_held], held=False).update(held=True, indexed=False)
    if newly_held:
        log.info("week held player=%s by attempt=%s results=%s", result.player_id, result.attempt_id, len(newly_held))
    return [(day, attempt_id) for _, day, attempt_id in newly_held]


def holds(result: Result) -> bool:
    """Held until reviewed: a ranked result the detector flags (or linking flags as a
    linked account's game, linking.py; or in a week the week rule flags, ``week_hold``; or
    whose history the history rule flags, ``_histories_of``),
    that no reviewer cleared and that is not
    disqualified (decided already).

    A re-assessment (or a re-verify) that flags an already-cleared result does not hold it
    again: a person looked at that game and let it rank, and taking it off the ranking
    behind their back would undo their decision silently. It stays ranked, and the review
    queue still shows it flagged, with the new figure, for a second look (Disqualify)."""
    return (
        result.ranked
        and (result.flagged or result.linked_accounts or result.week_flagged or result.history_flagged)
        and result.cleared_at is None
        and not result.disqualified
    )


# The database's form of ``holds`` for what flags a result.
FLAGGED = Q(flagged=True) | Q(linked_accounts=True) | Q(week_flagged=True) | Q(history_flagged=True)


def counts(result: Result) -> bool:
    """On the day's ranking (and in its rank index): models.COUNTED for one result."""
    return result.ranked and not result.disqualified and not result.held


def _unindex(entries: list[tuple[int, int]]) -> None:
    """Take (challenge, attempt) pairs out of their days' rank indexes."""
    for challenge_id, attempt_id in entries:
        # A failure leaves a stale member: readers skip rows that no longer count, and the
        # day's next rebuild drops it.
        rank_index.remove(challenge_id, attempt_id)


def index_results(result_ids: list[int]) -> int:
    """Put results into their days' rank indexes; mark those that made it."""
    rows = list(Result.objects.filter(COUNTED, pk__in=result_ids).select_related("challenge"))
    by_day: dict[int, list[tuple[int, int, int]]] = {}
    unlisted = {r.attempt_id for r in rows if r.provisional}
    for r in rows:
        by_day.setdefault(r.challenge_id, []).append((r.pk, r.attempt_id, result_sort_key(r)))
    done: list[int] = []
    for challenge_id, entries in by_day.items():
        if rank_index.add(challenge_id, [(aid, k) for _, aid, k in entries], unlisted=unlisted):
            done.extend(rid for rid, _, _ in entries)
    if done:
        Result.objects.filter(pk__in=done).update(indexed=True)
    return len(done)


def index_pending(limit: int = 10_000) -> int:
    """The sweeper's half for ranks: results that never reached the index (Redis down)."""
    if not rank_index.available():
        return 0
    ids = list(Result.objects.filter(COUNTED, indexed=False).values_list("pk", flat=True)[:limit])
    return index_results(ids) if ids else 0


def rank_indexes_kept() -> int:
    """The beat's half for ranks, after each sweep: the index of each kept day (KEPT_DAYS)
    built where it is missing, then the results that never reached their day's index
    (Redis was down) added. The number of results added."""
    if not rank_index.available():
        return 0
    today = days.today()
    kept = DailyChallenge.objects.filter(date__gt=today - dt.timedelta(days=KEPT_DAYS), date__lte=today)
    for challenge_id in kept.values_list("pk", flat=True):
        rank_index_wanted(challenge_id=challenge_id)
    return index_pending()


def rebuild_index(*, challenge_id: int) -> int:
    """Rebuild a day's rank index from Postgres, the record.

    Results verified while the snapshot is read may miss the new set: they are added
    again once it is in place (adding is idempotent)."""
    challenge = DailyChallenge.objects.get(pk=challenge_id)
    opened = days.opens_at(challenge.date)
    started = timezone.now()
    day_results = Result.objects.filter(COUNTED, challenge_id=challenge_id)
    rows = day_results.values_list("attempt_id", "score", "asks", "finished_at", "provisional").iterator(
        chunk_size=20_000
    )
    count = rank_index.rebuild(
        challenge_id,
        ((aid, day_sort_key(opened=opened, score=s, asks=a, finished_at=f), not p) for aid, s, a, f, p in rows),
    )
    late = list(day_results.filter(verified_at__gte=started - dt.timedelta(seconds=5)).values_list("pk", flat=True))
    if late:
        index_results(late)
    day_results.filter(indexed=False, verified_at__lt=started).update(indexed=True)
    log.info("rank index rebuilt challenge=%s entries=%s", challenge_id, count)
    return count


# The days whose rank index the beat keeps built: today's and the week before (a league's
# week, the leaderboards players still open). An older day's ranks are counted in SQL
# (its pages are settled: a CDN keeps them), or its index is built by the operator's
# rebuild_rank_index.
KEPT_DAYS = 8


def rank_index_wanted(*, challenge_id: int, ready: bool | None = None) -> bool:
    """The day's rank index is wanted: whether it is ready (``ready``: the caller found out
    already). When it is not (a new day's, or Redis restarted empty), it is built in the
    background, once (``rank_index.claim_rebuild``), and SQL answers readers meanwhile.
    Called by the beat (``rank_indexes_kept``): a reader, a GET, never writes nor enqueues."""
    if ready is None:
        ready = rank_index.is_ready(challenge_id)
    if not ready and rank_index.available() and rank_index.claim_rebuild(challenge_id):
        try:
            # Celery's registry, not an import: tasks.py calls these services.
            current_app.tasks["leaderboard.tasks.rebuild_rank_index"].apply_async((challenge_id,), retry=False)
        except Exception:
            # E.g. Redis just came back and this process's broker connection is stale.
            log.warning("could not enqueue a rank index rebuild challenge=%s", challenge_id)
            rank_index.release_rebuild(challenge_id)
    return ready


# --- review decisions ---------------------------------------------------------------


@transaction.atomic
def result_disqualify(*, result_id: int, disqualified: bool = True, by=None, reason: str) -> Result:
    """Take a result out of its day's ranking (or put it back: a restore clears it too, so
    a later flag does not hold it again). ``by`` (a user, None for an operator's command)
    and ``reason`` go to the trail; the reason stays on the result, for its player."""
    return _decide(result_id, "disqualify" if disqualified else "restore", by=by, reason=reason)


@transaction.atomic
def result_clear(*, result_id: int, by=None, reason: str) -> Result:
    """A reviewer lets a held result rank: it takes its place on the day's ranking (and
    in the rank index). The trail records it as a restore (back on the ranking).

    Raises ReviewRefused for a result that is not held (a disqualified one is restored)."""
    return _decide(result_id, "clear", by=by, reason=reason)


class ReviewRefused(DomainError):
    """A decision that does not apply to the result as it stands."""


def _decide(result_id: int, decision: str, *, by, reason: str) -> Result:
    result = Result.objects.select_for_update().get(pk=result_id)
    if decision == "clear" and not result.held:
        # Only a hold is cleared: clearing ahead of any flag would exempt a game from later
        # ones, and a disqualified result is put back by a restore.
        raise ReviewRefused("not_held", "only a held result is cleared (a disqualified one is restored)")
    Review.objects.create(
        attempt_id=result.attempt_id,
        by=by,
        reason=reason[:300],
        action=Review.Action.DISQUALIFY if decision == "disqualify" else Review.Action.RESTORE,
    )
    result.disqualified = decision == "disqualify"
    if decision != "disqualify" and result.cleared_at is None:
        result.cleared_at = timezone.now()
    result.held = holds(result)
    result.review_reason = reason[:300]
    result.indexed = False
    result.save(update_fields=["disqualified", "cleared_at", "held", "review_reason", "indexed"])
    if counts(result):
        transaction.on_commit(lambda: index_results([result.pk]))
    else:
        transaction.on_commit(lambda: _unindex([(result.challenge_id, result.attempt_id)]))
    return result


def results_reassess(*, challenge_id: int) -> int:
    """Compute the fair-play figures of a day's ranked results again from seed + asks (a
    newer detector, or results verified before it existed), and hold (or release) them by
    the same rule as at verification (``holds``: a cleared result is not held again).
    Returns how many changed."""
    changed: list[Result] = []
    for result in Result.objects.filter(challenge_id=challenge_id, ranked=True).select_related("attempt", "challenge"):
        assessment = fairplay.assess(result.challenge.seed, list(result.attempt.moves))
        evidence = game_evidence(assessment)
        if (result.suspicion, result.flagged, result.evidence) != (assessment.suspicion, assessment.flagged, evidence):
            result.suspicion, result.flagged, result.evidence = assessment.suspicion, assessment.flagged, evidence
            changed.append(result)
    Result.objects.bulk_update(changed, ["suspicion", "flagged", "evidence"], batch_size=2000)
    rehold([r.pk for r in changed])
    return len(changed)


def rehold(result_ids: list[int]) -> None:
    """Hold (or release) results whose flags a re-assessment changed, by the rule of
    ``holds``. The holds move by conditional updates, not from rows read before: a reviewer
    who clears or disqualifies one meanwhile is not overwritten."""
    to_hold = Result.objects.filter(
        FLAGGED, pk__in=result_ids, ranked=True, held=False, cleared_at__isnull=True, disqualified=False
    )
    newly_held = list(to_hold.values_list("pk", "challenge_id", "attempt_id"))
    to_hold.filter(pk__in=[pk for pk, _, _ in newly_held]).update(held=True, indexed=False)
    for _, day, attempt_id in newly_held:
        rank_index.remove(day, attempt_id)  # a failure: readers skip it; the next rebuild drops it
    released = list(Result.objects.filter(pk__in=result_ids, held=True).exclude(FLAGGED).values_list("pk", flat=True))
    if released and Result.objects.filter(pk__in=released, held=True).update(held=False, indexed=False):
        index_results(released)


def links_reassess(*, challenge_id: int) -> int:
    """Judge the day's ranked results again for linked accounts (linking.py: results
    verified before it, or new ties), and hold or release them as ``holds`` says. Returns
    how many changed."""
    changed: list[Result] = []
    for result in Result.objects.filter(challenge_id=challenge_id, ranked=True).select_related("attempt__challenge"):
        link = linking.assess(result.attempt, result.score)
        if (result.linked_accounts, result.link_evidence) != (link is not None, link):
            result.linked_accounts, result.link_evidence = link is not None, link
            changed.append(result)
    Result.objects.bulk_update(changed, ["linked_accounts", "link_evidence"], batch_size=2000)
    rehold([r.pk for r in changed])
    return len(changed)


@transaction.atomic
def group_decide(*, challenge_id: int, attempt_ids: list[int], decision: str, by=None, reason: str) -> int:
    """One decision for a group of linked accounts (linking.day_groups), as the reviewer saw
    it (``attempt_ids``): ``clear`` clears its held results (the others rank already),
    ``disqualify`` disqualifies every result of the group, ``restore`` puts the disqualified
    ones back. Each is recorded in the trail. Raises ReviewRefused when the group is no
    longer what the reviewer saw (a game joined or left it). Returns how many changed."""
    group = linking.day_groups(challenge_id).get(min(attempt_ids, default=0))
    if group is None or sorted(set(attempt_ids)) != group.attempts:
        raise ReviewRefused("group_changed", "the group is not what was shown any more: look at it again")
    done = 0
    for result in Result.objects.filter(attempt_id__in=group.attempts).order_by("attempt_id"):
        if decision == "clear" and result.held:
            _decide(result.pk, "clear", by=by, reason=reason)
        elif decision == "disqualify" and not result.disqualified:
            _decide(result.pk, "disqualify", by=by, reason=reason)
        elif decision == "restore" and result.disqualified:
            _decide(result.pk, "restore", by=by, reason=reason)
        else:
            continue
        done += 1
    return done


@transaction.atomic
def week_decide(*, result_id: int, attempt_ids: list[int], decision: str, by=None, reason: str) -> int:
    """One decision on a flagged week, as the reviewer saw it (``attempt_ids``, the week of
    ``result_id``'s day): ``clear`` clears its held results (each ranks in its place, and a
    later flag does not hold it again), ``disqualify`` disqualifies every one of them.
    Each is recorded in the trail with the reason. Raises ReviewRefused when the week is
    not what the reviewer saw (a game joined it meanwhile). Returns how many changed."""
    result = Result.objects.select_related("challenge").get(pk=result_id)
    members = selectors.week_members(result)
    if not result.week_flagged or sorted(set(attempt_ids)) != sorted(members):
        raise ReviewRefused("week_changed", "the week is not what was shown any more: look at it again")
    done = 0
    for member in Result.objects.filter(attempt_id__in=members).order_by("attempt_id"):
        if decision == "clear" and member.held:
            _decide(member.pk, "clear", by=by, reason=reason)
        elif decision == "disqualify" and not member.disqualified:
            _decide(member.pk, "disqualify", by=by, reason=reason)
        else:
            continue
        done += 1
    return done
