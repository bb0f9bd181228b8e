"""Thin API views: check the input's shape, call a service or selector, serialize a view."""
from __future__ import annotations

from django.contrib.auth import login
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from config.errors import ApiError

from . import days, selectors, services
from .auth import current_player
from .models import Attempt, DailyChallenge


def body_fields(request, **types) -> dict:
    """The JSON object body with exactly-typed fields (a bool is not an int, 7 is not "7")."""
    data = request.data
    if not isinstance(data, dict):
        raise ApiError("bad_request", "the body must be a JSON object")
    out = {}
    for name, kind in types.items():
        if name not in data:
            raise ApiError("missing_field", f"'{name}' is required")
        value = data[name]
        if type(value) is not kind:
            raise ApiError("wrong_type", f"'{name}' must be a {kind.__name__}")
        out[name] = value
    return out


def require_player(request):
    player = current_player(request)
    if player is None:
        raise ApiError("not_authenticated", "create a player first (POST /api/players)", status.HTTP_401_UNAUTHORIZED)
    return player


def challenge_or_404(date_text: str) -> DailyChallenge:
    if date_text == "today":
        return services.challenge_for_day(day=days.today())
    day = selectors.parse_day(date_text)
    if day is None:
        raise ApiError("bad_date", "dates are YYYY-MM-DD")
    if day > days.today():
        raise ApiError("not_found", "this day has not started yet", status.HTTP_404_NOT_FOUND)
    found = DailyChallenge.objects.filter(game=services.DAILY_GAME, date=day).first()
    if found is None:
        # Past days are playable as practice even if nobody opened them that day.
        found = services.challenge_for_day(day=day)
    return found


class PlayersView(APIView):
    def post(self, request):
        fields = body_fields(request, name=str)
        player, token = services.player_create(name=fields["name"])
        login(request._request, player.user, backend="django.contrib.auth.backends.ModelBackend")
        return Response({"id": player.pk, "name": player.name, "token": token}, status=status.HTTP_201_CREATED)


class MeView(APIView):
    def get(self, request):
        player = require_player(request)
        return Response({"id": player.pk, "name": player.name, "has_password": player.user.has_usable_password()})


class PasswordView(APIView):
    def post(self, request):
        player = require_player(request)
        fields = body_fields(request, password=str)
        services.player_set_password(player=player, password=fields["password"])
        login(request._request, player.user, backend="django.contrib.auth.backends.ModelBackend")
        return Response({"ok": True})


class LoginView(APIView):
    def post(self, request):
        fields = body_fields(request, name=str, password=str)
        player = services.player_authenticate(name=fields["name"], password=fields["password"])
        login(request._request, player.user, backend="django.contrib.auth.backends.ModelBackend")
        return Response({"id": player.pk, "name": player.name})


class ChallengeView(APIView):
    def get(self, request, date: str):
        return Response(selectors.challenge_public(challenge_or_404(date)))


class AttemptStartView(APIView):
    def post(self, request, date: str):
        player = require_player(request)
        challenge = challenge_or_404(date)
        attempt, created = services.attempt_start(player=player, challenge=challenge)
        return Response(selectors.attempt_view(attempt),
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


def own_attempt(request, attempt_id: int) -> Attempt:
    player = require_player(request)
    attempt = Attempt.objects.select_related("challenge").filter(pk=attempt_id, player=player).first()
    if attempt is None:
        raise ApiError("not_found", "no such attempt", status.HTTP_404_NOT_FOUND)
    return attempt


class AttemptView(APIView):
    def get(self, request, attempt_id: int):
        return Response(selectors.attempt_view(own_attempt(request, attempt_id)))


class AskView(APIView):
    def post(self, request, attempt_id: int):
        player = require_player(request)
        fields = body_fields(request, rank=str, move=int)
        attempt, state, events = services.attempt_ask(
            attempt_id=attempt_id, player=player, rank=fields["rank"], move=fields["move"]
        )
        return Response(selectors.attempt_view(attempt, state, events=events))


class MyAttemptsView(APIView):
    def get(self, request):
        player = require_player(request)
        rows = []
        for attempt in selectors.player_attempts(player=player):
            result = getattr(attempt, "result", None)
            rows.append({
                "id": attempt.pk, "date": attempt.challenge.date.isoformat(), "ranked": attempt.ranked,
                "status": attempt.status, "asks": len(attempt.moves),
                "score": result.score if result else None,
            })
        return Response({"attempts": rows})
