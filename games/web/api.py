"""Thin HTTP views for casual games: one set of endpoints for every game in CASUAL_RULES.

GET  /api/casual/<game>                         -> {"current": view | null, "tally"}
POST /api/casual/<game>/games                   {options chosen by the player} -> 201 view
                                                (+ opening "events")
GET  /api/casual/<game>/games/<id>              -> view
POST /api/casual/<game>/games/<id>/moves        {"play", "move"} -> view + "events"
POST /api/casual/<game>/games/<id>/finish       {"move"} -> view + last "events"

``play`` is the engine's move; ``move`` is the number of moves made (the view's
``move``), as in the daily API: a stale number is 409 ``stale_move`` and nothing changes.

No account needed: a browser's games belong to an anonymous owner kept in its session,
a player's (token or session) to the player; they follow a player who signs in.
"""

from __future__ import annotations

from typing import Literal, overload

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import Throttled
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from challenges.auth import current_player
from config import openapi as doc
from config.errors import ApiError
from config.inputs import Input, Json, Whole, parsed
from config.throttling import hit

from . import models, selectors, services
from .models import CasualOwner
from .rules import CASUAL_RULES, CasualRules
from .selectors import SESSION_OWNER


def _session(request):
    return getattr(request._request, "session", None)


@overload
def owner_of(request, *, create: Literal[True]) -> CasualOwner: ...
@overload
def owner_of(request, *, create: bool = False) -> CasualOwner | None: ...
def owner_of(request, *, create: bool = False) -> CasualOwner | None:
    """Whose casual games these are: the request's player, else the browser session's
    anonymous owner (made on its first game when ``create``). A session's anonymous games
    follow the player signed in on it."""
    player = current_player(request)
    session = _session(request)
    anonymous_id = session.get(SESSION_OWNER) if session is not None else None
    if player is not None:
        if anonymous_id is not None:
            session.pop(SESSION_OWNER, None)
            return services.owner_adopt(anonymous_id=anonymous_id, player=player)
        # A query, not ``player.casual_owner``: a player object may be shared by requests
        # (challenges/auth.py) and would keep the answer it cached.
        owner = CasualOwner.objects.filter(player=player).first()
        return owner if owner is not None or not create else services.owner_of_player(player)
    if session is None:
        raise ApiError("not_authenticated", "send the session cookie or a token")
    if anonymous_id is not None:
        owner = CasualOwner.objects.filter(pk=anonymous_id, player__isnull=True).first()
        if owner is not None or not create:
            return owner
    if not create:
        return None
    # Not a sign-up (no name, no login), but rows all the same: generous per address
    # (a classroom shares one), yet a script without cookies cannot make millions.
    wait = hit("casual_owners", f"ip:{BaseThrottle().get_ident(request)}")
    if wait is not None:
        raise Throttled(wait=wait)
    owner = services.owner_create()
    session[SESSION_OWNER] = owner.pk
    return owner


def check_csrf(request) -> None:
    """An anonymous browser's writes are checked like a signed-in one's (DRF checks CSRF
    only for an authenticated session): another site cannot play in its name."""
    if not (request.user and request.user.is_authenticated):
        SessionAuthentication().enforce_csrf(request)


def rules_or_404(game: str) -> CasualRules:
    rules = CASUAL_RULES.get(game)
    if rules is None:
        raise ApiError("not_found", f"no casual game named {game!r}")
    return rules


def own_game(owner, game: str, game_id: int) -> models.CasualGame:
    found = models.CasualGame.objects.filter(pk=game_id, owner=owner, game=game).first() if owner else None
    if found is None:
        raise ApiError("not_found", "no such game")
    return found


def full_view(game: models.CasualGame) -> dict:
    return selectors.casual_view(game, game.engine(), game.state())


# --- what the endpoints take and return (the schema; the bodies are checked by the same) ---

GAME = OpenApiParameter(
    "game", str, OpenApiParameter.PATH, enum=list(CASUAL_RULES), description="A casual game's name."
)
GAME_ID = OpenApiParameter("game_id", int, OpenApiParameter.PATH, description="The game's id.")


class CasualGame(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    status = serializers.CharField()
    result = serializers.JSONField(allow_null=True)
    move = serializers.IntegerField(help_text="Moves made: send it back as the next move's `move`.")
    moves = serializers.IntegerField(help_text="Moves made (the same count: the page's move counter).")
    number = serializers.IntegerField(help_text="1 for the caller's first game of this kind.")
    view = serializers.JSONField(help_text="The player's view of the game (the engine's own shape).")
    events = serializers.ListField(child=serializers.JSONField())
    tally = serializers.JSONField()


class CasualHome(serializers.Serializer):
    current = CasualGame(allow_null=True)
    tally = serializers.JSONField()


class CasualMoveIn(Input):
    """One move of a casual game, and the number of moves made so far."""

    play = Json(help_text="The engine's move (its shape depends on the game).")
    move = Whole(help_text="The view's `move` (moves made); a stale number is 409.")


class CasualFinishIn(Input):
    """Play the game to its end from the number of moves made so far."""

    move = Whole(help_text="The view's `move`; a stale number is 409.")


NOT_FOUND = (404, doc.error("`not_found`: no such game name or game"))
# Writes of a browser without a player are CSRF-checked like a signed-in one's.
FORBIDDEN = (403, doc.error("`forbidden`: a browser's write without its CSRF token"))


class CasualHomeView(APIView):
    @extend_schema(
        operation_id="casual_home",
        tags=["casual"],
        parameters=[GAME],
        responses={200: CasualHome, **doc.errors(NOT_FOUND)},
        description="The caller's (a player's, or the browser session's) latest "
        "game of this kind, if any, and tally. No account needed.",
    )
    def get(self, request, game: str):
        rules_or_404(game)
        owner = owner_of(request)
        current = selectors.casual_current(owner=owner, game=game)
        return Response(
            {
                "current": full_view(current) if current else None,
                "tally": selectors.casual_tally(owner=owner, game=game),
            }
        )


class CasualCreateView(APIView):
    @extend_schema(
        operation_id="casual_create",
        tags=["casual"],
        parameters=[GAME],
        request=None,
        responses={201: CasualGame, **doc.errors(NOT_FOUND, FORBIDDEN, (429, doc.RATE_LIMITED))},
        description="Deal a new game. A browser without a player gets an "
        "anonymous owner in its session on its first game (never a "
        "player, never a sign-up); those are rate-limited per client "
        "IP, generously (a classroom shares one address).",
    )
    def post(self, request, game: str):
        rules = rules_or_404(game)
        check_csrf(request)
        owner = owner_of(request, create=True)
        body = request.data if isinstance(request.data, dict) else {}
        created = services.casual_create(
            owner=owner, game=game, options=rules.chosen_options(body), next_options=rules.next_options
        )
        state = created.state()
        return Response(
            selectors.casual_view(created, created.engine(), state, services.opening_events(state)),
            status=status.HTTP_201_CREATED,
        )


class CasualGameView(APIView):
    @extend_schema(
        operation_id="casual_get",
        tags=["casual"],
        parameters=[GAME, GAME_ID],
        responses={200: CasualGame, **doc.errors(NOT_FOUND)},
    )
    def get(self, request, game: str, game_id: int):
        rules_or_404(game)
        return Response(full_view(own_game(owner_of(request), game, game_id)))


class CasualMoveView(APIView):
    @extend_schema(
        operation_id="casual_move",
        tags=["casual"],
        parameters=[GAME, GAME_ID],
        request=CasualMoveIn,
        responses={
            200: CasualGame,
            **doc.errors(
                (400, doc.error("an illegal move or a malformed body")),
                NOT_FOUND,
                FORBIDDEN,
                (409, doc.error("`stale_move` or `game_over`")),
                (413, doc.TOO_LARGE),
            ),
        },
    )
    def post(self, request, game: str, game_id: int):
        rules_or_404(game)
        check_csrf(request)
        owner = owner_of(request)
        body = parsed(CasualMoveIn, request)
        played = own_game(owner, game, game_id)
        eng, state, events = services.casual_move(game=played, play=body["play"], move=body["move"])
        return Response(selectors.casual_view(played, eng, state, events))


class CasualFinishView(APIView):
    @extend_schema(
        operation_id="casual_finish",
        tags=["casual"],
        parameters=[GAME, GAME_ID],
        request=CasualFinishIn,
        responses={
            200: CasualGame,
            **doc.errors((400, doc.BAD_BODY), NOT_FOUND, FORBIDDEN, (409, doc.error("`stale_move`"))),
        },
        description="Play the game to its end (the See result button).",
    )
    def post(self, request, game: str, game_id: int):
        rules_or_404(game)
        check_csrf(request)
        owner = owner_of(request)
        body = parsed(CasualFinishIn, request)
        played = own_game(owner, game, game_id)
        eng, state, events = services.casual_play_to_end(game=played, move=body["move"])
        return Response(selectors.casual_view(played, eng, state, events))
