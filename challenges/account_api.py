"""The player's own account over HTTP: change the name, sign in on another device with a
one-time code, download everything, delete the account. Thin: shapes in, a service of
challenges/accounts.py (its refusals get their statuses in config/errors.py)."""

from __future__ import annotations

from django.contrib.auth import login
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from config import openapi as doc
from config.inputs import Input, Text, parsed
from config.throttling import WindowThrottle

from . import accounts
from .api import MeView as _MeView
from .api import require_player
from .auth import PLAYER_BACKEND


class DeviceCodeThrottle(WindowThrottle):
    """New device codes per player (a code lives 10 minutes; a few are plenty)."""

    scope = "device_codes"

    def ident(self, request) -> str:
        return f"user:{request.user.pk}" if request.user and request.user.is_authenticated else super().ident(request)


class DeviceCodeTryThrottle(WindowThrottle):
    """Codes typed per client IP, right or wrong: guessing one takes astronomically many."""

    scope = "device_code_tries"


class RenameIn(Input):
    """The player's new name."""

    name = Text(
        help_text="2–24 letters, digits, spaces and . ' -, in one script; not a name that looks like another player's."
    )


class DeviceCode(serializers.Serializer):
    code = serializers.CharField(help_text="Shown once, e.g. `K7QM-3XTP`; case, spaces and dashes do not matter.")
    expires_at = serializers.DateTimeField()


class DeviceCodeIn(Input):
    """The one-time code shown on the player's other device."""

    code = Text()


class Export(serializers.Serializer):
    exported_at = serializers.DateTimeField()
    profile = serializers.JSONField(help_text="id, name, created_at, has_password, last_login")
    attempts = serializers.ListField(
        child=serializers.JSONField(), help_text="Every daily game: day, ranked, status, its asks, result with rank."
    )
    casual_games = serializers.ListField(child=serializers.JSONField())
    device_codes = serializers.ListField(child=serializers.JSONField(), help_text="Dates only: codes are not kept.")


class MeView(_MeView):
    """``GET`` as before; ``PATCH`` renames; ``DELETE`` deletes the account."""

    @extend_schema(
        operation_id="player_rename",
        tags=["players"],
        request=RenameIn,
        responses={
            200: doc.Player,
            **doc.errors(
                (400, doc.error("`bad_name`, `reserved_name` (reads as the site's own), or a malformed body")),
                (401, doc.NOT_AUTHENTICATED),
                (409, doc.error("`name_taken`: this name or a look-alike is another player's")),
                (413, doc.TOO_LARGE),
            ),
        },
        description="Change the player's name, under the rules of a new name. Every leaderboard shows the current "
        "name, past days included.",
    )
    def patch(self, request):
        player = require_player(request)
        body = parsed(RenameIn, request)
        player = accounts.player_rename(player=player, name=body["name"])
        return Response({"id": player.pk, "name": player.name})

    @extend_schema(
        operation_id="player_delete",
        tags=["players"],
        request=None,
        responses={204: None, 401: doc.NOT_AUTHENTICATED},
        description="Delete the account: the login (every session, the token), the name, practice and casual "
        'games go. Ranked results stay on their leaderboards as "Deleted player 4f2a", so no rank '
        "moves. Cannot be undone.",
    )
    def delete(self, request):
        player = require_player(request)
        accounts.player_delete(player=player)
        if hasattr(request._request, "session"):
            request._request.session.flush()
        return Response(status=status.HTTP_204_NO_CONTENT)


class ExportView(APIView):
    @extend_schema(
        operation_id="player_export",
        tags=["players"],
        responses={200: Export, 401: doc.NOT_AUTHENTICATED},
        description="Everything the site holds about the player, as a JSON download.",
    )
    def get(self, request):
        player = require_player(request)
        data = accounts.player_export(player=player)
        response = Response(data)
        response["Content-Disposition"] = f'attachment; filename="peche-player-{player.pk}.json"'
        response["Cache-Control"] = "no-store"
        return response


class DeviceCodeView(APIView):
    throttle_classes = [DeviceCodeThrottle]

    @extend_schema(
        operation_id="device_code_create",
        tags=["players"],
        request=None,
        responses={201: DeviceCode, **doc.errors((401, doc.NOT_AUTHENTICATED), (429, doc.RATE_LIMITED))},
        description="A one-time code to type on another device (`POST /api/session/code`), valid 10 minutes, "
        "once. A new code replaces the previous one. Rate-limited per player.",
    )
    def post(self, request):
        player = require_player(request)
        code, expires = accounts.device_code_create(player=player)
        response = Response({"code": code, "expires_at": expires.isoformat()}, status=status.HTTP_201_CREATED)
        response["Cache-Control"] = "no-store"
        return response


class DeviceCodeLoginView(APIView):
    throttle_classes = [DeviceCodeTryThrottle]

    @extend_schema(
        operation_id="session_code_login",
        tags=["players"],
        request=DeviceCodeIn,
        responses={
            200: doc.Player,
            **doc.errors(
                (400, doc.error("`bad_code` (unknown, expired or used: one refusal for all), or a malformed body")),
                (413, doc.TOO_LARGE),
                (429, doc.RATE_LIMITED),
            ),
        },
        description="Log this browser in with a one-time code shown on the player's other device. The code is "
        "spent. Rate-limited per client IP.",
    )
    def post(self, request):
        body = parsed(DeviceCodeIn, request)
        player = accounts.device_code_redeem(code=body["code"])
        login(request._request, player.user, backend=PLAYER_BACKEND)
        return Response({"id": player.pk, "name": player.name})
