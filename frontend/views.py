"""Page views: thin shells around the JSON API. The daily game itself is played by
static/frontend/daily.js; the leaderboard and player pages are rendered here from the
same selectors the API uses."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.html import format_html

from casual import selectors as casual
from challenges import days, selectors
from challenges.auth import current_player
from challenges.services import DAILY_GAME
from leaderboard import caching
from leaderboard import selectors as board
from leagues import selectors as leagues

from . import how_to_play

PAGE_SIZE = 50
ARCHIVE_DAYS = 30


def _day_or_404(text: str) -> dt.date:
    """A day that has a challenge: from the first one (FIRST_DAY) to today."""
    day = selectors.parse_day(text)
    if day is None or day < settings.FIRST_DAY or day > days.today():
        raise Http404("no such day")
    return day


def _today_status(player, challenge) -> dict[str, Any]:
    """Where the visitor stands with today's deal: not started, playing (asks so far), or
    finished (verifying; ranked with score, rank, players and streak; under review)."""
    attempt = selectors.ranked_attempt(player=player, challenge=challenge) if player and challenge else None
    if attempt is None:
        return {"state": "new"}
    if attempt.status == attempt.Status.PLAYING:
        return {"state": "playing", "asks": len(attempt.moves), "day_closed": challenge.is_revealed(timezone.now())}
    result = getattr(attempt, "result", None)
    if attempt.status != attempt.Status.VERIFIED or result is None:
        return {"state": "verifying" if attempt.status == attempt.Status.VERIFYING else "rejected"}
    return {"state": "done", "score": result.score, "asks": result.asks, **board.standing(result)}


def home(request):
    """The hub: today's deal and where you stand in it, the next deal, your casual games."""
    player = current_player(request)
    today = days.today()
    challenge = selectors.challenge_of_day(day=today, game=DAILY_GAME)
    owner = casual.owner_of_visitor(player=player, session=getattr(request, "session", None))
    return render(
        request,
        "frontend/home.html",
        {
            "today": today,
            "player": player,
            "next_deal": days.closes_at(today),
            "status": _today_status(player, challenge),
            "tallies": {game: casual.casual_tally(owner=owner, game=game) for game in ("kitten", "gofish")},
            "played_casual": owner is not None,
            # Your place in each of your leagues today (leagues.selectors.places).
            "league_places": leagues.places(player, today) if player else [],
            **established(),
        },
    )


def daily(request, date: str | None = None):
    today = days.today()
    day = today if date is None else _day_or_404(date)
    if date is not None and day == today:
        return redirect("daily")
    player = current_player(request)
    # Today's ranked game, if the player started it: the page resumes it. Without one the
    # page waits for the player's Start; nothing is created by a look (a GET writes nothing).
    started = None
    if player is not None and day == today:
        challenge = selectors.challenge_of_day(day=today, game=DAILY_GAME)
        started = selectors.ranked_attempt(player=player, challenge=challenge) if challenge else None
    return render(
        request,
        "frontend/daily.html",
        {
            "player_data": {"id": player.pk, "name": player.name} if player else None,
            "attempt_id": started.pk if started else None,
            "day": day,
            "date_param": "today" if day == today else day.isoformat(),
            "practice": day != today,
            **established(),
        },
    )


def archive(request):
    today = days.today()
    past = [
        today - dt.timedelta(days=n)
        for n in range(1, ARCHIVE_DAYS + 1)
        if today - dt.timedelta(days=n) >= settings.FIRST_DAY
    ]
    pars = selectors.day_pars(days_shown=past)  # a closed day's par, once the beat worked it out
    return render(request, "frontend/archive.html", {"today": today, "past": [(day, pars.get(day)) for day in past]})


# When a newcomer is listed, in the same words on the hub, the daily end panel and the board.
def established() -> dict[str, int]:
    return {"established_days": settings.ESTABLISHED_DAYS, "established_window": settings.ESTABLISHED_WINDOW}


def _row(entry: dict) -> dict:
    # The selector's entry keys have changed shape before ("name" vs "player__name").
    # The finish time is shown in the challenge's own timezone: it breaks ties.
    finished = entry.get("finished_at")
    return {
        **entry,
        "name": entry.get("name", entry.get("player__name")),
        "finished": finished.astimezone(days.zone()) if finished else None,
    }


def leaderboard_go(request):
    day = selectors.parse_day(request.GET.get("date", ""))
    if day is not None and day < settings.FIRST_DAY:
        day = settings.FIRST_DAY
    return redirect("leaderboard", date=(day if day and day <= days.today() else days.today()).isoformat())


def leaderboard(request, date: str):
    day = _day_or_404(date)
    challenge = selectors.challenge_read(date_text=day.isoformat())
    try:
        page = min(max(1, int(request.GET.get("page", "1"))), 10**6)  # beyond: an empty page, not a DB error
    except ValueError:
        page = 1
    data = board.leaderboard_page(challenge_id=challenge.pk, offset=(page - 1) * PAGE_SIZE, limit=PAGE_SIZE)
    pages = max(1, -(-data["listed"] // PAGE_SIZE))
    player = current_player(request)
    mine: dict[str, Any] | None = None
    if player is not None:
        result = board.player_result(challenge_id=challenge.pk, player_id=player.pk)
        # A held result is not ranked (nor in the histogram) until a reviewer clears it.
        if result is not None and not result.disqualified and not result.held:
            rank = board.result_rank(result, index_ready=data["indexed"])
            mine = {
                "rank": rank,
                "score": result.score,
                # A newcomer's row is not on the public list: its own rank only, marked so.
                "provisional": result.provisional,
                "page": (rank - 1) // PAGE_SIZE + 1 if rank and not result.provisional else None,
            }
            if challenge.is_revealed(timezone.now()):
                # "Check this day" replays the viewer's own game too: a newcomer's is not in
                # the archive (nor listed), and on a new site's first days nothing else is.
                mine["game"] = {
                    "rank": rank,
                    "player": player.name,
                    "moves": list(result.attempt.moves),
                    "score": result.score,
                    "asks": result.asks,
                    "player_pairs": result.player_pairs,
                    "listed": not result.provisional,
                }
    today = days.today()
    # Public (a CDN may keep it) only for a settled day and an anonymous visitor: a signed-in
    # player's page holds their row, rank and name (leaderboard/caching.py).
    # None before the close, and until the beat has worked it out (pars_due): a page reads.
    par = selectors.day_par(challenge=challenge)
    # A page without its par is not kept by a CDN: the par comes minutes after the close.
    public = (
        not request.user.is_authenticated
        and board.day_settled(challenge=challenge, now=timezone.now())
        and par is not None
    )
    context = {
        "par": par,
        "day": day,
        "today": today,
        "challenge": selectors.challenge_public(challenge),
        "entries": [_row(e) for e in data["entries"]],
        "total": data["total"],
        "unlisted": data["total"] - data["listed"],
        **established(),
        "newcomers": [_row(e) for e in board.day_newcomers(challenge_id=challenge.pk)],
        "page": page,
        "pages": pages,
        "player": player,
        "mine": mine,
        # Drawn by histogram.js, as on the daily game's end panel; ``mine`` marks the viewer's bar.
        "histogram": {
            "bins": board.score_histogram(challenge_id=challenge.pk),
            "mine": mine["score"] if mine else None,
        },
        "previous_day": day - dt.timedelta(days=1) if day > settings.FIRST_DAY else None,
        "next_day": day + dt.timedelta(days=1) if day < today else None,
    }
    if public:
        # No CSRF token in a page served to everybody (nor its cookie): the language form
        # posts without one (config/urls.py).
        context["csrf_token"] = ""
    response = render(request, "frontend/leaderboard.html", context)
    # Its language comes from Accept-Language or the language cookie.
    return caching.mark(response, public=public, vary=("Accept-Language", "Cookie"))


def me(request):
    player = current_player(request)
    if player is not None:
        return redirect("player", player_id=player.pk)
    return render(
        request,
        "frontend/player.html",
        {"shown": None, "is_me": False, "player": None, "deleted": request.GET.get("deleted") == "1"},
    )


CHART_WIDTH, CHART_HEIGHT = 300, 60


def accuracy_chart(trend: dict[str, Any] | None) -> dict[str, Any] | None:
    """The accuracy trend as the points of a small SVG line (0–100 % bottom to top)."""
    if trend is None:
        return None
    days = trend["days"]
    step = CHART_WIDTH / max(1, len(days) - 1)
    dots = [(round(i * step, 1), round(CHART_HEIGHT - CHART_HEIGHT * a / 100, 1)) for i, (_, a) in enumerate(days)]
    points = " ".join(f"{x},{y}" for x, y in dots)
    change = None if trend["before"] is None else trend["recent"] - trend["before"]
    return {
        **trend,
        "points": points,
        "dots": dots,
        "middle": CHART_HEIGHT // 2,
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "change": change,
        "recent_text": f"{trend['recent']:.0f} %",
        "first": days[0][0],
        "last": days[-1][0],
    }


def player(request, player_id: int):
    shown = selectors.player_shown(player_id=player_id)
    if shown is None:
        raise Http404("no such player")
    viewer = current_player(request)
    is_me = viewer is not None and viewer.pk == shown.pk
    # Your own accuracy, once the day is over (yours to see, day by day). Held results are
    # private: listed for their player ("under review") and reviewers only.
    private = is_me or request.user.is_staff
    rows = board.player_days(player_id=shown.pk, game=DAILY_GAME, accuracy=is_me, now=timezone.now(), private=private)
    counted = [r for r in rows if not r["disqualified"] and not r["held"]]
    # Today's game may still be ahead: a run that ended yesterday is still the current one.
    streaks = board.player_streaks(player_id=shown.pk, game=DAILY_GAME, day=days.today(), ongoing=True)
    return render(
        request,
        "frontend/player.html",
        {
            "shown": shown,
            "player": viewer,
            "is_me": is_me,
            "has_password": shown.user is not None and shown.user.has_usable_password(),
            "rows": rows,
            "best": max((r["score"] for r in counted), default=None),
            "current_streak": streaks.streak,
            "longest_streak": streaks.best_streak,
            "trend": accuracy_chart(board.accuracy_trend(rows)) if is_me else None,
        },
    )


def replay(request, attempt_id: int):
    """A finished day's game face up, step by step, with the opponent's reasons; the
    player's own replay also marks the asks where the table offered better."""
    viewer = current_player(request)
    attempt = selectors.public_replay(attempt_id=attempt_id, user=request.user, player=viewer)
    if attempt is None:
        pending = selectors.pending_replay(attempt_id=attempt_id, player=viewer)
        if pending is None:
            raise Http404("no replay of this game (yet)")
        # Your own game, its deal still secret: the page says when it opens.
        opens = pending.challenge.reveals_at.astimezone(days.zone())
        opens_at = format_html(
            '<time data-moment="full" datetime="{}">{}</time>', opens.isoformat(), opens.strftime("%Y-%m-%d %H:%M %Z")
        )
        return render(
            request, "frontend/replay_pending.html", {"attempt": pending, "player": viewer, "opens_at": opens_at}
        )
    mine = viewer is not None and viewer.pk == attempt.player_id
    data = selectors.replay_view(attempt=attempt, mine=mine)
    if data is None:
        raise Http404("no replay of this game")
    return render(
        request,
        "frontend/replay.html",
        {
            "attempt": attempt,
            "result": getattr(attempt, "result", None),
            "replay_data": data,
            "mine": mine,
            "player": viewer,
        },
    )


def rules(request):
    """How to play: the rules in the page's language, with a worked example that the
    rules engine plays (frontend/how_to_play.py)."""
    return render(request, "frontend/rules.html", how_to_play.context())


# The rules specification as the repository keeps it (a byte-identical copy of the published
# one): the deal of a closed day can be checked with it by anyone, without this site's code.
RULES_SPEC = settings.BASE_DIR / "docs" / "rules.md"


def rules_spec(request):
    return HttpResponse(RULES_SPEC.read_bytes(), content_type="text/markdown; charset=utf-8")
