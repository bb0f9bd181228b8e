from rest_framework import authentication, exceptions

from .models import Player


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
        from .services import hash_token

        player = Player.objects.select_related("user").filter(token_hash=hash_token(token)).first()
        if player is None:
            raise exceptions.AuthenticationFailed("unknown token")
        return player.user, token

    def authenticate_header(self, request):
        return self.keyword


def current_player(request) -> Player | None:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    return Player.objects.filter(user=user).first()
