"""DRF's throttles and the log-in guards on the shared-cache counters of config/rates.py
(one atomic window per client and limit, across every web process; the reasons are there)."""

from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.core.cache import cache
from rest_framework.throttling import BaseThrottle

from config.rates import bump, bump_here, hit, parse_rate, refund

log = logging.getLogger(__name__)


class WindowThrottle(BaseThrottle):
    """A limit named ``scope`` in settings.RATE_LIMITS, counted per ``ident``."""

    scope = ""

    def ident(self, request) -> str:
        return f"ip:{self.get_ident(request)}"

    def allow_request(self, request, view) -> bool:
        self.retry_after = hit(self.scope, self.ident(request))
        return self.retry_after is None

    def wait(self) -> float | None:
        return self.retry_after


class PlayerCreateThrottle(WindowThrottle):
    """New players per client IP."""

    scope = "players"


class LoginThrottle(WindowThrottle):
    """Password log-ins per client IP (the API's; per IP and name: ``login_name_refused``)."""

    scope = "logins"


# --- log-ins: per address, per address and name, never per name alone -------------------
#
# A limit per username alone is a lock-out anyone can trigger: 30 wrong passwords from 3
# addresses locked the real staff account for an hour, from everywhere (2026-12-02). So a
# log-in is limited per client address (one address trying many names) and per address
# and name (one address guessing one name); the right password from an address that has
# not been guessing gets in. Failures per name across addresses are only counted, to log a
# burst at WARNING with the addresses it came from: a guesser with many addresses is an
# operator's matter (block them at the proxy), not a reason to refuse the name's owner.
# Not even a delay per name: a sleeping sync worker is one the guessers would hold.


def client_address(request) -> str:
    """The client's address as every rate limit here knows it (DRF's NUM_PROXIES)."""
    return BaseThrottle().get_ident(request)


def _name_ident(username: str) -> str:
    """A name as counters key it: case and surrounding spaces ignored, nothing of it kept."""
    # surrogatepass: whatever a caller hands in (a form's text, a lone surrogate) is counted.
    return hashlib.sha256(username.strip().casefold().encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _waited(*waits: int | None) -> int | None:
    counted = [w for w in waits if w is not None]
    return max(counted) if counted else None


def login_name_refused(scope: str, request, username: str) -> int | None:
    """One try at a password log-in, counted per client address and name (``scope``_name):
    None if it may go on, else the seconds to wait. Every try counts, the right password
    included (a guesser's last try is the right one). The API's per-address count is
    LoginThrottle's."""
    address = BaseThrottle().get_ident(request)
    return hit(f"{scope}_name", f"ip:{address}:user:{_name_ident(username)}")


def admin_login_refused(request, username: str) -> int | None:
    """The admin's log-in (staff passwords guard today's cards): per client address and
    per address and username. Every try is counted before its password is checked (so a
    burst of guesses sent at once is counted whole); a successful one is given back by
    ``admin_login_succeeded``: only failures lock, and the staff logging in as often as
    they like are never locked out by their own log-ins."""
    address = BaseThrottle().get_ident(request)
    return _waited(hit("admin_logins", f"ip:{address}"), login_name_refused("admin_logins", request, username))


def admin_login_succeeded(request, username: str) -> None:
    """The right password at the admin's log-in: its try no longer counts."""
    address = BaseThrottle().get_ident(request)
    refund("admin_logins", f"ip:{address}")
    refund("admin_logins_name", f"ip:{address}:user:{_name_ident(username)}")


# The addresses of each name's recent failures, when the cache cannot keep them.
_FAILED_FROM: dict[str, list[str]] = {}
_FAILED_FROM_MAX = 10_000
_ADDRESSES_KEPT = 20  # per name: enough to act on, bounded whatever the guessers do


def login_failed(scope: str, request, username: str) -> None:
    """A wrong password (or unknown name) at a log-in. Failures for one name from every
    address are counted over LOGIN_FAILURE_BURST ("N/period"); the Nth, 2Nth, … within a
    window logs a WARNING with the name and the addresses they came from."""
    burst = parse_rate(getattr(settings, "LOGIN_FAILURE_BURST", None))
    if burst is None:
        return
    threshold, period = burst
    address = BaseThrottle().get_ident(request) or "?"
    key = f"lf:{scope}:{_name_ident(username)}"
    try:
        count, _ = bump(key, period)
    except Exception:
        count, _ = bump_here(key, period)
    addresses = _remember_address(f"{key}:from", address, period)
    if count % threshold == 0:
        log.warning(
            "login failures burst scope=%s username=%r failures=%d period=%ds addresses=%s",
            scope,
            username.strip()[:64],
            count,
            period,
            ",".join(addresses),
        )


def _remember_address(key: str, address: str, period: int) -> list[str]:
    """The name's failing addresses so far in this window (best effort: a lost update
    under a race drops an address from a log line, nothing else)."""
    try:
        seen = cache.get(key) or []
    except Exception:
        seen = _FAILED_FROM.get(key, [])
    if address not in seen and len(seen) < _ADDRESSES_KEPT:
        seen = [*seen, address]
        try:
            cache.set(key, seen, timeout=period)
        except Exception:
            if len(_FAILED_FROM) >= _FAILED_FROM_MAX:
                _FAILED_FROM.clear()
            _FAILED_FROM[key] = seen
    return seen
