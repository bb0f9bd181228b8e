"""The leagues' refusals, for the writes (services) and the reads (selectors) alike: a
domain error with a code (config/errors.py gives the statuses). A league is private: to a
player who is not a member it does not exist (``not_found``)."""

from __future__ import annotations

from games.rules.base import DomainError


class LeagueError(DomainError):
    """A refusal of the leagues: ``code`` is the API's error code."""


def not_found() -> LeagueError:
    return LeagueError("not_found", "no such league")
