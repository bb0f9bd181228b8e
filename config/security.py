"""Security middleware of our own: forwarding headers believed only from the proxy, and the
response headers Django 5.2 does not set itself (Content-Security-Policy arrives in 6.0).

TrustedProxyMiddleware: the per-IP rate limits and the fair-play clusters take the client's
address from X-Forwarded-For (DRF's NUM_PROXIES), and https from X-Forwarded-Proto
(SECURE_PROXY_SSL_HEADER). Whoever reaches gunicorn without the proxy could write those
headers too, so when settings.TRUSTED_PROXIES names the proxy, they are dropped from every
request whose peer is not one of them: such a client is then known by its own address.

SecurityHeadersMiddleware: CONTENT_SECURITY_POLICY, PERMISSIONS_POLICY and REPORTING_ENDPOINTS
(where the policy's violations are reported: config/csp_reports.py) on every response
(pages, API, errors, static files served by WhiteNoise) that has not set its own.

DisallowedHostLogFilter: a request whose Host is not in ALLOWED_HOSTS is answered 400 by
Django, which logs it at ERROR; counted, and logged once a minute at most.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
import time

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, MiddlewareNotUsed

# Every header a proxy may add about the original request (WSGI names).
FORWARDING_HEADERS = (
    "HTTP_X_FORWARDED_FOR",
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_FORWARDED_HOST",
    "HTTP_X_FORWARDED_PORT",
    "HTTP_X_REAL_IP",
    "HTTP_FORWARDED",
)
# A peer on gunicorn's unix socket has no address (REMOTE_ADDR is ""): only processes the
# socket file's permissions let in can connect, i.e. the proxy next to it.
UNIX_SOCKET = "unix"


def parse_proxies(entries) -> tuple[bool, tuple]:
    """("10.0.0.5", "172.30.0.0/24", "unix") -> (unix trusted?, networks)."""
    unix, networks = False, []
    for entry in entries:
        entry = entry.strip()
        if not entry:
            continue
        if entry == UNIX_SOCKET:
            unix = True
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ImproperlyConfigured(f"DJANGO_TRUSTED_PROXIES: {entry!r} is no address, network or 'unix'") from None
    return unix, tuple(networks)


def is_trusted(peer: str, unix: bool, networks: tuple) -> bool:
    if not peer:
        return unix
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)  # IPv6 only
    if mapped:  # ::ffff:10.0.0.5 on a dual-stack socket
        address = mapped
    return any(address in network for network in networks)


class TrustedProxyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.unix, self.networks = parse_proxies(getattr(settings, "TRUSTED_PROXIES", ()))
        if not (self.unix or self.networks):
            # Nothing named: the headers are left alone and DJANGO_NUM_PROXIES alone decides.
            raise MiddlewareNotUsed

    def __call__(self, request):
        meta = request.META
        if not is_trusted(meta.get("REMOTE_ADDR", ""), self.unix, self.networks):
            for name in FORWARDING_HEADERS:
                meta.pop(name, None)
        return self.get_response(request)


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.headers = [
            (name, value)
            for name, value in (
                ("Content-Security-Policy", getattr(settings, "CONTENT_SECURITY_POLICY", "")),
                ("Permissions-Policy", getattr(settings, "PERMISSIONS_POLICY", "")),
                ("Reporting-Endpoints", getattr(settings, "REPORTING_ENDPOINTS", "")),
            )
            if value
        ]
        if not self.headers:
            raise MiddlewareNotUsed

    def __call__(self, request):
        response = self.get_response(request)
        for name, value in self.headers:
            response.headers.setdefault(name, value)
        return response


class DisallowedHostLogFilter(logging.Filter):
    """On the ``django.security.DisallowedHost`` logger: Django logs every request with a
    Host outside ALLOWED_HOSTS at ERROR, traceback included, so a client sending bad Hosts
    in a loop fills the error log (and the error reports). Each one is counted
    (``peche_disallowed_host_total``); one record a minute at most is let through, in this
    process, on one line, saying how many were left out since the last (``suppressed=N``).
    The client's answer is Django's 400 as before.

    The minute is the process's, not the instance's: logging configured twice (Django set
    up again by config/asgi.py in a process that had it) puts a second copy on the logger,
    and a record the first copy decided on is neither counted nor decided again."""

    INTERVAL = 60.0
    _lock = threading.Lock()
    _last: float | None = None
    _suppressed = 0

    def filter(self, record: logging.LogRecord) -> bool:
        decided = getattr(record, "peche_host_decided", None)
        if decided is not None:
            return decided
        from config import metrics  # at the first bad Host, not while logging is configured

        metrics.disallowed_host()
        now = time.monotonic()
        cls = DisallowedHostLogFilter
        with cls._lock:
            if cls._last is not None and now - cls._last < cls.INTERVAL:
                cls._suppressed += 1
                record.peche_host_decided = False
                return False
            suppressed, cls._suppressed, cls._last = cls._suppressed, 0, now
        # The traceback says nothing the message does not (where Django read the Host).
        record.msg, record.args = f"{record.getMessage()} suppressed={suppressed}", None
        record.exc_info = record.exc_text = record.stack_info = None
        record.peche_host_decided = True
        return True
