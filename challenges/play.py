"""Stored games: a game kept as its deal and its moves (a daily attempt, a casual game),
and the one service that applies moves to one: ``move_write`` plays them and builds the
compare-and-set, ``stored`` runs it through a writer (config/db.py) and applies what
landed. Every state is derived by replaying the moves on the deal (lila's ``Puzzle``): the
moves are the only game state we write."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict, cast

from django.db import DEFAULT_DB_ALIAS, connections, models
from django.utils import timezone

from config.db import CURSOR, Writer, at_once
from games.rules.base import Engine, GameOver, StaleMove
from games.rules.events import Event
from games.rules.session import Session

PLAYING = "playing"

# Compare-and-set on the number of moves: moves are only ever appended, and only by this
# statement, so "still playing with `move` moves" means nobody changed the game meanwhile.
# One plain statement, not the ORM's update(): its query building cost ~1 ms of CPU on
# the ask, the hot path (bench/ask_cpu.py, docs/benchmarks.md).
_WRITE = "UPDATE {table} SET {columns} WHERE id = %s AND status = 'playing' AND {length}(moves) = %s{guard}"
_JSON_LENGTH = {"postgresql": "jsonb_array_length", "sqlite": "json_array_length"}

# What a play makes of the replayed state: the moves it made, and the events of the last.
Play = Callable[[Engine, Any], tuple[list[Any], list[Event]]]


class StoredGame(models.Model):
    """A game stored as a deal (``deal()``: the engine's config) and the moves of the
    deciding seat, with a ``status`` that is ``playing`` until the moves end it."""

    moves = models.JSONField(default=list)
    status: Any

    class Meta:
        abstract = True

    def engine(self) -> Engine:
        raise NotImplementedError

    def deal(self) -> dict[str, Any]:
        raise NotImplementedError

    def refuse_move(self, now: dt.datetime) -> None:
        """Raise a domain error if this game, still playing, may not take a move now."""

    def write_guard(self, now: dt.datetime) -> tuple[str, list[Any]]:
        """More of the compare-and-set's condition (`` AND …``, with its parameters): what
        ``refuse_move`` checked on the game as read, checked again by the write itself."""
        return "", []

    def after_moves(self, eng: Engine, state: Any, now: dt.datetime) -> dict[str, Any]:
        """The fields written with new moves (e.g. the status and result once over)."""
        return {}

    def session(self) -> Session:
        return Session(self.engine(), self.deal(), self.moves)

    def state(self) -> Any:
        """The state after the stored moves (the deal replayed)."""
        return self.session().replay()


def one_move(move: Any) -> Play:
    return lambda eng, state: ([move], eng.apply(state, move))


@dataclass(slots=True)
class Write:
    """A move played on a game's state and the compare-and-set that stores it, not yet run
    (``move_write``); ``stored`` runs it and applies what landed."""

    game: StoredGame
    eng: Engine
    state: Any
    events: list[Event]
    changes: dict[str, Any]
    statement: str
    params: list[Any]

    def landed(self, rows: int) -> tuple[Engine, Any, list[Event]]:
        """After the statement: the game updated in place, or ``StaleMove`` if it changed
        nothing (another request changed the game first, or the write's guard refused)."""
        if rows != 1:
            raise StaleMove("another request changed this game first")
        for name, value in self.changes.items():
            setattr(self.game, name, value)
        return self.eng, self.state, self.events


def move_write(game: StoredGame, *, move: int, play: Play, now: dt.datetime | None = None, state: Any = None) -> Write:
    """``play`` applied to ``game`` (read without a lock) and the statement that stores the
    moves it made. ``move`` must equal the number of moves already made: a stale or
    repeated request (double click, two tabs, retry) is ``StaleMove`` and changes nothing; a
    refused move (``GameError``) changes nothing either. ``state``: the state after
    ``game.moves`` if the caller holds it (a WebSocket keeps its game between asks), else
    the deal is replayed. ``play`` changes it in place: when the write then does not land,
    it is stale, and the caller must read the game again."""
    now = now or timezone.now()
    if game.status != PLAYING:
        raise GameOver(f"this game is {game.status}")
    game.refuse_move(now)
    if move != len(game.moves):
        raise StaleMove(f"move is {len(game.moves)}, not {move}")
    if state is None:
        session = game.session()
        eng, state = session.engine, session.replay()
    else:
        eng = game.engine()
    made, events = play(eng, state)
    changes = {"moves": [*game.moves, *made], **game.after_moves(eng, state, now)}
    fields = [cast(models.Field, game._meta.get_field(name)) for name in changes]
    guard, guard_params = game.write_guard(now)
    db = connections[DEFAULT_DB_ALIAS]  # once: each use of the proxy looks it up again (a Local)
    statement = _WRITE.format(
        table=game._meta.db_table,
        length=_JSON_LENGTH[db.vendor],
        columns=", ".join(f"{field.column} = %s" for field in fields),
        guard=guard,
    )
    params = [
        *(field.get_db_prep_save(value, db) for field, value in zip(fields, changes.values(), strict=True)),
        game.pk,
        move,
        *guard_params,
    ]
    return Write(game, eng, state, events, changes, statement, params)


async def stored(write: Write, writer: Writer) -> tuple[Engine, Any, list[Event]]:
    """Run the write, then apply what landed: (engine, state, events), the game updated in
    place; or ``StaleMove`` if the statement changed nothing. ``writer``: Django's
    connection (``CURSOR``, run with ``at_once``) or the game socket's libpq runner.

    No row lock: the write is one compare-and-set on the number of moves read, so of two
    racing requests exactly one lands and the other is ``StaleMove`` (two round trips)."""
    return write.landed(await writer.changed(write.statement, write.params))


def play_stored(game: StoredGame, *, move: int, play: Play, now: dt.datetime | None = None):
    """Apply ``play`` to ``game`` and store the moves it made on Django's connection
    (``move_write``, then ``stored``). Returns (engine, state, events)."""
    return at_once(stored(move_write(game, move=move, play=play, now=now), CURSOR))


class GameView(TypedDict):
    """What a player sees of a stored game, daily or casual, in one shape: these fields,
    then every field of the engine's seat-0 view (``Engine.view``: its hand, pairs or
    piles, ``over``, ``outcome``…) at the same level, then what the kind of game adds
    (the daily's date and result, the casual's number and tally). The engines' views use
    none of these names (tests/test_stored_games.py)."""

    id: int
    game: str  # the engine's name: peche, kitten, gofish
    status: str
    move: int  # moves made: the next move sends it back (a stale number is refused)
    # What happened since the request's move (or the deal's opening), as seat 0 sees it;
    # only in the answer to a move or to a new game.
    events: NotRequired[list[dict[str, Any]]]


def game_view(game: StoredGame, eng: Engine, state: Any, events: list[Event] | None = None) -> dict[str, Any]:
    """Seat 0's view of ``game`` in ``state`` (GameView): built from the game as read and
    its state, without a query."""
    view: dict[str, Any] = {
        "id": game.pk,
        "game": eng.name,
        "status": game.status,
        "move": len(game.moves),
        **eng.view(state, 0),
    }
    if events is not None:
        view["events"] = [eng.event_view(e, 0) for e in events]
    return view
