import time

from rest_framework import authentication, exceptions

from .models import Player


# token hash -> (player, expiry). Every ask is authenticated: the lookup is a third of
# the ask's queries. Entries live briefly, so a removed player is refused within seconds.
_TOKEN_CACHE: dict[str, tuple[Player, float]] = {}
_TOKEN_TTL = 30.0


def player_for_token(token: str) -> Player | None:
    from .services import hash_token

    digest = hash_token(token)
    now = time.monotonic()
    hit = _TOKEN_CACHE.get(digest)
    if hit is not None and hit[1] > now:
        return hit[0]
    player = Player.objects.select_related("user").filter(token_hash=digest).first()
    if player is not None:
        if len(_TOKEN_CACHE) > 10_000:
            _TOKEN_CACHE.clear()
        _TOKEN_CACHE[digest] = (player, now + _TOKEN_TTL)
    return player


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
        if player is None:
            raise exceptions.AuthenticationFailed("unknown token")
        return player.user, token

    def authenticate_header(self, request):
        return self.keyword


def current_player(request) -> Player | None:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    try:
        # Cached when the token authenticated the request (select_related from the player).
        return user.player
    except Player.DoesNotExist:
        return None
