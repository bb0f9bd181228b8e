"""The day's explorer, its pure part: a tree of a closed day's ranked lines, like a chess
opening explorer for the one deal everyone played (``GET /api/challenges/<date>/positions``).

Everyone plays the same deal against the same deterministic opponent, so a position of
the day is named by the player's asks that reached it: the prefix of a game's moves. Each
node of the tree counts the games that reached it and the sum of their final scores; a
child is the next ask. A position is answered by walking its asks (their number of dict
lookups), whatever the size of the day: the day's games are read once (``build``), and the
caller keeps the tree while the day's counted games stay the same (leaderboard/positions.py).

Nothing here knows Django, the rules or a database (a test checks the imports): lines in,
counts out, so a benchmark or another caller builds the same tree from any list of lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

# How each next ask's figures are rounded in the answer: a share to 0.01 %, a mean score to
# a tenth of a point (scores are whole points: the tenth says "about" without lying).
SHARE_DIGITS = 4
MEAN_DIGITS = 1


class Node:
    """A position of the day: how many counted games reached it, the sum of their final
    scores, the next asks (rank → Node, created on the first game that asked it), and one
    analysed game that asked from here (its attempt id, 0 if none known: the engine's
    values at this position are read from that game's stored analysis)."""

    __slots__ = ("players", "score_sum", "children", "analysed")

    def __init__(self) -> None:
        self.players = 0
        self.score_sum = 0
        self.children: dict[str, Node] | None = None  # None at a leaf: most nodes of a day are
        self.analysed = 0


class Tree:
    """The day's ranked lines as a tree of positions; ``games`` the lines added."""

    __slots__ = ("root", "games", "nodes")

    def __init__(self) -> None:
        self.root = Node()
        self.games = 0
        self.nodes = 1

    def add(self, moves: Sequence[str], score: int) -> None:
        """One counted game: its every position, the start and its end included, gains a
        player and its score."""
        node = self.root
        node.players += 1
        node.score_sum += score
        for rank in moves:
            children = node.children
            if children is None:
                children = node.children = {}
            child = children.get(rank)
            if child is None:
                child = children[rank] = Node()
                self.nodes += 1
            child.players += 1
            child.score_sum += score
            node = child
        self.games += 1

    def find(self, moves: Sequence[str]) -> Node | None:
        """The position those asks reach, or None when no counted game reached it."""
        node: Node | None = self.root
        for rank in moves:
            if node is None or node.children is None:
                return None
            node = node.children.get(rank)
        return node

    def analysed_through(self, moves: Sequence[str], attempt_id: int) -> int:
        """An analysed game's line: each position it asked from (that a counted game reached
        too) keeps it as where the engine's values are read, unless another analysed game
        was kept there first (the answer of a position does not change from one read to the
        next). Its last position is the end: no ask, no values. Returns the positions marked."""
        node: Node | None = self.root
        marked = 0
        for rank in moves:
            if node is None:
                break
            if not node.analysed:
                node.analysed = attempt_id
                marked += 1
            node = node.children.get(rank) if node.children else None
        return marked

    def answer(self, moves: Sequence[str]) -> dict[str, Any]:
        """The explorer's counts at the position those asks reach: ``players`` the games
        that reached it, ``next`` each ask made from it (the most asked first, then by
        rank's name for a stable order) with its games, its share of ``players`` and the
        mean final score of the games that asked it. A position nobody reached: 0 players,
        no next ask (not an error: the caller may name any legal-looking line)."""
        node = self.find(moves)
        if node is None:
            return {"players": 0, "next": []}
        children = node.children or {}
        ordered = sorted(children.items(), key=lambda item: (-item[1].players, item[0]))
        return {
            "players": node.players,
            "next": [
                {
                    "rank": rank,
                    "players": child.players,
                    "share": round(child.players / node.players, SHARE_DIGITS),
                    "mean_score": round(child.score_sum / child.players, MEAN_DIGITS),
                }
                for rank, child in ordered
            ],
        }


def build(lines: Iterable[tuple[Sequence[str], int]]) -> Tree:
    """The tree of a day's counted games, each given as (its asks, its final score)."""
    tree = Tree()
    for moves, score in lines:
        tree.add(moves, score)
    return tree


def engine_at(asks: Sequence[dict[str, Any]], depth: int) -> dict[str, Any] | None:
    """The engine's view of the position after ``depth`` asks, from a stored analysis of a
    game that passed through it (``GameAnalysis.asks``: games.analysis.game.AskAnalysis
    ``as_dict`` of each ask, the k-th valued at the position its first k asks reached):
    each rank in hand's value (expected final pair difference if asked there) and the
    engine's own ask. None if the analysis has no ask there."""
    if not 0 <= depth < len(asks):
        return None
    ask = asks[depth]
    return {"values": dict(ask["values"]), "best": ask["best"]}
