"""Admin: results, and the attempts' admin with the replay inspector and the fair-play
review queue (it shows each attempt's result and clears, disqualifies or restores it, all
leaderboard's: a flagged result is held off the ranking until a reviewer clears it; the attempts themselves are challenges'). Attempts and results are never
written by hand: only a replay writes a result, and every disqualification, restoration
and re-verification is kept with who, when and why.

Who sees cards: the inspector shows both hands and the lake. It needs the permission to
view attempts, and while a day's seed is secret only superusers see that day's cards
(challenges.admin.may_see_cards)."""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import SimpleTemplateResponse, TemplateResponse
from django.urls import path, reverse
from django.utils import timezone, translation
from django.utils.html import format_html
from django.views.i18n import JavaScriptCatalog

from challenges import days, services
from challenges.admin import ReadOnlyAdmin, may_see_cards
from challenges.models import Attempt, DailyChallenge, Review
from games import fairplay
from games.rules import peche
from games.rules.base import GameError, ReplayError

from . import linking, spoke
from . import selectors as board
from .models import Result
from .services import ReviewRefused, group_decide, result_clear, result_disqualify, week_decide


def inspector_data(attempt: Attempt) -> dict[str, Any]:
    """The attempt's game as the public replay shows it (the engine's trace: one render
    path with /replays/), with the layers only reviewers see on each ask: what the opponent
    knew of the player's hand when it was made, and the detector's evidence of it (the
    public chance of each of the player's ranks, which of them the opponent held, the ask's
    weight). A game the rules stop early, or one still being played, shows the asks it has."""
    challenge = attempt.challenge
    game = peche.ENGINE  # the daily game is Pêche
    moves = list(attempt.moves)
    steps = game.trace(challenge.seed, moves)
    played = moves[: len(steps) - 1]
    try:
        assessment = fairplay.assess(challenge.seed, played)
    except ReplayError:  # unfinished: the evidence of the asks so far
        assessment = fairplay.assess(challenge.seed, played, partial=True)
    evidence = {e.index: e for e in assessment.asks}
    state = game.new(seed=challenge.seed)
    steps[0]["knew"] = state.knowledge.snapshot()
    for index, (step, move) in enumerate(zip(steps[1:], played)):
        step["knew"] = state.knowledge.snapshot()  # when the player chose this ask
        e = evidence.get(index)
        step["evidence"] = None if e is None else {**e.as_dict(), "informative": e.informative}
        game.apply(state, move)
    stopped = None
    if len(played) < len(moves):  # a tampered or broken attempt: where the rules stop it
        try:
            game.apply(state, moves[len(played)])
        except GameError as exc:
            stopped = {"index": len(played), "rank": str(moves[len(played)]), "reason": str(exc)}
        else:  # not reached: trace stops exactly where apply refuses
            stopped = {"index": len(played), "rank": str(moves[len(played)]), "reason": "refused"}
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


@admin.register(Attempt)
class AttemptAdmin(ReadOnlyAdmin):
    list_display = ("id", "player", "challenge", "ranked", "status", "asks_made", "suspicion", "finished_at", "inspect")
    list_filter = ("status", "ranked", "challenge__date")
    search_fields = ("player__name",)
    fields = (
        "player",
        "challenge",
        "ranked",
        "asks_made",
        "status",
        "reject_reason",
        "started_at",
        "finished_at",
        "verify_enqueued_at",
        "inspect",
    )
    readonly_fields = fields
    actions = ["reverify", "clear", "disqualify", "restore"]

    def has_review_permission(self, request):
        return request.user.has_perm("challenges.review_attempt")

    @admin.display(description="asks")
    def asks_made(self, obj):
        return len(obj.moves)

    @admin.display(description="suspicion")
    def suspicion(self, obj):
        result = getattr(obj, "result", None)
        return None if result is None else f"{result.suspicion:.1f}{' ⚑' if result.flagged else ''}"

    @admin.display(description="replay")
    def inspect(self, obj):
        return format_html('<a href="{}">inspect</a>', reverse("admin:challenges_attempt_replay", args=[obj.pk]))

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("player", "challenge", "result")

    def get_urls(self):
        return [
            path(
                "<int:attempt_id>/replay/",
                self.admin_site.admin_view(self.replay_view),
                name="challenges_attempt_replay",
            ),
            path("review/", self.admin_site.admin_view(self.review_view), name="challenges_attempt_review"),
            path("words.js", self.admin_site.admin_view(self.catalog_view), name="challenges_attempt_words"),
            path("review/decide/", self.admin_site.admin_view(self.decide_view), name="challenges_attempt_decide"),
            *super().get_urls(),
        ]

    def replay_view(self, request, attempt_id: int):
        if not self.has_view_permission(request):
            raise PermissionDenied
        attempt = get_object_or_404(Attempt.objects.select_related("challenge", "player", "result"), pk=attempt_id)
        if not may_see_cards(request, attempt.challenge):
            raise PermissionDenied
        data = inspector_data(attempt)
        result = getattr(attempt, "result", None)
        weighed = [s["evidence"] for s in data["steps"][1:] if s.get("evidence")]
        heaviest = sorted((e for e in weighed if (e["llr"] or 0) > 0.05), key=lambda e: -e["llr"])[:5]
        context = {
            **self.admin_site.each_context(request),
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
            "undecided": undecided(attempt, timezone.now()),
            "reviews": [_done(r) for r in attempt.reviews.select_related("by")],
            "may_review": self.has_review_permission(request),
            "opts": self.model._meta,
        }
        return _english(TemplateResponse(request, "admin/challenges/attempt_replay.html", context))

    def catalog_view(self, request):
        """The replay's words (its JavaScript catalogue) in English, as the admin's pages are."""
        with translation.override("en"):
            return JavaScriptCatalog.as_view()(request)

    def review_view(self, request):
        """The day's ranked results, most suspicious first (held ones among them), with
        one-click decisions: Clear a held result, Disqualify, Restore. What the figures mean
        is said on the page in words, with the detector's thresholds as numbers."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            day = dt.date.fromisoformat(request.GET.get("date", ""))
        except ValueError:
            day = days.today()
        challenge = DailyChallenge.objects.filter(game=services.DAILY_GAME, date=day).first()
        rows = board.review_queue(challenge=challenge, limit=500) if challenge else []
        trail: dict[int, list[Review]] = {}
        for review in Review.objects.filter(attempt_id__in=[r["attempt"] for r in rows]).select_related("by"):
            trail.setdefault(review.attempt_id, []).append(_done(review))
        for row in rows:
            row["trail"] = trail.get(row["attempt"], [])
            row["ties_words"] = ", ".join(TIES.get(t, t) for t in row["ties"])
            head = row["group_head"]
            if head and head["evidence"]:
                head["ties_words"] = ", ".join(TIES.get(t, t) for t in head["evidence"].get("ties", ()))
        now = timezone.now()
        context = {
            **self.admin_site.each_context(request),
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
            "may_review": self.has_review_permission(request),
            "opts": self.model._meta,
        }
        return _english(TemplateResponse(request, "admin/challenges/attempt_review.html", context))

    def decide_view(self, request):
        """One decision from the review queue or the inspector (POST: attempt, decision, reason)."""
        if request.method != "POST" or not self.has_review_permission(request):
            raise PermissionDenied
        if request.POST.get("group"):
            return self._decide_group(request)
        if request.POST.get("week"):
            return self._decide_week(request)
        attempt = get_object_or_404(
            Attempt.objects.select_related("result", "challenge"), pk=request.POST.get("attempt") or 0
        )
        decision = request.POST.get("decision")
        reason = (request.POST.get("reason") or "").strip()
        back = (
            request.POST.get("next") or reverse("admin:challenges_attempt_review") + f"?date={attempt.challenge.date}"
        )
        if not back.startswith("/admin/"):
            back = reverse("admin:index")
        if not reason:
            self.message_user(request, "Say why: a decision without a reason is not recorded.", messages.ERROR)
            return redirect(back)
        blocked = undecided(attempt, timezone.now())
        if blocked and (attempt.status == Attempt.Status.PLAYING or decision != "reverify"):
            self.message_user(request, f"Attempt {attempt.pk}: {blocked}", messages.WARNING)
            return redirect(back)
        if self._decide(request, [attempt], decision, reason):
            self.message_user(request, f"Attempt {attempt.pk} {DONE.get(decision, decision)}.", messages.SUCCESS)
        else:
            self.message_user(
                request, f"Attempt {attempt.pk}: nothing to do, it is {_state(attempt)}.", messages.WARNING
            )
        return redirect(back)

    def _decide_group(self, request):
        """One decision for a group of linked accounts (POST: group, members as shown,
        decision, reason): Clear all (its held games rank), Disqualify all, Restore all."""
        first = get_object_or_404(Attempt.objects.select_related("challenge"), pk=_whole(request.POST.get("group")))
        back = reverse("admin:challenges_attempt_review") + f"?date={first.challenge.date}"
        form = _decision_form(request, ("clear", "disqualify", "restore"))
        if form is None:
            self.message_user(request, "Say why, and choose Clear, Disqualify or Restore.", messages.ERROR)
            return redirect(back)
        members, decision, reason = form
        try:
            done = group_decide(
                challenge_id=first.challenge_id, attempt_ids=members, decision=decision, by=request.user, reason=reason
            )
        except ReviewRefused as refused:
            self.message_user(request, f"group {first.pk}: {refused.detail}", messages.ERROR)
            return redirect(back)
        self.message_user(request, f"group {first.pk}: {decision} ({done} result(s))", messages.SUCCESS)
        return redirect(back)

    def _decide_week(self, request):
        """One decision for a player's flagged week (POST: week, the result whose week it
        is; members, its games as shown; decision, reason): Clear the week (its held games
        rank) or Disqualify the week."""
        result = get_object_or_404(Result.objects.select_related("challenge"), pk=_whole(request.POST.get("week")))
        back = reverse("admin:challenges_attempt_review") + f"?date={result.challenge.date}"
        form = _decision_form(request, ("clear", "disqualify"))
        if form is None:
            self.message_user(request, "Say why, and choose Clear the week or Disqualify the week.", messages.ERROR)
            return redirect(back)
        members, decision, reason = form
        try:
            done = week_decide(
                result_id=result.pk, attempt_ids=members, decision=decision, by=request.user, reason=reason
            )
        except ReviewRefused as refused:
            self.message_user(request, f"week of attempt {result.attempt_id}: {refused.detail}", messages.ERROR)
            return redirect(back)
        self.message_user(
            request, f"week of attempt {result.attempt_id}: {DONE[decision]} ({done} result(s))", messages.SUCCESS
        )
        return redirect(back)

    def _decide(self, request, attempts, decision: str, reason: str) -> int:
        done = 0
        for attempt in attempts:
            result = getattr(attempt, "result", None)
            if decision == "reverify" and attempt.status != Attempt.Status.PLAYING:
                services.attempt_reverify(attempt_id=attempt.pk, by=request.user, reason=reason)
            elif decision in ("disqualify", "restore") and result is not None:
                result_disqualify(
                    result_id=result.pk, disqualified=decision == "disqualify", by=request.user, reason=reason
                )
            elif decision == "clear" and result is not None and result.held:
                result_clear(result_id=result.pk, by=request.user, reason=reason)
            else:
                continue
            done += 1
        return done

    def _action(self, request, queryset, decision: str, title: str):
        """A list action asks for the reason on a page of its own, then decides."""
        reason = (request.POST.get("reason") or "").strip()
        attempts = list(queryset.select_related("result", "player", "challenge"))
        if request.POST.get("apply") and reason:
            done = self._decide(request, attempts, decision, reason)
            level = messages.SUCCESS if done else messages.WARNING
            self.message_user(request, f"{title}: done on {done} of {len(attempts)} attempt(s).", level)
            return None
        return _english(
            TemplateResponse(
                request,
                "admin/challenges/attempt_reason.html",
                {
                    **self.admin_site.each_context(request),
                    "title": title,
                    "attempts": attempts,
                    "action": decision,
                    "opts": self.model._meta,
                },
            )
        )

    @admin.action(description="Re-verify (replay from seed + asks)", permissions=["review"])
    def reverify(self, request, queryset):
        return self._action(request, queryset.exclude(status=Attempt.Status.PLAYING), "reverify", "Re-verify")

    @admin.action(description="Clear the held result (it ranks in its place)", permissions=["review"])
    def clear(self, request, queryset):
        return self._action(request, queryset, "clear", "Clear")

    @admin.action(description="Disqualify the result", permissions=["review"])
    def disqualify(self, request, queryset):
        return self._action(request, queryset, "disqualify", "Disqualify")

    @admin.action(description="Restore the result to the ranking", permissions=["review"])
    def restore(self, request, queryset):
        return self._action(request, queryset, "restore", "Restore")


# What each decision did, as the trail says it.
DONE = {
    "clear": "cleared",
    "disqualify": "disqualified",
    "restore": "restored",
    "reverify": "sent to verification again",
}


def _done(review: Review) -> Review:
    review.done = DONE.get(review.action, review.action)  # type: ignore[attr-defined]  # the template's words
    return review


def _state(attempt: Attempt) -> str:
    result = getattr(attempt, "result", None)
    if result is None:
        return attempt.get_status_display().lower()
    return "disqualified" if result.disqualified else "held until reviewed" if result.held else "ranked"


def _english(response: TemplateResponse) -> SimpleTemplateResponse:
    """The admin's own pages are English whatever the reviewer's browser asks for (their
    words are the reviewers', not the players'): rendered so, Django's frame included."""
    with translation.override("en"):
        return response.render()


def _decision_form(request, decisions: tuple[str, ...]) -> tuple[list[int], str, str] | None:
    """A review decision's form (members, the games as shown; decision; reason), or None if
    it lacks a reason, names another decision or holds a member that is no id."""
    members = [_whole(m) for m in (request.POST.get("members") or "").split(",")]
    decision = request.POST.get("decision") or ""
    reason = (request.POST.get("reason") or "").strip()
    if not reason or decision not in decisions or 0 in members:
        return None
    return members, decision, reason


def _whole(text) -> int:
    """A positive id from a form field, 0 for anything else."""
    text = (text or "").strip()
    return int(text) if re.fullmatch(r"[0-9]{1,18}", text) else 0


@admin.register(Result)
class ResultAdmin(ReadOnlyAdmin):
    """Results are written by the verification replay only; decisions on them (clear,
    disqualify, restore, re-verify) are taken on attempts, where the trail keeps who, when and why."""

    list_display = (
        "id",
        "player",
        "challenge",
        "ranked",
        "score",
        "asks",
        "player_pairs",
        "opponent_pairs",
        "suspicion",
        "flagged",
        "held",
        "finished_at",
        "disqualified",
        "indexed",
    )
    list_filter = ("ranked", "held", "disqualified", "flagged", "challenge__date")
    search_fields = ("player__name",)
