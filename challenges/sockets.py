"""Who may open a game socket (challenges/consumers.py).

The handshake authenticates exactly as the HTTP API does (challenges/auth.py,
REST_FRAMEWORK's order): ``Authorization: Token …`` first, else the browser's session
cookie, read through the same session engine and checked by Django (``get_user``: the
password hash the session was made with). The Origin is checked as Django's CSRF check
reads it: the page's own host (one of ALLOWED_HOSTS) or one of CSRF_TRUSTED_ORIGINS. A
browser always sends an Origin with a socket, and only a browser sends cookies by
itself: a handshake without an Origin may authenticate by token only.
"""

from __future__ import annotations

from importlib import import_module
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user
from django.http import parse_cookie
from django.http.request import split_domain_port, validate_host

from .auth import player_for_token
from .models import Player


def headers_of(scope: dict[str, Any]) -> dict[bytes, bytes]:
    return {name.lower(): value for name, value in scope.get("headers", [])}


def host_allowed(scope: dict[str, Any]) -> bool:
    """The Host header names one of ALLOWED_HOSTS, as Django requires of every request."""
    host = headers_of(scope).get(b"host", b"").decode("latin-1")
    domain, _ = split_domain_port(host)
    return bool(domain) and validate_host(domain, settings.ALLOWED_HOSTS)


def origin_of(scope: dict[str, Any]) -> str | None:
    origin = headers_of(scope).get(b"origin")
    return origin.decode("latin-1") if origin is not None else None


def origin_allowed(scope: dict[str, Any], origin: str) -> bool:
    """The page's own origin (same host and port as the handshake's Host), or one of
    CSRF_TRUSTED_ORIGINS (exact, or ``https://*.example.com``), as Django's CSRF check."""
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    for trusted in settings.CSRF_TRUSTED_ORIGINS:
        scheme, _, host = trusted.partition("://")
        if host.startswith("*.") and scheme == parts.scheme and parts.netloc.endswith(host[1:]):
            return True
    host = headers_of(scope).get(b"host", b"").decode("latin-1")
    return parts.netloc.lower() == host.lower() and host_allowed(scope)


def credential_of(scope: dict[str, Any]) -> str:
    """The credential the handshake presents, as sent (the Authorization header, else the
    session cookie), or "": a key to count sockets by before the database is asked whose
    it is. Nothing is granted on it."""
    headers = headers_of(scope)
    authorization = headers.get(b"authorization")
    if authorization:
        return "authorization:" + authorization.decode("latin-1")
    key = parse_cookie(headers.get(b"cookie", b"").decode("latin-1")).get(settings.SESSION_COOKIE_NAME)
    return f"session:{key}" if key else ""


def scope_player(scope: dict[str, Any]) -> tuple[Player | None, str, str]:
    """(player, how, refusal): ``how`` is "token" or "session"; without a player, the
    refusal's code (``bad_token``, ``not_authenticated``) as the HTTP API answers it."""
    headers = headers_of(scope)
    authorization = headers.get(b"authorization", b"").split()
    if authorization and authorization[0].lower() == b"token":
        if len(authorization) != 2:
            return None, "token", "bad_token"
        try:
            token = authorization[1].decode()
        except UnicodeError:
            return None, "token", "bad_token"
        player = player_for_token(token)
        if player is None or player.user is None or not player.user.is_active:
            return None, "token", "bad_token"
        return player, "token", ""
    cookies = parse_cookie(headers.get(b"cookie", b"").decode("latin-1"))
    key = cookies.get(settings.SESSION_COOKIE_NAME)
    if not key:
        return None, "session", "not_authenticated"
    session = import_module(settings.SESSION_ENGINE).SessionStore(key)
    user = get_user(SimpleNamespace(session=session))  # type: ignore[arg-type]
    if not user.is_authenticated:
        return None, "session", "not_authenticated"
    try:
        return user.player, "session", ""
    except Player.DoesNotExist:
        return None, "session", "not_authenticated"
