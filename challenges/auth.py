import hashlib
import time
from functools import lru_cache

from django.conf import settings
from django.db import connection
from rest_framework import authentication, exceptions

from config.redis_client import redis_client

from .models import Player

# Every ask is authenticated, and finding its player costs more than the ask's own two
# statements: one query for a token, three for a browser's session (session, user,
# player) plus decoding it. So each process remembers briefly who a token or a session
# cookie is: a removed player, or a session ended elsewhere, is refused within seconds.
_TTL = 30.0
_TOKEN_CACHE: dict[str, tuple[Player, float]] = {}  # token hash -> (player, expiry)
_SESSION_CACHE: dict[str, tuple[Player, float]] = {}  # session key -> (player, expiry)
# A player's requests land on any of the web processes, so each process would pay the
# three statements once per player: a session checked by one process is also noted in
# Redis (which player, until when; no secret, the key is hashed) for the others, who then
# load the player in one statement. Expiry is wall-clock time, shared by all processes.
_SHARED_PREFIX = "auth:session:"


def _recall(cache: dict, key: str) -> Player | None:
    hit = cache.get(key)
    return hit[0] if hit is not None and hit[1] > time.time() else None


def _remember(cache: dict, key: str, player: Player, expires: float | None = None) -> None:
    if len(cache) > 10_000:
        cache.clear()
    cache[key] = (player, expires or time.time() + _TTL)


def _shared_key(session_key: str) -> str:
    return _SHARED_PREFIX + hashlib.sha256(session_key.encode()).hexdigest()


def _shared(operation, *args):
    """A Redis call whose failure only costs the statements it would have saved."""
    import redis

    client = redis_client()
    if client is None:
        return None
    try:
        return getattr(client, operation)(*args)
    except redis.RedisError:
        return None


def remember_session(key: str, player: Player) -> None:
    expires = time.time() + _TTL
    _remember(_SESSION_CACHE, key, player, expires)
    _shared("set", _shared_key(key), f"{player.pk}:{player.user_id}:{expires:.3f}", int(_TTL) + 1)


@lru_cache(maxsize=1)
def _player_query():
    """The player and its user in one plain statement, and how to turn the row into them:
    the ORM's query building cost more than the query itself (bench/ask_cpu.py)."""
    from django.contrib.auth import get_user_model

    user_model = get_user_model()
    players, users = Player._meta, user_model._meta
    columns = [f"p.{connection.ops.quote_name(f.column)}" for f in players.concrete_fields]
    columns += [f"u.{connection.ops.quote_name(f.column)}" for f in users.concrete_fields]
    sql = (f"SELECT {', '.join(columns)} FROM {players.db_table} p JOIN {users.db_table} u ON u.id = p.user_id"
           f" WHERE p.id = %s AND p.user_id = %s")

    def shape(model):
        fields = model._meta.concrete_fields
        cols = [field.get_col(model._meta.db_table) for field in fields]
        converters = [connection.ops.get_db_converters(col) + col.get_db_converters(connection) for col in cols]
        return model, [f.attname for f in fields], list(zip(cols, converters))

    return sql, shape(Player), shape(user_model)


def _instance(shape, values):
    """A model instance from a row's values, converted as the ORM converts them."""
    model, names, fields = shape
    converted = []
    for (col, converters), value in zip(fields, values):
        for convert in converters:
            value = convert(value, col, connection)
        converted.append(value)
    return model.from_db(connection.alias, names, converted)


def _load_player(player_id: int, user_id: int) -> Player | None:
    sql, player_shape, user_shape = _player_query()
    with connection.cursor() as cursor:
        cursor.execute(sql, [player_id, user_id])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(player_shape[1])
    player = _instance(player_shape, row[:split])
    player.user = _instance(user_shape, row[split:])
    return player


def recall_session(key: str) -> Player | None:
    player = _recall(_SESSION_CACHE, key)
    if player is not None:
        return player
    noted = _shared("get", _shared_key(key))
    if not noted:
        return None
    try:
        player_id, user_id, expires = noted.decode().split(":")
        player_id, user_id, expires = int(player_id), int(user_id), float(expires)
    except ValueError:
        return None
    if expires <= time.time():
        return None
    player = _load_player(player_id, user_id)
    if player is not None:
        _remember(_SESSION_CACHE, key, player, expires)
    return player


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
        player = recall_session(key) if key else None
        if player is not None and player.user.is_active:
            self.enforce_csrf(request)
            django_request.user = player.user
            # The answer depends on the cookie (SessionMiddleware then says "Vary: Cookie").
            django_request.session.accessed = True
            return player.user, None
        found = super().authenticate(request)
        if found is not None and key:
            try:
                remember_session(key, found[0].player)
            except Player.DoesNotExist:  # staff without a player: nothing to remember
                pass
        return found


def forget_session(sender, request, **kwargs) -> None:
    """A log-in or log-out ends the session the request came with: its key no longer names
    this player (other processes' own copies lapse within the TTL)."""
    key = request.COOKIES.get(settings.SESSION_COOKIE_NAME) if request is not None else None
    if key:
        _SESSION_CACHE.pop(key, None)
        _shared("delete", _shared_key(key))


def remember_login(sender, request, user, **kwargs) -> None:
    """The session a log-in just made is this player's: noted now, the player's next
    requests skip the session, user and player reads in every process."""
    forget_session(sender, request)
    key = request.session.session_key if request is not None else None
    player = getattr(user, "player", None) if key else None
    if isinstance(player, Player):
        remember_session(key, player)


def current_player(request) -> Player | None:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    try:
        # No query when a token or a remembered session authenticated the request.
        return user.player
    except Player.DoesNotExist:
        return None
