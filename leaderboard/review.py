"""The fair-play review: what a reviewer sees of a day's ranked results and of one game,
and what their decisions do. The admin's pages (leaderboard/admin.py) show it; the queue's
rows are read by ``selectors.review_queue``, the decisions written by the services
(``result_clear``, ``result_disqualify``, ``group_decide``, ``week_decide``, and challenges'
``attempt_reverify``), each with who, when and why in the trail.

Who sees cards: the inspector shows both hands and the lake. It needs the permission to
view attempts, and while a day's seed is secret only superusers see that day's cards
(challenges.admin.may_see_cards)."""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from django.utils import timezone

from challenges import days, services
from challenges.models import DAILY_GAME, Attempt, DailyChallenge, Review
from games import fairplay
from games.rules import peche
from games.rules.base import GameError, ReplayError
from games.rules.events import event_json

from . import linking, spoke
from . import selectors as board
from .services import result_clear, result_disqualify

# --- the inspector: one game, ask by ask -------------------------------------------------


def inspector_data(attempt: Attempt) -> dict[str, Any]:
    """The attempt's game as the public replay shows it (the engine's trace: one render
    path with /replays/), with the layers only reviewers see on each ask: what the opponent
    knew of the player's hand when it was made, and the detector's evidence of it (the
    public chance of each of the player's ranks, which of them the opponent held, the ask's
    weight). A game the rules stop early, or one still being played, shows the asks it has.

    One replay: the face-up steps (``peche.steps``, what ``trace`` is made of) with the
    detector's watcher beside them, the opponent's knowledge read between two asks."""
    challenge = attempt.challenge
    moves = list(attempt.moves)
    watcher = fairplay.Watcher()
    steps: list[dict[str, Any]] = []
    knew = state = stopped = None
    try:
        for step in peche.steps(challenge.seed, moves, observer=watcher):
            state = step.state
            now_knew = state.knowledge.snapshot()
            steps.append(
                {
                    "ask": step.ask,
                    "events": [event_json(e) for e in step.events],
                    "reasons": step.reasons,
                    # The table face up, as ``trace`` writes it (the rules' own function:
                    # games/rules/peche.py has no public name for it yet).
                    **peche._table(state),
                    # When the player chose this step's ask (the deal's: what it was dealt).
                    "knew": now_knew if knew is None else knew,
                }
            )
            knew = now_knew
    except ReplayError as exc:  # a tampered or broken attempt: where the rules stop it
        refused = moves[exc.index]
        assert state is not None  # a deal is never refused
        try:
            peche.check_ask(state, refused)  # the rules' own words for the refusal
        except GameError as why:
            reason = str(why)
        else:  # not reached: steps stop exactly where an ask is refused
            reason = "refused"
        stopped = {"index": exc.index, "rank": str(refused), "reason": reason}
    assessment = fairplay.GameAssessment(watcher.asks, watcher.outcomes)
    for step_ in steps[1:]:
        step_["evidence"] = None
    for e in assessment.asks:
        steps[e.index + 1]["evidence"] = {**e.as_dict(), "informative": e.informative}
    return {
        "name": attempt.player.shown_name,
        "date": challenge.date.isoformat(),
        "mine": False,
        "steps": steps,
        "stopped": stopped,
        "suspicion": round(assessment.suspicion, 4),
        "threshold": round(fairplay.FLAG_THRESHOLD, 2),
        # Which channels carry the game's figure, in words (leaderboard/spoke.py).
        "spoke": spoke.channel_words(
            assessment.channels, {**assessment.tallies(), "asks": spoke.asks_tally(assessment.asks)}
        ),
    }


def inspector(attempt: Attempt, now: dt.datetime) -> dict[str, Any]:
    """What the inspector's page shows of ``attempt`` (its result and trail read with it)."""
    data = inspector_data(attempt)
    result = getattr(attempt, "result", None)
    weighed = [s["evidence"] for s in data["steps"][1:] if s.get("evidence")]
    heaviest = sorted((e for e in weighed if (e["llr"] or 0) > 0.05), key=lambda e: -e["llr"])[:5]
    return {
        "title": f"Replay of attempt {attempt.pk}",
        "attempt": attempt,
        "result": result,
        "data": data,
        "suspicion": data["suspicion"],
        "suspicion_times": times(data["suspicion"]),
        "threshold": round(fairplay.FLAG_THRESHOLD, 2),
        "threshold_times": times(fairplay.FLAG_THRESHOLD),
        "flagged": data["suspicion"] >= fairplay.FLAG_THRESHOLD,
        "game_level": f"{fairplay.GAME_LEVEL:.1%}",
        "informative": sum(1 for e in weighed if e["informative"]),
        "heaviest": [{"step": e["index"] + 1, "rank": e["rank"], "llr": e["llr"]} for e in heaviest],
        # Which channels carry the figures, in words: the game's as replayed here, the
        # week's and the history's as decided at verification.
        "spoke": {
            **(board.spoken(result) if result is not None else {"week": [], "history": []}),
            "game": data["spoke"],
        },
        "history": result.history_evidence if result is not None else None,
        "history_threshold": round(fairplay.HISTORY_THRESHOLD, 2),
        "history_level": f"{fairplay.HISTORY_LEVEL:.1%}",
        "undecided": undecided(attempt, now),
        "reviews": [done(r) for r in attempt.reviews.select_related("by")],
    }


# --- the queue: a day's ranked results, most suspicious first ------------------------------


def queue(day: dt.date, now: dt.datetime) -> dict[str, Any]:
    """What the review page shows of ``day``: its ranked results, most suspicious first
    (held ones among them), each with its trail and its ties in words; what the figures
    mean, with the detector's thresholds as numbers."""
    challenge = DailyChallenge.objects.filter(game=DAILY_GAME, date=day).first()
    rows = board.review_queue(challenge=challenge, limit=500) if challenge else []
    trail: dict[int, list[Review]] = {}
    for review in Review.objects.filter(attempt_id__in=[r["attempt"] for r in rows]).select_related("by"):
        trail.setdefault(review.attempt_id, []).append(done(review))
    for row in rows:
        row["trail"] = trail.get(row["attempt"], [])
        row["ties_words"] = ", ".join(TIES.get(t, t) for t in row["ties"])
        head = row["group_head"]
        if head and head["evidence"]:
            head["ties_words"] = ", ".join(TIES.get(t, t) for t in head["evidence"].get("ties", ()))
    return {
        "title": f"Fair-play review of {day:%Y-%m-%d}",
        "day": day,
        "day_state": day_state(day, challenge, now),
        "previous_day": day - dt.timedelta(days=1),
        "next_day": day + dt.timedelta(days=1),
        "challenge": challenge,
        "rows": rows,
        "threshold": round(fairplay.FLAG_THRESHOLD, 2),
        "threshold_times": times(fairplay.FLAG_THRESHOLD),
        "two_times": times(2.0),
        "week_threshold": round(fairplay.WEEK_THRESHOLD, 2),
        "week_threshold_times": times(fairplay.WEEK_THRESHOLD),
        "game_level": f"{fairplay.GAME_LEVEL:.1%}",
        "week_level": f"{fairplay.WEEK_LEVEL:.1%}",
        "history_threshold": round(fairplay.HISTORY_THRESHOLD, 2),
        "history_threshold_times": times(fairplay.HISTORY_THRESHOLD),
        "history_level": f"{fairplay.HISTORY_LEVEL:.1%}",
        "flagged": sum(1 for r in rows if r["reasons"]),
        "explored": linking.EXPLORED_MIN_LINES,
        "copy_min": linking.COPY_MIN_CHOICES,
        "fresh_days": linking.FRESH_DAYS,
    }


def times(nats: float) -> str:
    """e ** ``nats`` in words a reviewer reads at a glance: "3.2", "55", "1,100", "over a million"."""
    ratio = math.exp(min(nats, 50.0))
    if ratio >= 1e6:
        return "over a million"
    if ratio >= 1000:
        return f"{round(ratio, -2):,.0f}" if ratio < 10_000 else f"{round(ratio, -3):,.0f}"
    return f"{ratio:.0f}" if ratio >= 10 else f"{ratio:.1f}"


# What ties linked accounts, in words (linking.ties_of's kinds).
TIES = {
    "address": "same address",
    "network": "same network",
    "device": "same device",
    "burst": "one burst of sign-ups",
    "copy": "a line another account played first",
}


def day_state(day: dt.date, challenge: DailyChallenge | None, now: dt.datetime) -> str | None:
    """Why a day's queue is not final yet, in a sentence; None once the day is closed."""
    if day > days.today(now):
        return "This day has not begun: nobody has played it yet, so there is nothing to review or decide."
    if challenge is not None and now < challenge.reveals_at:
        until = timezone.localtime(challenge.reveals_at)
        return (
            f"This day is still open: its games take asks until {until:%Y-%m-%d %H:%M %Z}, so more results will come"
            " and a week's figures may still change. Games still being played cannot be decided yet."
        )
    return None


def undecided(attempt: Attempt, now: dt.datetime) -> str | None:
    """Why an attempt has nothing to decide on yet, in a sentence; None when it has a result."""
    challenge = attempt.challenge
    status = attempt.status
    if status == Attempt.Status.PLAYING:
        if challenge.date > days.today(now):
            return (
                f"This game cannot be decided yet: its day, {challenge.date:%Y-%m-%d}, has not begun, and the game is"
                " still being played. There is no result to clear or disqualify until it is finished and verified."
            )
        if now < challenge.reveals_at:
            return (
                f"This game cannot be decided yet: it is still being played, and its day, {challenge.date:%Y-%m-%d},"
                f" takes asks until {timezone.localtime(challenge.reveals_at):%Y-%m-%d %H:%M %Z}. There is no result"
                " to clear or disqualify until it is finished and verified."
            )
        return (
            "This game was never finished: its day closed while it was being played, so it never ranks and"
            " there is nothing to decide."
        )
    if status == Attempt.Status.VERIFYING:
        return "This game is being verified: its result is not written yet. Re-verify starts the check again."
    if status == Attempt.Status.REJECTED:
        return f"The verification refused this game ({attempt.reject_reason}): it has no result and never ranks."
    if getattr(attempt, "result", None) is None:
        return "This game has no result: it is not ranked, so there is nothing to decide."
    return None


# --- decisions ------------------------------------------------------------------------


def decide(attempts: list[Attempt], decision: str, *, by, reason: str) -> int:
    """One decision (``reverify``, ``disqualify``, ``restore``, ``clear``) on each attempt it
    applies to as it stands; how many it changed."""
    changed = 0
    for attempt in attempts:
        result = getattr(attempt, "result", None)
        if decision == "reverify" and attempt.status != Attempt.Status.PLAYING:
            services.attempt_reverify(attempt_id=attempt.pk, by=by, reason=reason)
        elif decision in ("disqualify", "restore") and result is not None:
            result_disqualify(result_id=result.pk, disqualified=decision == "disqualify", by=by, reason=reason)
        elif decision == "clear" and result is not None and result.held:
            result_clear(result_id=result.pk, by=by, reason=reason)
        else:
            continue
        changed += 1
    return changed


# What each decision did, as the trail says it.
DONE = {
    "clear": "cleared",
    "disqualify": "disqualified",
    "restore": "restored",
    "reverify": "sent to verification again",
}


def done(review: Review) -> Review:
    review.done = DONE.get(review.action, review.action)  # type: ignore[attr-defined]  # the template's words
    return review


def state_words(attempt: Attempt) -> str:
    result = getattr(attempt, "result", None)
    if result is None:
        return attempt.get_status_display().lower()
    return "disqualified" if result.disqualified else "held until reviewed" if result.held else "ranked"


def decision_form(form, decisions: tuple[str, ...]) -> tuple[list[int], str, str] | None:
    """A review decision's form (members, the games as shown; decision; reason), or None if
    it lacks a reason, names another decision or holds a member that is no id."""
    members = [whole(m) for m in (form.get("members") or "").split(",")]
    decision = form.get("decision") or ""
    reason = (form.get("reason") or "").strip()
    if not reason or decision not in decisions or 0 in members:
        return None
    return members, decision, reason


def whole(text) -> int:
    """A positive id from a form field, 0 for anything else."""
    text = (text or "").strip()
    return int(text) if re.fullmatch(r"[0-9]{1,18}", text) else 0
