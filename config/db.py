"""Running statements: what the apps share of the database below the ORM.

- ``one_statement``: around a single write that a unique constraint may refuse.
- ``prepared_rows``: a read whose statement Postgres prepares once per connection (the
  league boards').
- The writers of a stored game's compare-and-set (challenges/play.py ``stored``): one
  interface, ``await writer.changed(statement, params)`` → the rows it changed, committed on
  return. ``CURSOR``: Django's connection (the HTTP ask, the casual games, a socket's ask on
  a thread); its ``changed`` never suspends, so a synchronous caller runs the write with
  ``at_once``. ``Runner``: libpq's own calls on an event loop's connections (the game
  socket's usual ask: ``runner()``).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import weakref
from collections.abc import Coroutine
from contextlib import nullcontext
from typing import Any, Protocol, TypeVar

import psycopg
from django.db import connection, connections, transaction
from psycopg import pq
from psycopg.pq.abc import PGresult
from psycopg.types.json import Json, Jsonb

T = TypeVar("T")


def one_statement(using: str | None = None):
    """Around a single write that a unique constraint may refuse: inside a transaction a
    savepoint, so that the refusal does not break the transaction; outside one nothing,
    since the statement is its own transaction (Django's atomic() would add a BEGIN and a
    COMMIT, two more round trips)."""
    return transaction.atomic(using=using) if transaction.get_connection(using).in_atomic_block else nullcontext()


def prepared_rows(sql: str, params: list) -> list[tuple]:
    """The rows of ``sql``, in one round trip on Django's connection.

    On Postgres through a cursor that binds the parameters on the server, so that the query
    is a prepared statement of the connection (psycopg prepares it on its first run:
    ``prepare_threshold`` in config/settings/base.py) and Postgres, after five runs,
    keeps one generic plan instead of parsing and planning each request's query again:
    that was 0.5 ms of the ~2 ms of Postgres CPU a league board cost (bench.leagues_scale).
    Django's cursors bind on the client (the query is sent with its values written in) and
    are never prepared. The cursor has none of the time zone loaders Django's cursor may
    add: for queries that read no timestamp."""
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    # What connection.cursor() does, with the server-binding cursor class: the debug cursor
    # when queries are recorded (DEBUG, tests), and database errors as Django's.
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_thread_sharing()
    with connection.wrap_database_errors:
        # The driver's cursor, which Django wraps (django-stubs type it as the wrapper).
        raw: Any = psycopg.Cursor(connection.connection)
    wrapped = connection.make_debug_cursor(raw) if connection.queries_logged else connection.make_cursor(raw)
    with wrapped as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


# --- the writers ------------------------------------------------------------------------


class Writer(Protocol):
    async def changed(self, statement: str, params: list[Any]) -> int:
        """Run ``statement`` (committed on return, or in the caller's transaction); the
        number of rows it changed."""
        ...


class Cursor:
    """Django's connection as a writer (``CURSOR``): the statement as Django runs it, with
    its errors (``OperationalError`` when the database cannot be reached)."""

    async def changed(self, statement: str, params: list[Any]) -> int:
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            return cursor.rowcount


CURSOR = Cursor()


def at_once(coroutine: Coroutine[Any, Any, T]) -> T:
    """The result of a coroutine that never suspends (one that writes through ``CURSOR``),
    run here, without an event loop: one write path for the synchronous callers and the
    socket's loop."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("at_once: the coroutine waited (an asynchronous writer on a synchronous path)")


# The libpq runner. A thread hop per ask (the pool's queue, a futex wake-up each way,
# Django's connection checks before and after) cost about a quarter of the socket process's
# CPU per ask; a bare consumer measured 0.80 ms per message through a thread and 0.60 ms on
# an asynchronous psycopg connection. The statement is run on libpq itself (psycopg's ``pq``
# wrapper), prepared once per connection: psycopg's asynchronous cursor spent 95-155 µs of
# CPU per UPDATE here (its query conversion, adaptation, and a task per wait for
# readiness), libpq's own calls with a future per wait 25-45 µs (the same UPDATE, 3,000
# times, uvloop; 2026-12-03). The statements are Django's (``%s`` placeholders), with
# parameters of a few plain types sent as text.
#
# A few connections per event loop, each used by one statement at a time, opened on first
# use with Django's connection parameters (settings.DATABASES) and without a transaction:
# each statement is committed before its answer is sent. A connection that fails is
# dropped; the next statement opens another. Postgres only.

# Connections per event loop (one uvicorn process: one loop). An ask holds one for a round
# trip to Postgres; 64 sockets at 500 asks/s keep two or three busy.
SIZE = 4
Error = psycopg.Error


def _text(value: Any) -> bytes | None:
    """A parameter as Postgres reads it in text (the types ``move_write`` binds)."""
    if value is None:
        return None
    if isinstance(value, (Jsonb, Json)):
        text = (value.dumps or json.dumps)(value.obj)
        return text if isinstance(text, bytes) else text.encode()
    if isinstance(value, bool):
        return b"true" if value else b"false"
    if isinstance(value, (int, str)):
        return str(value).encode()
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.isoformat().encode()
    raise TypeError(f"no text for a parameter of type {type(value).__name__}")


def _numbered(statement: str) -> bytes:
    """Django's ``%s`` placeholders as Postgres's ``$1``, ``$2``…"""
    parts = statement.split("%s")
    return "".join(part + (f"${n}" if n < len(parts) else "") for n, part in enumerate(parts, 1)).encode()


class Connection:
    """One libpq connection, in non-blocking mode, its prepared statements by text."""

    def __init__(self, owner: psycopg.AsyncConnection) -> None:
        self.owner = owner  # keeps the connection open; only its pgconn is used
        self.pg = owner.pgconn
        self.pg.nonblocking = 1
        self.prepared: dict[str, bytes] = {}

    async def changed(self, statement: str, params: list[Any]) -> int:
        name = self.prepared.get(statement)
        if name is None:
            name = f"s{len(self.prepared)}".encode()
            self.pg.send_prepare(name, _numbered(statement))
            await self.result()
            self.prepared[statement] = name
        self.pg.send_query_prepared(name, [_text(p) for p in params])
        return int((await self.result()).command_tuples or 0)

    async def result(self) -> PGresult:
        """The statement's result once libpq has all of it (raises its error)."""
        pg = self.pg
        while pg.flush():
            await self.ready(writer=True)
        found = None
        while True:
            pg.consume_input()
            while not pg.is_busy():
                result = pg.get_result()
                if result is None:
                    if found is None:
                        raise psycopg.OperationalError("no result from the database")
                    if found.status == pq.ExecStatus.FATAL_ERROR:
                        raise psycopg.DatabaseError(found.error_message.decode(errors="replace").strip())
                    return found
                if found is None or found.status != pq.ExecStatus.FATAL_ERROR:
                    found = result
            await self.ready()

    async def ready(self, writer: bool = False) -> None:
        """Until the connection's socket can be read (or written)."""
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        fd = self.pg.socket

        def wake() -> None:
            if not waiter.done():
                waiter.set_result(None)

        (loop.add_writer if writer else loop.add_reader)(fd, wake)
        try:
            await waiter
        finally:
            (loop.remove_writer if writer else loop.remove_reader)(fd)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.owner.close()


class Runner:
    """The libpq connections of one event loop, as a writer. Raises psycopg's errors
    (``Error``) if the database cannot be reached."""

    def __init__(self, params: dict[str, Any], size: int = SIZE) -> None:
        self.params = params
        self.idle: list[Connection] = []
        self.slots = asyncio.Semaphore(size)

    async def changed(self, statement: str, params: list[Any]) -> int:
        async with self.slots:
            conn = self.idle.pop() if self.idle else Connection(await psycopg.AsyncConnection.connect(**self.params))
            try:
                rows = await conn.changed(statement, params)
            except BaseException:
                await conn.close()
                raise
            self.idle.append(conn)
            return rows

    async def close(self) -> None:
        idle, self.idle = self.idle, []
        for conn in idle:
            await conn.close()


_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Runner] = weakref.WeakKeyDictionary()


def runner() -> Runner | None:
    """The running loop's libpq runner, or None where Django's database is not Postgres."""
    loop = asyncio.get_running_loop()
    found = _by_loop.get(loop)
    if found is None:
        database = connections["default"]
        if database.vendor != "postgresql":
            return None
        params = dict(database.get_connection_params())
        params.pop("cursor_factory", None)  # Django's, a synchronous cursor
        params["autocommit"] = True
        found = _by_loop[loop] = Runner(params)
    return found
