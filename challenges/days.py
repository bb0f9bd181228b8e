"""The server's day: dates come from the server clock in CHALLENGE_TIMEZONE, never a client."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from games.rules.base import DomainError


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


DATE_SHAPE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def day_named(text: str, now: dt.datetime | None = None) -> dt.date:
    """The day a URL names (``today`` or YYYY-MM-DD), from FIRST_DAY to today; anything
    else is a DomainError (``bad_date`` for the shape, ``not_found`` for the range)."""
    if text == "today":
        return today(now)
    if not DATE_SHAPE.match(text):
        raise DomainError("bad_date", "dates are YYYY-MM-DD")
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        day = None
    if day is None or day < settings.FIRST_DAY:
        raise DomainError("not_found", "there is no challenge on that day")
    if day > today(now):
        raise DomainError("not_found", "this day has not started yet")
    return day
