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

from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import Throttled
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from challenges.api import body_fields
from challenges.auth import current_player
from config.errors import ApiError
from config.throttling import hit

from . import selectors, services
from .models import CasualGame, CasualOwner
from .rules import CASUAL_RULES, CasualRules

# The browser session's anonymous owner (its id; the session is the browser's secret).
SESSION_OWNER = "casual_owner"


def _session(request):
    return getattr(request._request, "session", None)


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


def own_game(owner, game: str, game_id: int) -> CasualGame:
    found = CasualGame.objects.filter(pk=game_id, owner=owner, game=game).first() if owner else None
    if found is None:
        raise ApiError("not_found", "no such game")
    return found


def full_view(game: CasualGame) -> dict:
    return selectors.casual_view(game, game.engine(), game.state())


class CasualHomeView(APIView):
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
    def get(self, request, game: str, game_id: int):
        rules_or_404(game)
        return Response(full_view(own_game(owner_of(request), game, game_id)))


class CasualMoveView(APIView):
    def post(self, request, game: str, game_id: int):
        rules_or_404(game)
        check_csrf(request)
        owner = owner_of(request)
        data = request.data
        if not isinstance(data, dict) or "play" not in data:
            raise ApiError("missing_field", "'play' is required")
        fields = body_fields(request, move=int)
        played = own_game(owner, game, game_id)
        eng, state, events = services.casual_move(game=played, play=data["play"], move=fields["move"])
        return Response(selectors.casual_view(played, eng, state, events))


class CasualFinishView(APIView):
    def post(self, request, game: str, game_id: int):
        rules_or_404(game)
        check_csrf(request)
        owner = owner_of(request)
        fields = body_fields(request, move=int)
        played = own_game(owner, game, game_id)
        eng, state, events = services.casual_play_to_end(game=played, move=fields["move"])
        return Response(selectors.casual_view(played, eng, state, events))
