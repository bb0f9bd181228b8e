"""What challenges needs from the app built on it, without importing it.

Dependencies run one way (games <- challenges <- leaderboard <- frontend), yet verifying an
attempt writes its result, an attempt's view shows its rank and the sweeper also catches
the rank index up: all three are leaderboard's. Leaderboard plugs its functions in here
from LeaderboardConfig.ready(); calling a hook nobody provided is a configuration error,
never a silent no-op (a verified attempt without its result would be lost).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import ImproperlyConfigured

NAMES = ("record_results", "result_rank", "after_sweep")
_provided: dict[str, Callable[..., Any]] = {}


def provide(**functions: Callable[..., Any]) -> None:
    unknown = set(functions) - set(NAMES)
    if unknown:
        raise ImproperlyConfigured(f"unknown challenges hooks: {sorted(unknown)}")
    _provided.update(functions)


def _hook(name: str) -> Callable[..., Any]:
    try:
        return _provided[name]
    except KeyError:
        raise ImproperlyConfigured(f"no installed app provides challenges.hooks.{name} (leaderboard does)") from None


def record_results(*, verified: list[tuple]) -> list[Any]:
    """Write each verified attempt's result from ``(attempt, outcome, assessment or None)``;
    the caller holds the attempts' row locks inside its transaction."""
    return _hook("record_results")(verified=verified)


def result_rank(result: Any) -> int | None:
    """A result's rank on its day (None when it does not rank)."""
    return _hook("result_rank")(result)


def after_sweep() -> None:
    """The sweeper's second half: what the apps above must catch up on after it."""
    _hook("after_sweep")()
