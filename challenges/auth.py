import time

from django.conf import settings
from rest_framework import authentication, exceptions

from .models import Player

# Every ask is authenticated, and finding its player costs more than the ask's own two
# statements: one query for a token, three for a browser's session (session, user,
# player) plus decoding it. So each process remembers briefly who a token or a session
# cookie is: a removed player, or a session ended elsewhere, is refused within seconds.
_TTL = 30.0
_TOKEN_CACHE: dict[str, tuple[Player, float]] = {}  # token hash -> (player, expiry)
_SESSION_CACHE: dict[str, tuple[Player, float]] = {}  # session key -> (player, expiry)


def _recall(cache: dict, key: str) -> Player | None:
    hit = cache.get(key)
    return hit[0] if hit is not None and hit[1] > time.monotonic() else None


def _remember(cache: dict, key: str, player: Player) -> None:
    if len(cache) > 10_000:
        cache.clear()
    cache[key] = (player, time.monotonic() + _TTL)


def player_for_token(token: str) -> Player | None:
    from .services import hash_token

    digest = hash_token(token)
    player = _recall(_TOKEN_CACHE, digest)
    if player is None:
        player = Player.objects.select_related("user").filter(token_hash=digest).first()
        if player is not None:
            _remember(_TOKEN_CACHE, digest, player)
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


class PlayerSessionAuthentication(authentication.SessionAuthentication):
    """The browser's session cookie, exactly as DRF's SessionAuthentication (CSRF enforced
    on unsafe methods), with the session's player remembered per process for a few seconds."""

    def authenticate(self, request):
        django_request = request._request
        key = django_request.COOKIES.get(settings.SESSION_COOKIE_NAME)
        player = _recall(_SESSION_CACHE, key) if key else None
        if player is not None and player.user.is_active:
            self.enforce_csrf(request)
            django_request.user = player.user
            # The answer depends on the cookie (SessionMiddleware then says "Vary: Cookie").
            django_request.session.accessed = True
            return player.user, None
        found = super().authenticate(request)
        if found is not None and key:
            try:
                _remember(_SESSION_CACHE, key, found[0].player)
            except Player.DoesNotExist:  # staff without a player: nothing to remember
                pass
        return found


def forget_session(sender, request, **kwargs) -> None:
    """A log-in replaces the session: the key it came with no longer names this player."""
    key = request.COOKIES.get(settings.SESSION_COOKIE_NAME) if request is not None else None
    if key:
        _SESSION_CACHE.pop(key, None)


def current_player(request) -> Player | None:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    try:
        # No query when a token or a remembered session authenticated the request.
        return user.player
    except Player.DoesNotExist:
        return None
