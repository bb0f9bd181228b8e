"""Thin HTTP views for casual games: one set of endpoints for every game in CASUAL_RULES.

GET  /api/casual/<game>                         -> {"current": view | null, "tally"}
POST /api/casual/<game>/games                   {options chosen by the player} -> 201 view
                                                (+ opening "events")
GET  /api/casual/<game>/games/<id>              -> view
POST /api/casual/<game>/games/<id>/moves        {"play", "move"} -> view + "events"
POST /api/casual/<game>/games/<id>/finish       {"move"} -> view + last "events"

A view is a stored game's, in the daily API's shape (challenges/play.py ``GameView``):
``id``, ``game``, ``status``, ``move``, the engine's seat-0 view at the same level, then
``result``, ``number`` and ``tally``. ``play`` is the engine's move; ``move`` is the number
of moves made (the view's ``move``), as in the daily API: a stale number is 409
``stale_move`` and nothing changes. No read writes.

No account needed: a browser's games belong to an anonymous owner kept in its session,
a player's (token or session) to the player; they follow a player who signs in.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema
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
from config.rates import hit

from . import models, selectors, services
from .models import CasualOwner
from .rules import CASUAL_RULES, CasualRules
from .selectors import SESSION_OWNER


def _session(request):
    return getattr(request._request, "session", None)


def visitor(request) -> tuple[object | None, int | None]:
    """Who asks: the request's player (token or session), and the browser session's
    anonymous owner if it has one (its id). A token's player is the token's alone: the
    session a request may carry beside it is not read."""
    player = current_player(request)
    session = _session(request)
    if player is None and session is None:
        raise ApiError("not_authenticated", "send the session cookie or a token")
    if session is None or (
        player is not None and not isinstance(request.successful_authenticator, SessionAuthentication)
    ):
        return player, None
    return player, session.get(SESSION_OWNER)


def adopt_left_over(request, player, anonymous_id: int | None) -> None:
    """A write of a player whose browser session still names its anonymous games (signed
    in before those moved to the player at log-in): they come along now. Never on a read."""
    if player is not None and anonymous_id is not None:
        _session(request).pop(SESSION_OWNER, None)
        services.owner_adopt(anonymous_id=anonymous_id, player=player)


def owner_for_new_game(request) -> CasualOwner:
    """Whose new game it is: the request's player, else the browser session's anonymous
    owner (made on its first game)."""
    player, anonymous_id = visitor(request)
    if player is not None:
        adopt_left_over(request, player, anonymous_id)
        return services.owner_of_player(player)
    if anonymous_id is not None:
        owner = selectors.anonymous_owner(owner_id=anonymous_id)
        if owner is not None:
            return owner
    # Not a sign-up (no name, no login), but rows all the same: generous per address
    # (a classroom shares one), yet a script without cookies cannot make millions.
    wait = hit("casual_owners", f"ip:{BaseThrottle().get_ident(request)}")
    if wait is not None:
        raise Throttled(wait=wait)
    owner = services.owner_create()
    _session(request)[SESSION_OWNER] = owner.pk
    return owner


def visitor_game(request, game: str, game_id: int, *, write: bool = False) -> models.CasualGame:
    """One of the visitor's games, with its number and tally (one query)."""
    player, anonymous_id = visitor(request)
    if write:
        adopt_left_over(request, player, anonymous_id)
    found = selectors.visitor_game(player=player, anonymous_id=anonymous_id, game=game, game_id=game_id)
    if found is None:
        raise ApiError("not_found", "no such game")
    return found


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


# --- what the endpoints take and return (the schema; the bodies are checked by the same) ---
# A game's view (selectors.casual_view) is the stored game's (``doc.GameView``, as the
# daily's), its engine's seat-0 view beside it, then the casual game's own fields.

GAME = OpenApiParameter(
    "game", str, OpenApiParameter.PATH, enum=list(CASUAL_RULES), description="A casual game's name."
)
GAME_ID = OpenApiParameter("game_id", int, OpenApiParameter.PATH, description="The game's id.")


class Tally(serializers.Serializer):
    win = serializers.IntegerField()
    loss = serializers.IntegerField()
    draw = serializers.IntegerField()


class CasualFields(doc.GameView):
    """A casual game as its player sees it: the fields of every game's view, the game's view
    of seat 0, and the casual game's own fields."""

    status = serializers.CharField(help_text="`playing`, `over`, or `abandoned` (replaced by a new game).")
    over = serializers.BooleanField()
    outcome = serializers.JSONField(allow_null=True, help_text="Once over: the engine's outcome.")
    result = serializers.ChoiceField(["win", "loss", "draw"], allow_null=True, help_text="Seat 0's, once over.")
    number = serializers.IntegerField(help_text="1 for the caller's first game of this kind.")
    tally = Tally(help_text="The caller's finished games of this kind, this one included once over.")
    events = serializers.ListField(
        child=serializers.JSONField(),
        required=False,
        help_text="After a move (or a new deal): what happened since, as seat 0 sees it.",
    )


class KittenGame(CasualFields):
    """A Kitten fishing game as its player sees it: the fields of every game's view, the
    table and the piles' sizes, and the casual game's own fields."""

    seat = serializers.IntegerField()
    piles = serializers.ListField(child=serializers.IntegerField(), help_text="Cards left in each pile.")
    table = serializers.ListField(child=serializers.CharField())
    moves = serializers.IntegerField(help_text="Flips of both sides so far.")
    limit = serializers.IntegerField()
    first = serializers.CharField(help_text="Who flips first: `player` or `opponent`.")
    captures = serializers.IntegerField()
    jack_sweeps = serializers.IntegerField()
    turn = serializers.CharField(allow_null=True, help_text="`player`, `opponent`, or null once over.")


class GoFishGame(CasualFields):
    """A Go Fish game as its player sees it: the fields of every game's view, the player's
    hand and what every seat showed, and the casual game's own fields."""

    rules_version = serializers.IntegerField()
    seat = serializers.IntegerField()
    players = serializers.IntegerField()
    hand = serializers.ListField(child=serializers.CharField(), help_text="Seat 0's own cards.")
    hand_sizes = serializers.ListField(child=serializers.IntegerField())
    books = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    pond_size = serializers.IntegerField()
    to_move = serializers.IntegerField()
    asks = serializers.ListField(child=serializers.IntegerField())
    passes = serializers.IntegerField()
    ask_history = serializers.ListField(child=serializers.JSONField())
    legal_moves = serializers.ListField(child=serializers.JSONField(), help_text="Seat 0's moves, on its turn.")


CasualGame = PolymorphicProxySerializer(
    component_name="CasualGame",
    serializers={"kitten": KittenGame, "gofish": GoFishGame},
    resource_type_field_name="game",
)


class CasualHome(serializers.Serializer):
    current = PolymorphicProxySerializer(
        component_name="CasualGame",
        serializers={"kitten": KittenGame, "gofish": GoFishGame},
        resource_type_field_name="game",
        allow_null=True,
    )
    tally = Tally()


class CasualCreateIn(Input):
    """The options a player chooses for a new game, each optional: Go Fish's table (its
    engine judges the values: 400 `bad_input`); Kitten chooses none (the site alternates
    who flips first)."""

    players = Json(required=False, help_text="Go Fish: seats at the table, 2 to 6 (absent: 2).")
    hand_size = Json(
        required=False, help_text="Go Fish: cards dealt to each seat (absent or null: the engine's default)."
    )


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


def casual_endpoint(operation_id: str, *path: OpenApiParameter, **schema: Any):
    """The schema of a casual endpoint: tagged "casual", the game's name first in its path,
    then ``path``."""
    return extend_schema(operation_id=operation_id, tags=["casual"], parameters=[GAME, *path], **schema)


def game_write(operation_id: str, body: type[Input], *, bad, stale, more=(), description: str | None = None):
    """The schema of a write on one of the visitor's games (a move, the finish): ``body`` in,
    the game's view out; refused as a bad body (``bad``), a stale one (``stale``), or as
    every write is (no such game, no CSRF token)."""
    return casual_endpoint(
        operation_id,
        GAME_ID,
        request=body,
        responses={200: CasualGame, **doc.errors((400, bad), NOT_FOUND, FORBIDDEN, (409, stale), *more)},
        description=description,
    )


def written_game(request, game: str, game_id: int, body: type[Input]) -> tuple[models.CasualGame, dict[str, Any]]:
    """The game a write acts on and the write's body, checked in this order: the game's
    name, the CSRF token, the body, then the game (a stranger's is 404)."""
    rules_or_404(game)
    check_csrf(request)
    parsed_body = parsed(body, request)
    return visitor_game(request, game, game_id, write=True), parsed_body


class CasualHomeView(APIView):
    @casual_endpoint(
        "casual_home",
        responses={200: CasualHome, **doc.errors(NOT_FOUND)},
        description="The caller's (a player's, or the browser session's) latest "
        "game of this kind, if any, and tally. No account needed.",
    )
    def get(self, request, game: str):
        rules_or_404(game)
        player, _ = visitor(request)
        owner = selectors.owner_of_visitor(player=player, session=_session(request))
        current = selectors.casual_current(owner=owner, game=game)
        if current is None:
            return Response({"current": None, "tally": selectors.casual_tally(owner=owner, game=game)})
        return Response({"current": selectors.casual_view(current), "tally": current.tally})


class CasualCreateView(APIView):
    @casual_endpoint(
        "casual_create",
        request=CasualCreateIn,
        responses={
            201: CasualGame,
            **doc.errors(
                (
                    400,
                    doc.error(
                        "`bad_input` or `bad_options`: options the game does not take (Go Fish: 2 to 6 players); "
                        "`bad_request`: the body is not a JSON object"
                    ),
                ),
                NOT_FOUND,
                FORBIDDEN,
                (429, doc.RATE_LIMITED),
            ),
        },
        description="Deal a new game. A browser without a player gets an "
        "anonymous owner in its session on its first game (never a "
        "player, never a sign-up); those are rate-limited per client "
        "IP, generously (a classroom shares one address).",
    )
    def post(self, request, game: str):
        rules = rules_or_404(game)
        check_csrf(request)
        body = parsed(CasualCreateIn, request)  # before an anonymous owner is made for it
        owner = owner_for_new_game(request)
        created = services.casual_create(
            owner=owner, game=game, options=rules.chosen_options(body), next_options=rules.next_options
        )
        return Response(
            selectors.new_game_view(selectors.casual_game(game_id=created.pk)), status=status.HTTP_201_CREATED
        )


class CasualGameView(APIView):
    @casual_endpoint("casual_get", GAME_ID, responses={200: CasualGame, **doc.errors(NOT_FOUND)})
    def get(self, request, game: str, game_id: int):
        rules_or_404(game)
        return Response(selectors.casual_view(visitor_game(request, game, game_id)))


class CasualMoveView(APIView):
    @game_write(
        "casual_move",
        CasualMoveIn,
        bad=doc.error(
            "an illegal move: `bad_move` (not a move of this game), `wrong_seat` (not that seat's turn), "
            "`bad_target` (Go Fish: ask another seat that holds cards), `illegal_ask` (a rank not in hand); "
            "or a malformed body (`bad_json`, `bad_text`, `missing_field`, `wrong_type`)"
        ),
        stale=doc.error("`stale_move` or `game_over`"),
        more=[(413, doc.TOO_LARGE)],
    )
    def post(self, request, game: str, game_id: int):
        played, body = written_game(request, game, game_id, CasualMoveIn)
        _, state, events = services.casual_move(game=played, play=body["play"], move=body["move"])
        return Response(selectors.casual_view(played, state, events))


class CasualFinishView(APIView):
    @game_write(
        "casual_finish",
        CasualFinishIn,
        bad=doc.error("`has_decisions` (the player has choices to make in this game), or a malformed body"),
        stale=doc.error("`stale_move`"),
        description="Play the game to its end (the See result button).",
    )
    def post(self, request, game: str, game_id: int):
        played, body = written_game(request, game, game_id, CasualFinishIn)
        _, state, events = services.casual_play_to_end(game=played, move=body["move"])
        return Response(selectors.casual_view(played, state, events))
