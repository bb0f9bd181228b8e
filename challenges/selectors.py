"""Reads: what a player may see of challenges and attempts."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from games.rules.registry import engine

from . import hooks
from .models import Attempt, DailyChallenge


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
    """The player's view of an attempt (seat 0 only: nothing of the opponent's hand or the lake)."""
    game = engine(attempt.challenge.game)
    if state is None:
        state = attempt.state()
    view = {
        "id": attempt.pk,
        "status": attempt.status,
        "date": attempt.challenge.date.isoformat(),
        "ranked": attempt.ranked,
        "move": len(attempt.moves),
        **game.view(state, 0),
    }
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
            }
    if events is not None:
        view["events"] = [game.event_view(e, 0) for e in events]
    return view


def player_attempts(*, player) -> list[Attempt]:
    return list(Attempt.objects.filter(player=player).select_related("challenge").order_by("-challenge__date", "-id"))


def parse_day(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text)
    except (TypeError, ValueError):
        return None


def public_replay(*, attempt_id: int, user) -> Attempt | None:
    """A ranked, verified game whose day's seed is public: anyone may replay it face up.
    Before that moment only superusers may (the deal is still secret)."""
    attempt = (
        Attempt.objects.select_related("challenge", "player", "result")
        .filter(pk=attempt_id, ranked=True, status=Attempt.Status.VERIFIED)
        .first()
    )
    if attempt is None:
        return None
    if not attempt.challenge.is_revealed(timezone.now()) and not getattr(user, "is_superuser", False):
        return None
    return attempt


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
