"""The leagues' API: thin views over leagues.services (writes) and leagues.selectors
(reads). Every URL of a league answers 404 ``not_found`` to anyone who is not one of its
members (anonymous visitors included): never 403, so ids and codes leak nothing. An owner's
action asked by another member is 403 ``not_owner`` (they know the league)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from challenges.api import require_player
from challenges.auth import current_player
from config import openapi as doc
from config.inputs import Input, Text, parsed
from config.throttling import WindowThrottle

from . import selectors, services

# --- request bodies ----------------------------------------------------------------------------


class LeagueNameIn(Input):
    """A league's name."""

    name = Text(
        help_text="1–40 letters, digits, spaces and . ' -, in one script; not a name that looks like one of "
        "the owner's other leagues."
    )


class JoinIn(Input):
    """A league's invite code."""

    code = Text(help_text="The code of the join link `/leagues/join/<code>/`; case, spaces and dashes do not matter.")


# --- responses ------------------------------------------------------------------------------------


class Owner(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class LeagueSummary(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    members = serializers.IntegerField(help_text="How many members (at most 200).")
    owner = Owner(allow_null=True)


class LeagueWithCode(LeagueSummary):
    code = serializers.CharField(help_text="The invite code; the join link is `/leagues/join/<code>/`.")


class LeagueList(serializers.Serializer):
    leagues = LeagueSummary(many=True, help_text="The caller's leagues (at most 20), in the order they joined.")


class Member(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    joined_at = serializers.DateTimeField()
    owner = serializers.BooleanField()


class LeagueDetail(LeagueWithCode):
    member_list = Member(many=True, help_text="Oldest member first.")


class BoardEntry(serializers.Serializer):
    rank = serializers.IntegerField(help_text="In the league.")
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    score = serializers.IntegerField()
    asks = serializers.IntegerField()
    global_rank = serializers.IntegerField(help_text="On the day's global leaderboard.")


class NotPlayed(serializers.Serializer):
    player_id = serializers.IntegerField()
    name = serializers.CharField()


class LeagueBoard(serializers.Serializer):
    date = serializers.DateField()
    entries = BoardEntry(many=True, help_text="The global order and tie rule: score desc, fewer asks, earlier finish.")
    not_played = NotPlayed(
        many=True, help_text="Members without a result on the board (not played yet, or not counted), by name."
    )
    indexed = serializers.BooleanField(
        help_text="Whether the global ranks came from the day's rank index (else counted in the database, "
        "until the beat has built the index)."
    )


class WeekEntry(serializers.Serializer):
    rank = serializers.IntegerField(help_text="Members equal in points and asks share a rank.")
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    points = serializers.IntegerField(help_text="The sum of the week's daily scores (a day not played adds 0).")
    days = serializers.IntegerField(help_text="Days played that week.")
    asks = serializers.IntegerField(help_text="Asks over the week's games: fewer breaks a tie on points.")


class LeagueWeek(serializers.Serializer):
    week = serializers.CharField(help_text="ISO week, `YYYY-Www`.")
    to = serializers.DateField(help_text="Its Sunday.")
    entries = WeekEntry(many=True)


# `from` is a keyword: the field is added under its name.
LeagueWeek._declared_fields["from"] = serializers.DateField(help_text="Its Monday.")


class Place(LeagueSummary):
    rank = serializers.IntegerField(
        allow_null=True, help_text="The caller's rank in the league; null: not on its board."
    )
    ranked = serializers.IntegerField(help_text="How many members are on the league's board that day.")


class Places(serializers.Serializer):
    date = serializers.DateField()
    places = Place(many=True)


LEAGUE_ID = OpenApiParameter("league_id", int, OpenApiParameter.PATH, description="The league's id.")
WEEK = OpenApiParameter(
    "week",
    str,
    OpenApiParameter.PATH,
    pattern=r"^(current|[0-9]{4}-W[0-9]{2})$",
    description="An ISO week, `YYYY-Www` (Monday to Sunday in the site's timezone), or `current`. A malformed "
    "week is 400 `bad_week`; one not begun yet, or before the first challenge, 404 `not_found`.",
)
MEMBER = OpenApiParameter(
    "member", str, OpenApiParameter.PATH, description="A member's player id, or `me` (the caller leaves)."
)
NOT_A_MEMBER = doc.error("`not_found`: no such league, or the caller is not one of its members (also when anonymous)")
NOT_OWNER = doc.error("`not_owner`: the caller is a member, not the owner")


def _private(response: Response) -> Response:
    # A league's data is its members' eyes only: no shared cache keeps it.
    response["Cache-Control"] = "private, no-store"
    return response


def _with_code(league) -> dict:
    return {**selectors.league_summary(league), "code": league.code}


# --- throttles: guessing a code -------------------------------------------------------------------


class JoinAddressThrottle(WindowThrottle):
    """Codes tried per client address, right or wrong."""

    scope = "league_joins"


class JoinPlayerThrottle(WindowThrottle):
    """Codes tried per player, right or wrong (a guesser behind many addresses)."""

    scope = "league_joins_player"

    def ident(self, request) -> str:
        player = current_player(request)
        return f"player:{player.pk}" if player is not None else super().ident(request)


# --- views ----------------------------------------------------------------------------------------------


class LeaguesView(APIView):
    @extend_schema(
        operation_id="leagues_mine",
        tags=["leagues"],
        responses={200: LeagueList, 401: doc.NOT_AUTHENTICATED},
        description="The caller's leagues.",
    )
    def get(self, request):
        player = require_player(request)
        return _private(Response({"leagues": selectors.player_leagues(player)}))

    @extend_schema(
        operation_id="league_create",
        tags=["leagues"],
        request=LeagueNameIn,
        responses={
            201: LeagueWithCode,
            **doc.errors(
                (400, doc.error("`bad_name`, or a malformed body")),
                (401, doc.NOT_AUTHENTICATED),
                (
                    409,
                    doc.error(
                        "`name_taken`: the caller owns a league whose name looks like it; `too_many_leagues`: the "
                        "caller is in 20 leagues already"
                    ),
                ),
                (413, doc.TOO_LARGE),
            ),
        },
        description="A new league, owned and joined by the caller, with its invite code.",
    )
    def post(self, request):
        player = require_player(request)
        body = parsed(LeagueNameIn, request)
        league = services.league_create(owner=player, name=body["name"])
        return _private(Response(_with_code(league), status=status.HTTP_201_CREATED))


class JoinView(APIView):
    throttle_classes = [JoinAddressThrottle, JoinPlayerThrottle]

    @extend_schema(
        operation_id="league_join",
        tags=["leagues"],
        request=JoinIn,
        responses={
            200: LeagueWithCode,
            201: LeagueWithCode,
            **doc.errors(
                (400, doc.BAD_BODY),
                (401, doc.NOT_AUTHENTICATED),
                (404, doc.error("`not_found`: no league has this code (unknown, or replaced by a new one)")),
                (
                    409,
                    doc.error("`league_full`: 200 members already; `too_many_leagues`: the caller is in 20 leagues"),
                ),
                (413, doc.TOO_LARGE),
                (429, doc.RATE_LIMITED),
            ),
        },
        description="Join the league of an invite code: 201 when the caller joined, 200 when already a member. "
        "Rate-limited per client address and per player, right codes and wrong alike.",
    )
    def post(self, request):
        player = require_player(request)
        body = parsed(JoinIn, request)
        league, joined = services.league_join(player=player, code=body["code"])
        return _private(Response(_with_code(league), status=status.HTTP_201_CREATED if joined else status.HTTP_200_OK))


class LeagueView(APIView):
    @extend_schema(
        operation_id="league_detail",
        tags=["leagues"],
        parameters=[LEAGUE_ID],
        responses={200: LeagueDetail, 404: NOT_A_MEMBER},
        description="A league as its members see it: its code and its members.",
    )
    def get(self, request, league_id: int):
        league = selectors.member_league(league_id=league_id, player=current_player(request))
        return _private(Response(selectors.league_detail(league)))

    @extend_schema(
        operation_id="league_rename",
        tags=["leagues"],
        parameters=[LEAGUE_ID],
        request=LeagueNameIn,
        responses={
            200: LeagueWithCode,
            **doc.errors(
                (400, doc.error("`bad_name`, or a malformed body")),
                (403, NOT_OWNER),
                (404, NOT_A_MEMBER),
                (409, doc.error("`name_taken`: the owner has another league whose name looks like it")),
                (413, doc.TOO_LARGE),
            ),
        },
        description="Rename the league (its owner).",
    )
    def patch(self, request, league_id: int):
        player = _member_or_404(request, league_id)
        body = parsed(LeagueNameIn, request)
        league = services.league_rename(league_id=league_id, player=player, name=body["name"])
        return _private(Response(_with_code(league)))


def _member_or_404(request, league_id: int):
    """The caller, if a member of the league: checked before the body, so that a stranger's
    request is 404 whatever it carries."""
    player = current_player(request)
    selectors.member_league(league_id=league_id, player=player)
    return player


class LeagueCodeView(APIView):
    @extend_schema(
        operation_id="league_new_code",
        tags=["leagues"],
        parameters=[LEAGUE_ID],
        request=None,
        responses={200: LeagueWithCode, 403: NOT_OWNER, 404: NOT_A_MEMBER},
        description="A new invite code (its owner): the old code and its link stop working at once.",
    )
    def post(self, request, league_id: int):
        player = _member_or_404(request, league_id)
        league = services.league_new_code(league_id=league_id, player=player)
        return _private(Response(_with_code(league)))


class MemberView(APIView):
    @extend_schema(
        operation_id="league_member_remove",
        tags=["leagues"],
        parameters=[LEAGUE_ID, MEMBER],
        request=None,
        responses={
            204: None,
            403: NOT_OWNER,
            404: doc.error("`not_found`: no such league for the caller, or no such member"),
        },
        description="`me`: leave the league. A player id: the owner removes that member. An owner who leaves "
        "passes the league to its oldest member; the last member to leave ends it.",
    )
    def delete(self, request, league_id: int, member: str):
        player = _member_or_404(request, league_id)
        if member == "me" or member == str(player.pk):
            services.league_leave(league_id=league_id, player=player)
        elif member.isdigit() and len(member) < 19:
            services.member_remove(league_id=league_id, by=player, player_id=int(member))
        else:
            raise services.LeagueError("not_found", "no such member")
        return _private(Response(status=status.HTTP_204_NO_CONTENT))


class LeagueBoardView(APIView):
    @extend_schema(
        operation_id="league_leaderboard",
        tags=["leagues"],
        parameters=[LEAGUE_ID, doc.DATE],
        responses={
            200: LeagueBoard,
            **doc.errors((400, doc.error("`bad_date` (a member's request)")), (404, NOT_A_MEMBER)),
        },
        description="The members' ranked results of the day, with each one's global rank; held or "
        "disqualified results are not on it.",
    )
    def get(self, request, league_id: int, date: str):
        player = current_player(request)
        day = _parsed(selectors.parse_day, date, league_id, player)
        return _private(Response(selectors.day_board(league_id, day, member=player)))


class LeagueWeekView(APIView):
    @extend_schema(
        operation_id="league_week",
        tags=["leagues"],
        parameters=[LEAGUE_ID, WEEK],
        responses={
            200: LeagueWeek,
            **doc.errors((400, doc.error("`bad_week` (a member's request)")), (404, NOT_A_MEMBER)),
        },
        description="The week's standings: points = the sum of each member's daily scores, days played, ties "
        "broken by fewer asks over the week. Past weeks stay readable.",
    )
    def get(self, request, league_id: int, week: str):
        player = current_player(request)
        monday = _parsed(selectors.parse_week, week, league_id, player)
        return _private(Response(selectors.week_standings(league_id, monday, member=player)))


def _parsed(parse, text: str, league_id: int, player):
    """A board's date or week, parsed; a stranger's bad one is the 404 of everything else
    they ask of the league (the boards check membership in their own query)."""
    try:
        return parse(text)
    except services.LeagueError:
        selectors.member_league_id(league_id=league_id, player=player)
        raise


class PlacesView(APIView):
    @extend_schema(
        operation_id="league_places",
        tags=["leagues"],
        parameters=[doc.DATE],
        responses={
            200: Places,
            **doc.errors(
                (400, doc.error("`bad_date`")),
                (401, doc.NOT_AUTHENTICATED),
                (404, doc.error("`not_found`: there is no challenge on that day")),
            ),
        },
        description="Where the caller stands in each of their leagues that day (the daily game's end panel).",
    )
    def get(self, request, date: str):
        player = require_player(request)
        day = selectors.parse_day(date)
        return _private(Response({"date": day.isoformat(), "places": selectors.places(player, day)}))
