"""One deal, judged once for its whole field (docs/fairplay.md, "One deal for the field").

Everyone plays the same deal, and a game is a function of the deal and the asks: the
position after a line of asks is the same for every player who made them, and so is
everything the detector reads there — the table's posterior, the evidence of the next
ask, the opponent's asks that follow it. ``Field`` keeps a day's lines as a tree of
positions (a trie of asks): each node holds what the detector recorded while its ask was
played (``AskEvidence`` and the ``Outcome`` list, a few hundred bytes), and a bounded
number of nodes also hold the game and the watcher as they stood there (a snapshot), so
that a game that leaves the known lines is taken up from its last known position instead
of from the deal.

A game judged here gives the figures ``detector.assess`` gives it alone, to the bit: a
position's figures are computed by the same operations in the same order whichever game
reached it first (the watcher's belief is never written in place, so a snapshot is a
reference; tests/games/test_fairplay_field.py).

Cost: the posterior of a deal with long hands runs to tens of thousands of entries, and a
judgement from the deal then costs 30–450 ms on one core (against 2–7 ms on most deals);
a field shares the opening (docs/reports/…: the share of asks at a position already
judged). Memory is bounded twice: the snapshots by the belief entries they hold
(``SNAPSHOT_ENTRIES``, least recently used dropped first), the tree by its nodes
(``MAX_NODES``: past it, the tree starts again from the deal; only speed is lost).

``field_for`` keeps a process's fields, one lock for all (a web process's threads may
judge, for the reviewers' pages). Standard library only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from games.rules.base import deck_for
from games.rules.peche import ENGINE, PecheState, ask, deal

from . import detector
from .detector import AskEvidence, GameAssessment, Outcome, Watcher

# ~150 bytes an entry (a tuple key of 2–6 small ints and its float): ~300 MB at most.
SNAPSHOT_ENTRIES = 2_000_000
# A new line keeps a snapshot every this many asks (a game that leaves it later is taken up
# at most this many asks back).
SNAPSHOT_EVERY = 4
# ~0.5 kB a node: ~100 MB at most (a day of 10,000 games has ~60,000 positions).
MAX_NODES = 200_000
# The fields kept (``field_for``): today's and yesterday's, and one more.
FIELDS = 3


class _Node:
    __slots__ = ("children", "ask", "outcomes", "snapshot", "over")

    def __init__(self, ask: AskEvidence | None, outcomes: tuple[Outcome, ...], over: bool) -> None:
        self.children: dict[str, _Node] = {}
        self.ask = ask  # the evidence of the ask that led here (None at the deal)
        self.outcomes = outcomes  # the outcomes recorded while it was played
        self.over = over
        self.snapshot: tuple[PecheState, Watcher] | None = None


class Field:
    """The judged positions of one deal (``seed``, or a chosen ``deck``)."""

    def __init__(self, seed: str | None, *, deck: list[str] | None = None, snapshot_entries: int = SNAPSHOT_ENTRIES):
        self.deck = deck_for(seed, deck)
        self.snapshot_entries = snapshot_entries
        self.held = 0  # belief entries referenced by the snapshots (an upper bound: they share)
        self._lru: OrderedDict[_Node, int] = OrderedDict()
        self.nodes = 0
        self.judged = self.reused = 0  # asks judged here, asks read from the tree (the benchmark's)
        self._start()

    def _start(self) -> None:
        watcher = Watcher()
        state = deal(list(self.deck), watcher)
        self.root = _Node(None, tuple(watcher.outcomes), state.over)
        self._lru.clear()
        self.held = 0
        self.nodes = 1
        self.root.snapshot = (state, watcher)  # the deal's: never dropped

    def _keep(self, node: _Node, state: PecheState, watcher: Watcher) -> None:
        size = len(watcher.belief)
        node.snapshot = (state, watcher)
        self._lru[node] = size
        self.held += size
        while self.held > self.snapshot_entries and len(self._lru) > 1:
            old, size = self._lru.popitem(last=False)
            old.snapshot = None
            self.held -= size

    def assess(self, moves: Sequence[str]) -> GameAssessment:
        """The figure of the game ``moves`` of this deal, as ``detector.assess`` gives it.
        The moves must be a game the rules accept (the caller replays them first:
        ``ENGINE.replay`` raises the ReplayError); partial games too."""
        if self.nodes > MAX_NODES:
            self._start()
        path = [self.root]
        node = self.root
        for move in moves:
            child = node.children.get(move)
            if child is None:
                break
            path.append(child)
            node = child
        known = len(path) - 1
        self.reused += known
        if known < len(moves):
            self._extend(path, moves)
        asks = [n.ask for n in path[1:] if n.ask is not None]
        outcomes = [o for n in path for o in n.outcomes]
        return GameAssessment(asks, outcomes)

    def _extend(self, path: list[_Node], moves: Sequence[str]) -> None:
        """Judge the moves past the known ones, from the deepest snapshot on the path,
        adding their nodes to ``path`` and to the tree. Snapshots are kept where games
        part (the last known position, now a branch) and every SNAPSHOT_EVERY asks of a
        new line: most new lines are one game's own, never reached again."""
        start = max(i for i, n in enumerate(path) if n.snapshot is not None)
        base = path[start]
        assert base.snapshot is not None
        if base in self._lru:
            self._lru.move_to_end(base)
        state, watcher = base.snapshot[0].copy(), base.snapshot[1].fork()
        for i in range(start, len(path) - 1):  # known positions with no snapshot: played again
            ask(state, moves[i], watcher)
        node = path[-1]
        if node.snapshot is None and not state.over:
            self._keep(node, state.copy(), watcher.fork())
        for i in range(len(path) - 1, len(moves)):
            watcher.asks.clear()
            watcher.outcomes.clear()
            ask(state, moves[i], watcher)
            self.judged += 1
            child = _Node(watcher.asks[0], tuple(watcher.outcomes), state.over)
            node.children[moves[i]] = child
            self.nodes += 1
            path.append(child)
            node = child
            if not state.over and (i + 1) % SNAPSHOT_EVERY == 0:
                self._keep(child, state.copy(), watcher.fork())


_fields: OrderedDict[str, Field] = OrderedDict()
_lock = threading.Lock()


def field_for(seed: str) -> Field:
    """This process's field of the deal ``seed`` (the FIELDS most recently used are kept).
    Use it under ``_lock`` (``judge``)."""
    field = _fields.get(seed)
    if field is None:
        field = _fields[seed] = Field(seed)
        while len(_fields) > FIELDS:
            _fields.popitem(last=False)
    else:
        _fields.move_to_end(seed)
    return field


def judge(seed: str, moves: Sequence[str]) -> GameAssessment:
    """The figure of a game the rules accept (``detector.assess``'s), from this process's
    field of its deal."""
    with _lock:
        return field_for(seed).assess(moves)


def replay_judged(seed: str, moves: list[str]) -> tuple[PecheState, GameAssessment]:
    """``ENGINE.replay`` (the state, whose outcome is the result; the ReplayError it
    raises) and the game's figure from the field: what verification needs of a finished
    ranked game. The replay alone is ~0.1 ms; the figure's positions are judged once a
    process."""
    state = ENGINE.replay({"seed": seed}, moves)
    return state, judge(seed, moves)


def assess(
    seed: str | None, moves: list[Any], *, deck: list[str] | None = None, partial: bool = False
) -> GameAssessment:
    """``detector.assess``: a finished game of a seed from its field, any other from its deal."""
    if seed is not None and deck is None and not partial and isinstance(moves, list):
        if all(isinstance(move, str) for move in moves):
            return replay_judged(seed, moves)[1]
    return detector.assess(seed, moves, deck=deck, partial=partial)
