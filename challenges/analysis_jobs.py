"""The analysis of a closed day's games and the day's par (games/analysis/): what readers
ask for, what the beat works out, and the claims that keep either from doing it twice. Runs
on the `analysis` queue's workers (challenges/tasks.py), never on verification's."""

from __future__ import annotations

import datetime as dt
import logging
import time

from django.core.cache import cache
from django.utils import timezone

from config import metrics
from config.rates import hit
from games.analysis import game as analysis_game
from games.rules import peche
from games.rules.base import DomainError, ReplayError

from . import services
from .models import DAILY_GAME, Attempt, DailyChallenge, DayPar, GameAnalysis

log = logging.getLogger(__name__)

ANALYSIS_WANTED = "analysis:wanted:{}"
PAR_WANTED = "analysis:par:{}"
# A game's analysis is handed to a worker once while it waits in the queue: the claim
# outlasts the broker's visibility timeout (a message a dead worker held comes back before
# it expires), so a queue minutes long never gets the same game twice; the task lets it go.
ANALYSIS_CLAIM_SECONDS = 600
PAR_CLAIM_SECONDS = 60  # a day's par is handed to a worker at most once a minute
PAR_DAYS = 7  # the beat works out the par of the days revealed this long ago at most


class AnalysisBudgetSpent(DomainError):
    """The analyses readers may hand the workers today, from every address together
    (``RATE_LIMITS['analyses_day']``), are spent: ``retry_after`` seconds until the budget
    comes back."""

    def __init__(self, retry_after: float) -> None:
        super().__init__("analysis_budget", "today's analyses are all taken; the game's analysis comes later")
        self.retry_after = max(1, int(retry_after))


def analysis_wanted(*, attempt_id: int, own: bool = False) -> None:
    """A reader wants the game's analysis, not stored yet: an `analysis` worker works it
    out (its own queue: never in the way of a verification). Without Redis the task runs
    here, now (eager). A game already handed over and not worked out yet is not handed
    over again (and costs nothing: asking again changes nothing).

    Each game handed over costs one of the day's budget, shared by every address
    (``RATE_LIMITS['analyses_day']``: the per-address limit alone lets a script with many
    addresses fill the queue); spent, AnalysisBudgetSpent and nothing is queued. A player's
    ``own`` game is not counted: one a ranked game, and players are made at a bounded rate."""
    key = ANALYSIS_WANTED.format(attempt_id)
    try:
        if not cache.add(key, 1, timeout=ANALYSIS_CLAIM_SECONDS):
            return
    except Exception:  # the claim is only a saving: without it, a duplicate task finds it done
        pass
    if not own:
        wait = hit("analyses_day", "all")
        if wait is not None:
            _release(key)
            metrics.analysis_refused("budget")
            raise AnalysisBudgetSpent(wait)
    try:
        services._task("analyse_attempt").apply_async((attempt_id,), queue="analysis", retry=False)
    except Exception:
        log.warning("could not enqueue an analysis attempt=%s", attempt_id)
        _release(key)


def attempt_analyse(*, attempt_id: int) -> bool:
    """Work out and store a ranked, verified game's analysis once its day's seed is public
    (and the day's par first, if missing). Idempotent: a game analysed at the current
    version is left as it is. Whether an analysis is stored now. The claim of
    ``analysis_wanted`` is let go whatever the outcome (the next reader may ask again)."""
    try:
        return _attempt_analyse(attempt_id)
    finally:
        _release(ANALYSIS_WANTED.format(attempt_id))


def _attempt_analyse(attempt_id: int) -> bool:
    attempt = (
        Attempt.objects.select_related("challenge")
        .filter(pk=attempt_id, ranked=True, status=Attempt.Status.VERIFIED)
        .first()
    )
    if attempt is None or not attempt.challenge.is_revealed(timezone.now()):
        return False
    if GameAnalysis.objects.filter(attempt_id=attempt_id, version=analysis_game.VERSION).exists():
        return True
    day_par_ensure(challenge=attempt.challenge)
    return _analyse_games(attempt.challenge.seed, [(attempt.pk, list(attempt.moves))]) == 1


# The positions an analysis worker has worked out (games.analysis.game.analyse_many's
# ``known``: ~2 kB each), for the two deals it analysed last: the next batch of the beat
# and the next reader's game of the day start from them. Past the bound a deal's start
# again (only time is lost: the figures are the position's, whoever reaches it).
ANALYSIS_POSITIONS = 50_000
_positions: dict[str, dict[tuple[str, ...], analysis_game.Position]] = {}
# The beat's round (``analyses_due``): games of one day analysed together a batch at a time
# (the lines sorted, so that those sharing their first asks fall in one batch), for at most
# ANALYSIS_ROUND_SECONDS, then the round ends and the next beat starts another; one round
# at a time (a claim), so a second analysis process is free for the readers' requests.
ANALYSIS_BATCH = 100
ANALYSIS_ROUND_SECONDS = 50.0
ANALYSIS_DAYS = 2  # the days revealed this long ago at most are analysed by the beat
ANALYSIS_ROUND = "analysis:round"


def _known_positions(seed: str) -> dict[tuple[str, ...], analysis_game.Position]:
    known = _positions.get(seed)
    if known is None or len(known) > ANALYSIS_POSITIONS:
        known = _positions[seed] = {}
        for old in list(_positions)[:-2]:
            del _positions[old]
    return known


def _analyse_games(seed: str, games: list[tuple[int, list[str]]]) -> int:
    """Analyse games of one deal together (attempt id, moves) and store them; a game that
    no longer replays is logged and left (re-verification's). How many were stored."""
    playable = []
    for attempt_id, moves in games:
        try:
            peche.ENGINE.replay({"seed": seed}, moves)
        except ReplayError:  # a verified game replays; one that no longer does is re-verification's
            log.warning("analysis: attempt=%s does not replay", attempt_id)
            continue
        playable.append((attempt_id, moves))
    found = analysis_game.analyse_many(seed, [m for _, m in playable], known=_known_positions(seed))
    for (attempt_id, _), analysed in zip(playable, found):
        GameAnalysis.objects.update_or_create(
            attempt_id=attempt_id,
            defaults={
                "accuracy": round(analysed.accuracy, 1),
                "luck": round(analysed.luck, 2),
                "asks": [a.as_dict() for a in analysed.asks],
                "version": analysis_game.VERSION,
            },
        )
    return len(playable)


def analyses_due(*, now: dt.datetime | None = None, seconds: float = ANALYSIS_ROUND_SECONDS) -> int:
    """The beat's round: the ranked, verified games of the days revealed within
    ANALYSIS_DAYS that have no analysis yet, analysed together in batches for ``seconds``
    at most (a batch started is finished), the latest day first. One round at a time.
    Returns how many games were analysed."""
    try:
        if not cache.add(ANALYSIS_ROUND, 1, timeout=int(seconds * 4) + 60):
            return 0
    except Exception:  # without the claim two rounds may analyse a game twice: the same figures
        pass
    try:
        return _analyses_round(now or timezone.now(), seconds)
    finally:
        _release(ANALYSIS_ROUND)


def _analyses_round(now: dt.datetime, seconds: float) -> int:
    start = time.monotonic()
    done = 0
    days = DailyChallenge.objects.filter(
        game=DAILY_GAME, reveals_at__lte=now, reveals_at__gte=now - dt.timedelta(days=ANALYSIS_DAYS)
    ).order_by("-reveals_at")
    for challenge in days:
        pending = sorted(
            Attempt.objects.filter(challenge=challenge, ranked=True, status=Attempt.Status.VERIFIED)
            .exclude(analysis__version=analysis_game.VERSION)
            .values_list("moves", "pk"),
        )
        if pending:
            day_par_ensure(challenge=challenge)
        for i in range(0, len(pending), ANALYSIS_BATCH):
            if time.monotonic() - start >= seconds:
                return done
            batch = [(pk, list(moves)) for moves, pk in pending[i : i + ANALYSIS_BATCH]]
            done += _analyse_games(challenge.seed, batch)
    return done


def _release(key: str) -> None:
    """A claim of ``analysis_wanted`` or ``day_par_wanted`` let go once its work is stored."""
    try:
        cache.delete(key)
    except Exception:  # it expires by itself
        pass


def day_par_ensure(*, challenge: DailyChallenge) -> None:
    """The day's par, worked out once its seed is public (never before: the par tells
    something of the deal). Idempotent; the same for every player of the day."""
    if challenge.pk is None or not challenge.is_revealed(timezone.now()):
        return
    if DayPar.objects.filter(challenge=challenge, version=analysis_game.VERSION).exists():
        return
    par = analysis_game.par(challenge.seed)
    DayPar.objects.update_or_create(
        challenge=challenge,
        defaults={
            "score": par["score"],
            "player_pairs": par["pairs"][0],
            "opponent_pairs": par["pairs"][1],
            "moves": par["moves"],
            "version": analysis_game.VERSION,
        },
    )


def pars_due(*, now: dt.datetime | None = None) -> int:
    """The beat's: the par of every day closed within PAR_DAYS that has none. Returns how many."""
    now = now or timezone.now()
    due = DailyChallenge.objects.filter(
        game=DAILY_GAME, reveals_at__lte=now, reveals_at__gte=now - dt.timedelta(days=PAR_DAYS)
    ).exclude(par__version=analysis_game.VERSION)
    done = 0
    for challenge in due:
        day_par_ensure(challenge=challenge)
        done += 1
    return done


def day_par_wanted(*, challenge_id: int) -> None:
    """A page of a closed day wants its par, not worked out yet (the beat's round comes every
    few minutes): an `analysis` worker works it out, once a minute at most per day."""
    key = PAR_WANTED.format(challenge_id)
    try:
        if not cache.add(key, 1, timeout=PAR_CLAIM_SECONDS):
            return
    except Exception:
        pass
    try:
        services._task("day_par").apply_async((challenge_id,), queue="analysis", retry=False)
    except Exception:
        log.warning("could not enqueue a par challenge=%s", challenge_id)
        _release(key)


def day_par_of(*, challenge_id: int) -> None:
    """``day_par_wanted``'s task: the par, and its claim let go whatever the outcome."""
    try:
        challenge = DailyChallenge.objects.filter(pk=challenge_id).first()
        if challenge is not None:
            day_par_ensure(challenge=challenge)
    finally:
        _release(PAR_WANTED.format(challenge_id))
