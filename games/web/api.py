"""Thin HTTP views for casual games: one set of endpoints for every game in CASUAL_RULES.

GET  /api/casual/<game>                         -> {"current": view | null, "tally"}
POST /api/casual/<game>/games                   {options chosen by the player} -> 201 view
                                                (+ opening "events")
GET  /api/casual/<game>/games/<id>              -> view
POST /api/casual/<game>/games/<id>/moves        {"move", "expected"} -> view + "events"
POST /api/casual/<game>/games/<id>/finish       {"expected"} -> view + last "events"
"""
from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from challenges.api import body_fields, require_player
from config.errors import ApiError

from . import selectors, services
from .models import CasualGame
from .rules import CASUAL_RULES, CasualRules


def rules_or_404(game: str) -> CasualRules:
    rules = CASUAL_RULES.get(game)
    if rules is None:
        raise ApiError("not_found", f"no casual game named {game!r}", status.HTTP_404_NOT_FOUND)
    return rules


def own_game(player, game: str, game_id: int) -> CasualGame:
    found = CasualGame.objects.filter(pk=game_id, player=player, game=game).first()
    if found is None:
        raise ApiError("not_found", "no such game", status.HTTP_404_NOT_FOUND)
    return found


def full_view(game: CasualGame, events=None) -> dict:
    eng, state, _ = services.game_state(game)
    return selectors.casual_view(game, eng, state, events)


class CasualHomeView(APIView):
    def get(self, request, game: str):
        rules_or_404(game)
        player = require_player(request)
        current = selectors.casual_current(player=player, game=game)
        return Response({"current": full_view(current) if current else None,
                         "tally": selectors.casual_tally(player=player, game=game)})


class CasualCreateView(APIView):
    def post(self, request, game: str):
        rules = rules_or_404(game)
        player = require_player(request)
        body = request.data if isinstance(request.data, dict) else {}
        created = services.casual_create(player=player, game=game, options=rules.chosen_options(body),
                                         next_options=rules.next_options)
        eng, state, opening = services.game_state(created)
        return Response(selectors.casual_view(created, eng, state, opening), status=status.HTTP_201_CREATED)


class CasualGameView(APIView):
    def get(self, request, game: str, game_id: int):
        rules_or_404(game)
        return Response(full_view(own_game(require_player(request), game, game_id)))


class CasualMoveView(APIView):
    def post(self, request, game: str, game_id: int):
        rules = rules_or_404(game)
        player = require_player(request)
        data = request.data
        if not isinstance(data, dict) or "move" not in data:
            raise ApiError("missing_field", "'move' is required")
        fields = body_fields(request, expected=int)
        own_game(player, game, game_id)
        played, eng, state, events = services.casual_move(
            game_id=game_id, player=player, move=data["move"], expected=fields["expected"],
            outcome_side=rules.outcome_side,
        )
        return Response(selectors.casual_view(played, eng, state, events))


class CasualFinishView(APIView):
    def post(self, request, game: str, game_id: int):
        rules = rules_or_404(game)
        player = require_player(request)
        fields = body_fields(request, expected=int)
        own_game(player, game, game_id)
        played, eng, state, events = services.casual_play_to_end(
            game_id=game_id, player=player, expected=fields["expected"], outcome_side=rules.outcome_side,
        )
        return Response(selectors.casual_view(played, eng, state, events))
