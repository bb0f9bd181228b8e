"""Who is asking: a browser's Django session, or an API client's token.

The API's own side of a token (DRF's authentication class) is in auth_api.py: this module
is below the API layer, and the account services (accounts.py) use it.

Nothing is remembered in a process between requests. Each request reads its credentials
where every process reads them — the session from Redis (cached_db, config/sessions.py),
a token's user from Redis or the database — so a log-out, a password change or a new
token refuses the old credentials at once, in every web process.

The user with its player (one ``select_related`` query) is kept in the shared Redis cache
under the user's id (``auth:user:<id>``), read instead of the query: ~0.05 ms instead of
~0.4 ms of CPU on every request (docs/benchmarks.md, "Plain sessions"). A copy is only
correct while nothing of either row changed, so every change of a user or a player —
password, name, token, activation, deletion, whatever the code path that saves it —
first replaces the copy by a *hold* mark (``forget_user``):
- before the write, and refusing the write when Redis cannot take the mark (a copy that
  outlived the change would be read again as soon as Redis answers: an old password's
  sessions, an old token valid again);
- again once the change is committed, as a request may have read the old rows meanwhile;
- while the mark lives (``HOLD_SECONDS``), requests read the database and keep no copy
  (a copy is only ever *added*, never written over a mark), and a request keeps the copy
  it read only if it read it within ``FRESH_SECONDS``: no request that read the rows
  before the change can put them back after it.
Player saves and user saves and deletions are seen by the signals below; the one write
by ``update()`` (a rename) calls ``forget_user`` itself, and a deletion deletes the user.

A token is looked up by its hash: ``auth:token:<sha256>`` names the user id, and one
Redis round trip (config/cache.py, ``read_pointed``) brings the copy it points to. The
copy's own token hash must be that hash, so a rotated token's key needs no deleting: the
copy it leads to is the new one, whose hash differs. In the same way a browser's session
key names its user (``auth:session:<key>``), and ``PrefetchMiddleware`` brings the
session's cached copy and its user's copy in one round trip. Such a pointer is only a hint:
the session names its user (and Django checks its password hash), the copy must be of
that user, else the user is read as if there were no pointer.
"""

from __future__ import annotations

import time
from functools import cache

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.backends.cached_db import KEY_PREFIX as SESSION_COPY
from django.core.cache import caches
from django.db import transaction
from django.db.models.signals import pre_delete, pre_save

from config.cache import FAILED, GuardedRedisCache
from games.rules.base import DomainError

from .models import Player
from .services import hash_token

# The backend a player's session names (django.contrib.auth.login(..., backend=)).
PLAYER_BACKEND = "challenges.auth.PlayerBackend"

USER_KEY = "auth:user:%s"
TOKEN_KEY = "auth:token:%s"  # -> the user id
SESSION_KEY = "auth:session:%s"  # -> the user id
COPY_SECONDS = 300  # a copy's life (it is also dropped at every change)
HOLD_SECONDS = 5  # after a change, no copy for this long
FRESH_SECONDS = 1.0  # a request keeps the rows it read only this soon after reading them
HOLD = "held"  # the mark that holds a changed user's copy off


@cache
def _user_model():
    """The user model, looked up once: every request's credential checks ask for it (~5 Python
    calls each time through the app registry)."""
    return get_user_model()


def shared_cache() -> GuardedRedisCache | None:
    """The cache every web process reads (Redis), or None: a process's own memory (the
    embedded default's LocMemCache) would keep a copy that other processes cannot drop."""
    cache = caches["default"]
    return cache if isinstance(cache, GuardedRedisCache) else None


def _users():
    return _user_model()._default_manager.select_related("player")


def _keep(cache: GuardedRedisCache, user, read_at: float, token_hash: str | None = None) -> None:
    if time.monotonic() - read_at > FRESH_SECONDS:
        return  # read long ago: a change may have come (and gone) meanwhile
    cache.add(USER_KEY % user.pk, user, COPY_SECONDS)  # never over a hold mark
    if token_hash is not None:
        cache.add(TOKEN_KEY % token_hash, user.pk, COPY_SECONDS)


def _copy(cache: GuardedRedisCache, user_id) -> object | None:
    user = cache.get(USER_KEY % user_id)
    return user if isinstance(user, _user_model()) and user.pk == user_id else None


def forget_user(user_id: int | None) -> None:
    """The user's copy is held off, now and once the current transaction commits; a Redis
    that cannot take the mark refuses the change (``unavailable``), nothing is changed."""
    cache = shared_cache()
    if cache is None or user_id is None:
        return
    key = USER_KEY % user_id
    try:
        cache.set_strict(key, HOLD, HOLD_SECONDS)
    except FAILED:
        # A domain refusal (the HTTP layer makes it a 503): it also reaches the admin's
        # saves and the services, which know nothing of the API.
        raise DomainError("unavailable", "this change cannot be made right now; try again shortly") from None
    transaction.on_commit(lambda: cache.set(key, HOLD, HOLD_SECONDS))


def _user_saving(sender, instance, raw=False, update_fields=None, **kwargs) -> None:
    if raw or instance._state.adding:
        return  # a new user has no copy
    if update_fields is not None and set(update_fields) == {"last_login"}:
        # A log-in (Django's update_last_login): no credential changed, and a log-in must
        # not need Redis. The copy goes if it can (only the export shows last_login).
        cache = shared_cache()
        try:
            if cache is not None:
                cache.delete(USER_KEY % instance.pk)
        except FAILED:
            pass
        return
    forget_user(instance.pk)


def _user_deleting(sender, instance, **kwargs) -> None:
    forget_user(instance.pk)


def _player_changing(sender, instance, raw=False, **kwargs) -> None:
    if raw or instance._state.adding:
        return
    forget_user(instance.user_id)


def connect_signals() -> None:
    """Every save and deletion of a user or a player holds the user's copy off (apps.py)."""
    user_model = get_user_model()
    pre_save.connect(_user_saving, sender=user_model, dispatch_uid="auth-copy-user-save")
    pre_delete.connect(_user_deleting, sender=user_model, dispatch_uid="auth-copy-user-delete")
    pre_save.connect(_player_changing, sender=Player, dispatch_uid="auth-copy-player-save")
    pre_delete.connect(_player_changing, sender=Player, dispatch_uid="auth-copy-player-delete")


class PlayerBackend(ModelBackend):
    """Loads a session's user with its player: the shared copy, or one query. Authenticates
    nobody itself: players log in by name (services.player_authenticate), staff through
    Django's ModelBackend, which is first in AUTHENTICATION_BACKENDS (a wrong password is
    hashed once). Django then checks the session's password hash against the user: a
    password changed elsewhere ends this session on its next request."""

    def authenticate(self, request, **credentials):
        return None

    def get_user(self, user_id):
        cache = shared_cache()
        user = _copy(cache, user_id) if cache is not None else None
        if user is None:
            read_at = time.monotonic()
            try:
                user = _users().get(pk=user_id)
            except _user_model().DoesNotExist:
                return None
            if cache is not None:
                _keep(cache, user, read_at)
        return user if self.user_can_authenticate(user) else None


def player_for_token(token: str) -> Player | None:
    digest = hash_token(token)
    cache = shared_cache()
    if cache is not None:
        user, _ = cache.read_pointed(TOKEN_KEY % digest, USER_KEY % "")
        player = getattr(user, "player", None) if isinstance(user, _user_model()) else None
        if player is not None and player.token_hash == digest:
            return player
    read_at = time.monotonic()
    try:
        user = _users().get(player__token_hash=digest)
    except _user_model().DoesNotExist:
        return None
    if cache is not None:
        _keep(cache, user, read_at, digest)
    return user.player


def token_player(authorization: bytes) -> tuple[Player | None, str]:
    """The player of an ``Authorization`` header, for every transport (auth_api.py's for
    HTTP, sockets.py's for the game socket): (player, ""), (None, "") when the header names
    no token (another credential may be there), or (None, "bad_token")."""
    header = authorization.split()
    if not header or header[0].lower() != b"token":
        return None, ""
    if len(header) != 2:
        return None, "bad_token"
    try:
        token = header[1].decode()
    except UnicodeError:
        return None, "bad_token"
    player = player_for_token(token)
    if player is None or player.user is None or not player.user.is_active:
        return None, "bad_token"
    return player, ""


class PrefetchMiddleware:
    """Right after SessionMiddleware: a request with a session cookie reads, in one Redis
    round trip, the session's cached copy (which Django's cached_db then reads from here)
    and the copy of the user its key points to (which PlayerBackend then reads from here).
    What it brought is only read the way it would have been read anyway: the session by
    its key, the user by the id the session names."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        cache = shared_cache()
        key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
        if (
            cache is None
            or not key
            or not key.isalnum()
            or settings.SESSION_ENGINE != "config.sessions"
            or settings.SESSION_CACHE_ALIAS != "default"
        ):
            return self.get_response(request)
        user, session = cache.read_pointed(SESSION_KEY % key, USER_KEY % "", SESSION_COPY + key)
        ready = {SESSION_COPY + key: session}
        if isinstance(user, _user_model()):
            ready[USER_KEY % user.pk] = user
        with cache.prefetched(ready):
            response = self.get_response(request)
        # The next request's user comes with its session: point this session at its user.
        found = getattr(request, "_cached_user", None)  # read from the session, if it was
        key_now = getattr(request.session, "session_key", None)
        if (
            found is not None
            and found.is_authenticated
            and key_now
            and (key_now != key or not isinstance(user, _user_model()) or user.pk != found.pk)
        ):
            cache.set(SESSION_KEY % key_now, found.pk, settings.SESSION_COOKIE_AGE)
        return response


def current_player(request) -> Player | None:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    try:
        # No query: the token's and the session's user came with their player.
        return user.player
    except Player.DoesNotExist:
        return None
