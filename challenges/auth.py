"""Who is asking: a browser's Django session, or an API client's token.

Nothing is remembered between requests. Each request reads its credentials where they
live — the session from Redis (cached_db, config/sessions.py), a token from the
database — and the user with its player in one query, so a log-out, a password change
or a new token refuses the old credentials at once, in every web process.
"""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from rest_framework import authentication, exceptions

from .models import Player

# The backend a player's session names (django.contrib.auth.login(..., backend=)).
PLAYER_BACKEND = "challenges.auth.PlayerBackend"


class PlayerBackend(ModelBackend):
    """Loads a session's user with its player in one query. Authenticates nobody itself:
    players log in by name (services.player_authenticate), staff through Django's
    ModelBackend, which is first in AUTHENTICATION_BACKENDS (a wrong password is hashed once).
    Django then checks the session's password hash against the user: a password changed
    elsewhere ends this session on its next request."""

    def authenticate(self, request, **credentials):
        return None

    def get_user(self, user_id):
        users = get_user_model()._default_manager.select_related("player")
        try:
            user = users.get(pk=user_id)
        except users.model.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None


def player_for_token(token: str) -> Player | None:
    from .services import hash_token

    try:
        return Player.objects.select_related("user").get(token_hash=hash_token(token))
    except Player.DoesNotExist:
        return None


class PlayerTokenAuthentication(authentication.BaseAuthentication):
    """``Authorization: Token <token>``; the request's user is then the player's user."""

    keyword = "Token"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("send 'Authorization: Token <token>'")
        try:
            token = header[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed("bad token") from None
        player = player_for_token(token)
        if player is None or not player.user.is_active:
            raise exceptions.AuthenticationFailed("unknown token")
        return player.user, token

    def authenticate_header(self, request):
        return self.keyword


def current_player(request) -> Player | None:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    try:
        # No query: the token's query and the session's user came with their player.
        return user.player
    except Player.DoesNotExist:
        return None
