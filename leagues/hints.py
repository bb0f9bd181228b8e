"""Process state the league boards' selector reads: what this process last read of each
league's day board, to ask the rank index ahead of the next read's query. Kept apart from
the selectors, which only read: this is a process's memory, shared by its threads, and
lost with it (every answer is still the request's own query's)."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

from challenges.models import Player
from leaderboard import rank_index


class BoardHints:
    """What this process last read of each league's day board (the most recent KEPT): the
    day's challenge, the members, the attempts on it. A member's next read of that board
    sends the rank index its question first (rank_index.AskedRanks), so that Redis ranks
    while Postgres runs the board's query: side by side, not one after the other (a quarter
    less time a board, bench.leagues_scale). A hint only lets work start early: the answer
    is the request's own query's, and when a member has played since, every rank is asked
    again after it (_global_ranks). Only for a caller who was a member at the last read: a
    stranger's request sends Redis nothing, and its 404 takes no longer for a league whose
    board was read here. A member removed since sends the question once: their 404 forgets
    the hint."""

    KEPT = 256

    def __init__(self) -> None:
        self._lock = threading.Lock()  # threads of one process (gthread, ASGI) share it
        # (league, day) -> (the day's challenge, the members, the attempts, the question as
        # packed for Redis, or None until it is first asked)
        self._seen: dict[tuple[int, dt.date], tuple[int, frozenset[int], tuple[int, ...], Any]] = {}
        self.asking = True  # False: every read asks after its query (bench.leagues_scale compares)

    def ask(self, league_id: int, day: dt.date, member: Player | None) -> rank_index.AskedRanks | None:
        seen = self._seen.get((league_id, day))
        if seen is None or member is None or member.pk not in seen[1] or not self.asking:
            return None
        return rank_index.AskedRanks(seen[0], seen[2], seen[3])

    def keep(
        self, league_id: int, day: dt.date, rows: list[tuple], played: list[tuple], asked: rank_index.AskedRanks | None
    ) -> None:
        """``rows``: the board's query's; ``played``: those with a result; ``asked``: this
        read's question ahead, if any."""
        if not played:  # nothing to ask ahead next time
            self.forget(league_id, day)
            return
        challenge_id, attempts = played[0][6], tuple(row[2] for row in played if row[5])
        # The same question as this read's (nobody has played since): kept as it was packed.
        packed = None
        if asked is not None and (asked.challenge_id, asked.attempt_ids) == (challenge_id, attempts):
            packed = asked.packed
        seen = (challenge_id, frozenset(row[0] for row in rows), attempts, packed)
        with self._lock:
            self._seen.pop((league_id, day), None)  # the newest last: the oldest goes first
            self._seen[(league_id, day)] = seen
            if len(self._seen) > self.KEPT:
                del self._seen[next(iter(self._seen))]

    def forget(self, league_id: int, day: dt.date) -> None:
        with self._lock:
            self._seen.pop((league_id, day), None)

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()


board_hints = BoardHints()
