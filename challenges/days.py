"""The server's day: dates come from the server clock in CHALLENGE_TIMEZONE, never a client."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone


def zone() -> ZoneInfo:
    return ZoneInfo(settings.CHALLENGE_TIMEZONE)


def today(now: dt.datetime | None = None) -> dt.date:
    return (now or timezone.now()).astimezone(zone()).date()


def closes_at(day: dt.date) -> dt.datetime:
    """The instant the day ends (next midnight, server timezone)."""
    return dt.datetime.combine(day + dt.timedelta(days=1), dt.time(0), tzinfo=zone())


def reveals_at(day: dt.date) -> dt.datetime:
    """The end of the day's grace: the seed is published, ranked asks are refused."""
    return closes_at(day) + settings.DAILY_CLOSE_GRACE


def opens_at(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(0), tzinfo=zone())


def daily_seed(game: str, day: dt.date, rules_version: int) -> str:
    message = f"{game}:{day.isoformat()}:v{rules_version}".encode()
    return hmac.new(settings.DAILY_SEED_SECRET.encode(), message, hashlib.sha256).hexdigest()


def commitment(seed: str) -> str:
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()
