"""Reads: what a player may see of challenges and attempts."""

from __future__ import annotations

import datetime as dt
from typing import Any, Protocol, runtime_checkable

from django.utils import timezone

from games.analysis import game as analysis_game

from . import days, hooks
from .models import DAILY_GAME, Attempt, DailyChallenge, DayPar, GameAnalysis, Player
from .play import game_view


def challenge_public(challenge: DailyChallenge, *, now: dt.datetime | None = None) -> dict:
    """The seed appears only once the day's ranked games can no longer change."""
    data = {
        "date": challenge.date.isoformat(),
        "game": challenge.game,
        "commitment": challenge.commitment,
        "rules_version": challenge.rules_version,
        "closes_at": challenge.closes_at.isoformat(),
        "reveals_at": challenge.reveals_at.isoformat(),
    }
    if challenge.is_revealed(now or timezone.now()):
        data["seed"] = challenge.seed
    return data


def attempt_view(attempt: Attempt, state=None, *, events=None) -> dict:
    """The player's view of an attempt (seat 0 only: nothing of the opponent's hand or the
    lake): the stored game's view (challenges/play.py ``GameView``) and the daily's own
    fields. ``state``: the state after its asks if the caller holds it (else replayed)."""
    game = attempt.engine()
    if state is None:
        state = attempt.state()
    view = game_view(attempt, game, state, events)
    view["date"] = attempt.challenge.date.isoformat()
    view["ranked"] = attempt.ranked
    if attempt.ranked:
        # Until when this game may take asks (the page counts down in the last minutes).
        view["asks_until"] = attempt.challenge.reveals_at.isoformat()
        view["day_closed"] = attempt.challenge.is_revealed(timezone.now())
    if attempt.status == Attempt.Status.REJECTED:
        view["reject_reason"] = attempt.reject_reason
    if attempt.status == Attempt.Status.VERIFIED:
        result = getattr(attempt, "result", None)
        if result is not None:
            # Held (under review): the provisional score and no rank. Disqualified: the
            # reviewer's reason (hooks.result_rank gives neither a rank).
            view["result"] = {
                "score": result.score,
                "player_pairs": result.player_pairs,
                "opponent_pairs": result.opponent_pairs,
                "asks": result.asks,
                "rank": hooks.result_rank(result),
                "held": result.held,
                "disqualified": result.disqualified,
                "reason": result.review_reason if result.disqualified else None,
                # A newcomer's: ranked, the rank true, not on the public list yet.
                "provisional": result.provisional,
            }
    return view


def own_attempt(*, attempt_id: int, player: Player) -> Attempt | None:
    """The player's attempt with its day (None for another player's)."""
    return Attempt.objects.select_related("challenge").filter(pk=attempt_id, player=player).first()


def player_attempts(*, player) -> list[dict[str, Any]]:
    """The player's games, newest day first, as ``GET /api/players/me/attempts`` lists them."""
    rows = []
    for attempt in (
        Attempt.objects.filter(player=player).select_related("challenge", "result").order_by("-challenge__date", "-id")
    ):
        result = getattr(attempt, "result", None)
        rows.append(
            {
                "id": attempt.pk,
                "date": attempt.challenge.date.isoformat(),
                "ranked": attempt.ranked,
                "status": attempt.status,
                "asks": len(attempt.moves),
                "score": result.score if result else None,
            }
        )
    return rows


def parse_day(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text)
    except (TypeError, ValueError):
        return None


def public_replay(*, attempt_id: int, user, player: Player | None = None) -> Attempt | None:
    """A ranked, verified game whose day's seed is public: anyone may replay it face up.
    Before that moment only superusers may (the deal is still secret). A held game (under
    review) is private: only its own ``player`` and staff (reviewers) see its replay."""
    attempt = (
        Attempt.objects.select_related("challenge", "player", "result")
        .filter(pk=attempt_id, ranked=True, status=Attempt.Status.VERIFIED)
        .first()
    )
    if attempt is None:
        return None
    if not attempt.challenge.is_revealed(timezone.now()) and not getattr(user, "is_superuser", False):
        return None
    result = getattr(attempt, "result", None)
    held = result is not None and result.held
    if held and not getattr(user, "is_staff", False) and (player is None or player.pk != attempt.player_id):
        return None
    return attempt


def challenge_read(*, date_text: str) -> DailyChallenge:
    """The daily challenge of a day named in a URL, for a read: the stored row, or the
    same challenge derived and not stored when nobody has opened that day (a GET writes
    nothing; playing it stores it, ``services.challenge_on``). Its ``pk`` is then None
    and it has no results."""
    day = days.day_named(date_text)
    found = DailyChallenge.objects.filter(game=DAILY_GAME, date=day).first()
    return found if found is not None else DailyChallenge.of_day(day)


def challenge_of_day(*, day: dt.date, game: str) -> DailyChallenge | None:
    """The day's challenge if it has been made (``ensure_challenges`` makes them ahead)."""
    return DailyChallenge.objects.filter(date=day, game=game).first()


def ranked_attempt(*, player, challenge: DailyChallenge) -> Attempt | None:
    """The player's ranked game of that day, with its result if verified."""
    return Attempt.objects.select_related("result").filter(player=player, challenge=challenge, ranked=True).first()


def pending_replay(*, attempt_id: int, player) -> Attempt | None:
    """The player's own verified ranked game whose day is still secret: its replay opens
    at ``challenge.reveals_at`` (the page says when, rather than "not found")."""
    if player is None:
        return None
    attempt = (
        Attempt.objects.select_related("challenge")
        .filter(pk=attempt_id, player=player, ranked=True, status=Attempt.Status.VERIFIED)
        .first()
    )
    if attempt is None or attempt.challenge.is_revealed(timezone.now()):
        return None
    return attempt


def player_shown(*, player_id: int) -> Player | None:
    """A player's page: any player, a deleted account's too (its ranked days stay)."""
    return Player.objects.filter(pk=player_id).first()


@runtime_checkable
class Traced(Protocol):
    """An engine that shows a whole game face up (Pêche's: the daily game's replays); the
    Engine protocol of every game does not ask for it."""

    def trace(self, seed: str, moves: list[str]) -> list[dict[str, Any]]: ...


def replay_view(*, attempt: Attempt, mine: bool) -> dict[str, Any] | None:
    """A finished game face up, step by step (its engine's ``trace``), with its analysis
    when it is worked out (``attempt_analysis``; else the page asks the API for it, which
    hands it to a worker); None for a game whose engine has no face-up trace."""
    game = attempt.engine()
    if not isinstance(game, Traced):
        return None
    moves = list(attempt.moves)
    return {
        "id": attempt.pk,
        "name": attempt.player.shown_name,
        "date": attempt.challenge.date.isoformat(),
        "mine": mine,
        "steps": game.trace(attempt.challenge.seed, moves),
        "analysis": attempt_analysis(attempt=attempt),
    }


def operations_gauges() -> list[tuple[str, str, dict[str, str], float]]:
    """The gauges of state read at each scrape of /metrics (config/metrics.py): the games
    waiting for their verification, and whether the next day's deal exists before the close."""
    now = timezone.now()
    today = days.today(now)
    tomorrow = today + dt.timedelta(days=1)
    ready = DailyChallenge.objects.filter(game=DAILY_GAME, date=tomorrow).exists()
    return [
        (
            "peche_verification_backlog",
            "Finished games not verified yet (attempts verifying).",
            {},
            float(Attempt.objects.filter(status=Attempt.Status.VERIFYING).count()),
        ),
        ("peche_next_challenge_ready", "1 when the next day's Pêche deal exists.", {}, float(ready)),
        (
            "peche_day_closes_timestamp_seconds",
            "When today's deal closes (no new ranked game after it).",
            {},
            days.closes_at(today).timestamp(),
        ),
    ]


# --- The analysis of a finished day's games and the day's par ------------------------------


def analysable(*, attempt_id: int, user, player) -> tuple[str, Attempt | None]:
    """Whether the caller may read a game's analysis: one it may see replayed (``public_replay``:
    a ranked, verified game), once the day's seed is public: ("open", the attempt). Its own
    game of a day still open, or any a superuser may replay before the close: ("day_open",
    None): the analysis and the par tell something of the deal. Anything else: ("not_found", None)."""
    attempt = public_replay(attempt_id=attempt_id, user=user)
    if attempt is not None and attempt.challenge.is_revealed(timezone.now()):
        return "open", attempt
    if attempt is not None or pending_replay(attempt_id=attempt_id, player=player) is not None:
        return "day_open", None
    return "not_found", None


def day_par(*, challenge: DailyChallenge, now: dt.datetime | None = None) -> int | None:
    """The day's par once its seed is public and the par worked out; None before."""
    if challenge.pk is None or not challenge.is_revealed(now or timezone.now()):
        return None
    return (
        DayPar.objects.filter(challenge=challenge, version=analysis_game.VERSION)
        .values_list("score", flat=True)
        .first()
    )


def attempt_analysis(*, attempt: Attempt) -> dict[str, Any] | None:
    """The stored analysis of a game whose day's seed is public, with the day's par; None
    while it is not worked out (the caller asks analysis_jobs.analysis_wanted)."""
    if not attempt.challenge.is_revealed(timezone.now()):
        return None
    row = GameAnalysis.objects.filter(attempt=attempt, version=analysis_game.VERSION).first()
    if row is None:
        return None
    return {
        "par": day_par(challenge=attempt.challenge),
        "accuracy": row.accuracy,
        "luck": row.luck,
        "thresholds": {
            "inaccuracy": analysis_game.INACCURACY,
            "mistake": analysis_game.MISTAKE,
            "blunder": analysis_game.BLUNDER,
        },
        "asks": row.asks,
    }


def day_pars(*, days_shown: list[dt.date], game: str = DAILY_GAME) -> dict[dt.date, int]:
    """The par of each of ``days_shown`` whose seed is public and par worked out (the
    archive's list): one query."""
    now = timezone.now()
    return dict(
        DayPar.objects.filter(
            challenge__game=game,
            challenge__date__in=days_shown,
            challenge__reveals_at__lte=now,
            version=analysis_game.VERSION,
        ).values_list("challenge__date", "score")
    )
