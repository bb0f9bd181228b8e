"""What the operator commands share: reading a day, finding its challenge, progress bars."""

from __future__ import annotations

import datetime as dt
import sys

from django.core.management.base import CommandError
from tqdm import tqdm

from challenges import days
from challenges.models import DailyChallenge
from challenges.services import DAILY_GAME

_RELATIVE = {"yesterday": -1, "today": 0, "tomorrow": 1}


def day_argument(text: str) -> dt.date:
    """``YYYY-MM-DD``, or today / yesterday / tomorrow on the server's day (CHALLENGE_TIMEZONE)."""
    if text.lower() in _RELATIVE:
        return days.today() + dt.timedelta(days=_RELATIVE[text.lower()])
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{text!r} is not a date: write YYYY-MM-DD, today, yesterday or tomorrow") from None


def existing_challenge(day: dt.date, game: str = DAILY_GAME) -> DailyChallenge:
    found = DailyChallenge.objects.filter(game=game, date=day).first()
    if found is None:
        raise CommandError(f"there is no {game} challenge for {day} (create it: manage.py challenge create {day})")
    return found


def progress(iterable=None, *, total: int | None, desc: str, verbosity: int = 1):
    """A bar on stderr while it is a terminal (never in logs or pipes), none at verbosity 0."""
    return tqdm(iterable, total=total, desc=desc, unit="", file=sys.stderr, disable=True if verbosity == 0 else None)
