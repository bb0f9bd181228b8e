"""The day's explorer's reads (``GET /api/challenges/<date>/positions``): for a position of
a closed day, the counted games that reached it, each next ask's share and mean final
score, and the analysis engine's values there. Reads only.

The counts come from a tree of the day's lines (leaderboard/explorer.py) built once from
the games the archive publishes (``selectors.ranked_results``, newcomers' provisional
results left out as the archive leaves them: the explorer's figures are a count anyone can
make from the archive) and kept in this process. A closed day's games change only when a
game is held or disqualified (a reviewer's decision, or a week or history flag raised by a
later game: several code paths, some with a bulk ``update`` that sends no signal), or a
game still verifying at the close ranks. So the tree is keyed by a fingerprint of the
counted set itself: its size and the sum of its attempt ids, one aggregate over the day's
rows (``result_ranking`` index). Any hold, release, disqualification or late result changes
it; only a swap of two games for two others with the same id sum between two reads would
not, and the next change would correct it. The fingerprint costs a few milliseconds at
10,000 games, so a process reads it at most every ``FRESH_SECONDS`` per day: a decision is
seen that much later here (a CDN keeps a settled day's answers an hour: caching.CDN_SECONDS).

Why in-process and not Django's cache (Redis in production): the tree of 10,000 games is
tens of thousands of nodes; unpickling it from Redis on every request would cost more than
the 20 ms the explorer may take, and storing each position separately would make the build
a write of every node. Each worker builds the days it is asked about once (a fraction of a
second at 10,000 games, docs/benchmarks.md) and keeps the last few (``KEEP_DAYS``).

The engine's values are read from a stored analysis (challenges.models.GameAnalysis) of a
game that asked from that position: the tree marks, per position, one analysed game that
passed through it. Analyses arrive after the close (the beat's, or a reader's request), so
the marks are topped up from the analyses written since, at most every
``ENGINE_REFRESH_SECONDS``: a position may answer ``engine: null`` that long after its first
analysis exists, never a wrong value. The analyses read are kept, parsed, in a small LRU
(``KEEP_ANALYSES``): one game's analysis answers every position of its line.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Sum

from challenges.models import Attempt, GameAnalysis
from games.analysis.game import VERSION as ANALYSIS_VERSION
from games.rules.cards import RANK_SET
from games.rules.peche import ALL_PAIRS

from . import explorer
from .selectors import ranked_results

# No game of Pêche has more asks of the player: each either forms a pair (26 in all) or
# goes fishing and draws one of the lake's 42 cards (52 less the 10 dealt); with the lake
# empty every card left is in a hand, so an ask always finds its card.
MAX_MOVES = ALL_PAIRS + 42
KEEP_DAYS = 4  # days kept per process: today's closed day, and a few before it people look back at
ENGINE_REFRESH_SECONDS = 10.0
FRESH_SECONDS = 1.0  # how often a process reads a kept day's fingerprint again
KEEP_ANALYSES = 512  # parsed analyses kept per process (about 10 kB each)
READ_BATCH = 2000


class BadMoves(ValueError):
    """A ``moves`` that names no line: ``code`` is the API's (``bad_moves``, ``too_many_moves``)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


def parse_moves(text: str | None) -> list[str]:
    """The asks a ``moves`` parameter names: ranks separated by commas (``7,Q``, ``10,A``),
    none for the start (absent or empty). Raises BadMoves on anything else."""
    if not text:
        return []
    if len(text) > 3 * MAX_MOVES:  # checked before splitting: a huge parameter costs nothing
        raise BadMoves("too_many_moves", f"a game has at most {MAX_MOVES} asks")
    moves = text.split(",")
    if len(moves) > MAX_MOVES:
        raise BadMoves("too_many_moves", f"a game has at most {MAX_MOVES} asks")
    for rank in moves:
        if rank not in RANK_SET:
            raise BadMoves("bad_moves", "'moves' is ranks separated by commas (A, 2–10, J, Q, K), e.g. 7,Q")
    return moves


@dataclass
class _Day:
    fingerprint: tuple[int, int]
    tree: explorer.Tree
    analysed: set[int] = field(default_factory=set)  # the analyses folded in (attempt ids)
    engine_checked: float = 0.0  # time.monotonic() of the last look for new analyses
    checked: float = field(default_factory=time.monotonic)  # of the last fingerprint read
    lock: threading.Lock = field(default_factory=threading.Lock)


_kept: OrderedDict[int, _Day] = OrderedDict()
_kept_lock = threading.Lock()
_analyses: OrderedDict[int, list[dict[str, Any]]] = OrderedDict()


def forget() -> None:
    """Drop every kept day and analysis (tests; a process that wants its memory back)."""
    with _kept_lock:
        _kept.clear()
        _analyses.clear()


def _counted(challenge_id: int):
    """The games the explorer counts: the archive's (ranked, neither held nor disqualified,
    not a newcomer's provisional result)."""
    return ranked_results(challenge_id).filter(provisional=False)


def _fingerprint(challenge_id: int) -> tuple[int, int]:
    found = _counted(challenge_id).aggregate(n=Count("attempt_id"), ids=Sum("attempt_id"))
    return found["n"], found["ids"] or 0


def _build(challenge_id: int, fingerprint: tuple[int, int]) -> _Day:
    rows = _counted(challenge_id).order_by("attempt_id").values_list("attempt__moves", "score")
    return _Day(fingerprint, explorer.build((moves, score) for moves, score in rows.iterator(chunk_size=READ_BATCH)))


def _day(challenge_id: int) -> _Day:
    with _kept_lock:
        day = _kept.get(challenge_id)
        if day is not None and time.monotonic() - day.checked < FRESH_SECONDS:
            _kept.move_to_end(challenge_id)
            return day
    fingerprint = _fingerprint(challenge_id)
    with _kept_lock:
        day = _kept.get(challenge_id)
        if day is not None and day.fingerprint == fingerprint:
            day.checked = time.monotonic()
            _kept.move_to_end(challenge_id)
            return day
    # Built outside the shared lock (another day's readers do not wait); two requests of a
    # changed day in the same moment may both build it, and the later one is kept.
    day = _build(challenge_id, fingerprint)
    with _kept_lock:
        _kept[challenge_id] = day
        _kept.move_to_end(challenge_id)
        while len(_kept) > KEEP_DAYS:
            _kept.popitem(last=False)
    return day


def _engine_marks(challenge_id: int, day: _Day) -> None:
    """Fold the day's analyses written since the last look into the tree's marks."""
    now = time.monotonic()
    if day.engine_checked and now - day.engine_checked < ENGINE_REFRESH_SECONDS:
        return
    if not day.lock.acquire(blocking=False):
        return  # another request of this process is folding them in: answer with what is marked
    try:
        day.engine_checked = now
        ids = GameAnalysis.objects.filter(version=ANALYSIS_VERSION, attempt__challenge_id=challenge_id)
        new = sorted(set(ids.values_list("attempt_id", flat=True)) - day.analysed)
        for start in range(0, len(new), READ_BATCH):
            batch = new[start : start + READ_BATCH]
            for attempt_id, moves in Attempt.objects.filter(pk__in=batch).order_by("pk").values_list("pk", "moves"):
                day.tree.analysed_through(moves, attempt_id)
            day.analysed.update(batch)
    finally:
        day.lock.release()


def _engine(attempt_id: int, depth: int) -> dict[str, Any] | None:
    with _kept_lock:
        asks = _analyses.get(attempt_id)
        if asks is not None:
            _analyses.move_to_end(attempt_id)
    if asks is None:
        asks = (
            GameAnalysis.objects.filter(attempt_id=attempt_id, version=ANALYSIS_VERSION)
            .values_list("asks", flat=True)
            .first()
        )
        if asks is None:
            return None
        with _kept_lock:
            _analyses[attempt_id] = asks
            while len(_analyses) > KEEP_ANALYSES:
                _analyses.popitem(last=False)
    return explorer.engine_at(asks, depth)


def day_position(*, challenge_id: int | None, moves: list[str]) -> dict[str, Any]:
    """The explorer's answer at the position ``moves`` reach on a closed day (the caller
    checks it is closed): ``players``, ``next`` (explorer.Tree.answer) and ``engine`` (the
    analysis engine's ``values`` and ``best`` ask there, None while no analysed counted
    game's line is known to pass through it)."""
    if challenge_id is None:  # a day nobody opened: nobody played it
        return {"players": 0, "next": [], "engine": None}
    day = _day(challenge_id)
    _engine_marks(challenge_id, day)
    answer = day.tree.answer(moves)
    node = day.tree.find(moves) if answer["next"] else None
    answer["engine"] = _engine(node.analysed, len(moves)) if node is not None and node.analysed else None
    return answer
