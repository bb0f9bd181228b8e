from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from challenges.api import require_player
from challenges.selectors import challenge_read
from config import openapi as doc
from config.errors import ApiError

from . import caching, positions, selectors


def _int_param(request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise ApiError("bad_param", f"'{name}' is an integer from {low} to {high}")
    return int(raw)


def _public(entry: dict) -> dict:
    return {k: entry[k] for k in ("rank", "name", "score", "asks", "player_pairs", "opponent_pairs")}


class LeaderboardView(APIView):
    @extend_schema(
        operation_id="leaderboard_page",
        tags=["leaderboard"],
        parameters=[doc.DATE, doc.OFFSET, doc.LIMIT],
        responses={
            200: doc.Leaderboard,
            **doc.errors(
                (400, doc.error("`bad_date` or `bad_param`")), (404, doc.error("`not_found`: the day has not started"))
            ),
        },
        description="The day's verified ranked results: score desc, then fewer asks, then earlier finish. "
        "A newcomer's result (provisional: its player has not played enough days yet) ranks but is not "
        "listed: the entries' ranks leave a gap where it stands; `offset` and `limit` page through the listed ones. "
        "The day's newcomers are in `newcomers`, apart and unnumbered.",
    )
    def get(self, request, date: str):
        challenge = challenge_read(date_text=date)
        offset = _int_param(request, "offset", 0, 0, 10**8)
        limit = _int_param(request, "limit", 50, 1, 200)
        page = selectors.leaderboard_page(challenge_id=challenge.pk, offset=offset, limit=limit)
        answer = Response(
            {
                "date": challenge.date.isoformat(),
                "total": page["total"],
                "listed": page["listed"],
                "offset": offset,
                "limit": limit,
                "entries": [_public(e) for e in page["entries"]],
                # Not paged: the best few, whichever page is asked (as the page shows them under each).
                "newcomers": [
                    {k: e[k] for k in ("name", "score", "asks", "player_pairs", "opponent_pairs")}
                    for e in selectors.day_newcomers(challenge_id=challenge.pk)
                ],
            }
        )
        return caching.mark(answer, public=selectors.day_settled(challenge=challenge, now=timezone.now()))


class LeaderboardMeView(APIView):
    @extend_schema(
        operation_id="leaderboard_me",
        tags=["leaderboard"],
        parameters=[doc.DATE],
        responses={
            200: doc.LeaderboardMe,
            **doc.errors(
                (400, doc.error("`bad_date`")),
                (401, doc.NOT_AUTHENTICATED),
                (404, doc.error("`not_found`: no ranked result for the caller that day")),
            ),
        },
    )
    def get(self, request, date: str):
        player = require_player(request)
        challenge = challenge_read(date_text=date)
        result = selectors.player_result(challenge_id=challenge.pk, player_id=player.pk)
        if result is None:
            raise ApiError("not_found", "no ranked result for you on this day")
        answer = Response(
            {
                "date": challenge.date.isoformat(),
                "name": player.name,
                "score": result.score,
                "asks": result.asks,
                "player_pairs": result.player_pairs,
                "opponent_pairs": result.opponent_pairs,
                **selectors.standing(result),
            }
        )
        return caching.mark(answer, public=False)  # the caller's own


class HistogramView(APIView):
    @extend_schema(
        operation_id="leaderboard_histogram",
        tags=["leaderboard"],
        parameters=[doc.DATE],
        responses={200: doc.Histogram, **doc.errors((400, doc.error("`bad_date`")), (404, doc.error("`not_found`")))},
        description="How many ranked results scored each score (for the chart).",
    )
    def get(self, request, date: str):
        challenge = challenge_read(date_text=date)
        answer = Response(
            {"date": challenge.date.isoformat(), "bins": selectors.score_histogram(challenge_id=challenge.pk)}
        )
        return caching.mark(answer, public=selectors.day_settled(challenge=challenge, now=timezone.now()))


class ArchiveView(APIView):
    @extend_schema(
        operation_id="challenge_archive",
        tags=["leaderboard"],
        parameters=[doc.DATE],
        responses={
            (200, "application/jsonl"): doc.ArchiveLine,
            **doc.errors(
                (400, doc.error("`bad_date`")),
                (404, doc.error("`not_found`: the day has not started")),
                (409, doc.error("`day_open`: the seed is still secret; the archive exists once it is revealed")),
            ),
        },
        description="A closed day's whole ranking, JSON Lines, rank order: one line per ranked result, each a "
        "docs/rules.md §5 Pêche case (`game`, `seed`, `moves`) plus what the leaderboard published. "
        "`manage.py replay --jsonl` (or any implementation of the rules) recomputes every score.",
    )
    def get(self, request, date: str):
        challenge = challenge_read(date_text=date)
        if not challenge.is_revealed(timezone.now()):
            raise ApiError("day_open", "the day's seed is still secret: its archive is published once it is revealed")
        response = StreamingHttpResponse(
            selectors.archive_lines(challenge=challenge), content_type="application/jsonl; charset=utf-8"
        )
        response["Content-Disposition"] = f'inline; filename="peche-{challenge.date.isoformat()}.jsonl"'
        # Streamed, so no ETag (its bytes are not known before they are sent): the CDN's time only.
        return caching.mark(response, public=selectors.day_settled(challenge=challenge, now=timezone.now()))


class PositionsView(APIView):
    @extend_schema(
        operation_id="challenge_positions",
        tags=["leaderboard"],
        parameters=[doc.DATE, doc.MOVES],
        responses={
            200: doc.Position,
            **doc.errors(
                (400, doc.error("`bad_date`, `bad_moves` (not ranks separated by commas) or `too_many_moves`")),
                (404, doc.error("`not_found`: the day has not started")),
                (409, doc.error("`day_open`: the seed is still secret; the explorer opens when it is revealed")),
            ),
        },
        description="The day's explorer, once the day is closed: for the position reached by the player's asks "
        "`moves` (the same deal and opponent for everyone, so the asks name the position), how many of the day's "
        "counted games reached it, each next ask's count, share and the mean final score of the games that asked "
        "it, and the analysis engine's values and ask there. Its counts are those of the day's archive.",
    )
    def get(self, request, date: str):
        challenge = challenge_read(date_text=date)
        if not challenge.is_revealed(timezone.now()):
            raise ApiError("day_open", "the day's deal is still being played: its explorer opens when it closes")
        try:
            moves = positions.parse_moves(request.query_params.get("moves"))
        except positions.BadMoves as bad:
            raise ApiError(bad.code, str(bad)) from None
        found = positions.day_position(challenge_id=challenge.pk, moves=moves)
        # A position whose engine is not known yet is not kept by a CDN: the analyses arrive after the close.
        complete = found["engine"] is not None or not found["next"]
        settled = complete and selectors.day_settled(challenge=challenge, now=timezone.now())
        return caching.mark(Response(found), public=settled)
