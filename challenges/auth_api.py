"""The API's token credential: ``Authorization: Token <token>`` (DRF's authentication
class, REST_FRAMEWORK in config/settings/base.py). The token's player is found as the game
socket finds it (challenges/auth.py ``token_player``); DRF stays in the API layer."""

from __future__ import annotations

from rest_framework import authentication, exceptions

from .auth import token_player


class PlayerTokenAuthentication(authentication.BaseAuthentication):
    """``Authorization: Token <token>``; the request's user is then the player's user."""

    keyword = "Token"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request)
        player, refused = token_player(header)
        if refused:
            raise exceptions.AuthenticationFailed("send 'Authorization: Token <token>' with a token of yours")
        if player is None:
            return None
        return player.user, header.split()[1].decode()

    def authenticate_header(self, request):
        return self.keyword
