"""The API's token credential: ``Authorization: Token <token>`` (DRF's authentication
class, REST_FRAMEWORK in config/settings/base.py). The token's player is found as every
credential is (challenges/auth.py ``player_for_token``); DRF stays in the API layer."""

from __future__ import annotations

from rest_framework import authentication, exceptions

from .auth import player_for_token


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
