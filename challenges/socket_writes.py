"""The game socket's database: the ask's compare-and-set on the event loop's own
connections (``writes``), everything else on a thread of the loop's pool (``on_db``).

A thread hop per ask (the pool's queue, a futex wake-up each way, Django's connection
checks before and after) cost about a quarter of the socket process's CPU per ask; a
bare consumer measured 0.80 ms per message through a thread and 0.60 ms on an
asynchronous psycopg connection. Only the write of an ask goes on the loop: the
handshake, a lease of the player's limit, a refusal's re-read, the credential's re-check and
the verification's enqueue go to the pool's threads through Django (``on_db``) (they happen once per
game, once per few asks, or after an error).

The statement is run on libpq itself (psycopg's ``pq`` wrapper), prepared once per
connection: psycopg's asynchronous cursor spent 95-155 µs of CPU per UPDATE here (its
query conversion, adaptation, and a task per wait for readiness), libpq's own calls with a
future per wait 25-45 µs (the same UPDATE, 3,000 times, uvloop; 2026-12-03). The
statements are the ask's (challenges/play.py ``move_write``): Django's ``%s`` placeholders,
parameters of a few plain types sent as text.

A few connections per event loop, each used by one ask at a time, opened on first use
with Django's connection parameters (settings.DATABASES) and without a transaction: the
compare-and-set is one statement, committed before its answer is sent. A connection that
fails is dropped; the next ask opens another. Postgres only: on another database the
socket writes through Django as the HTTP ask does.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import weakref
from functools import partial
from typing import Any

import psycopg
from django.db import close_old_connections, connections
from psycopg import pq
from psycopg.pq.abc import PGresult
from psycopg.types.json import Json, Jsonb

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

    async def rows(self, statement: str, params: list[Any]) -> int:
        name = self.prepared.get(statement)
        if name is None:
            name = f"ask{len(self.prepared)}".encode()
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


class Writes:
    """The connections of one event loop."""

    def __init__(self, params: dict[str, Any], size: int = SIZE) -> None:
        self.params = params
        self.idle: list[Connection] = []
        self.slots = asyncio.Semaphore(size)

    async def rows(self, statement: str, params: list[Any]) -> int:
        """Run ``statement`` (committed on return); the number of rows it changed.
        Raises psycopg's errors (``Error``) if the database cannot be reached."""
        async with self.slots:
            conn = self.idle.pop() if self.idle else Connection(await psycopg.AsyncConnection.connect(**self.params))
            try:
                rows = await conn.rows(statement, params)
            except BaseException:
                await conn.close()
                raise
            self.idle.append(conn)
            return rows

    async def close(self) -> None:
        idle, self.idle = self.idle, []
        for conn in idle:
            await conn.close()


_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Writes] = weakref.WeakKeyDictionary()


def writes() -> Writes | None:
    """The running loop's connections, or None where Django's database is not Postgres."""
    loop = asyncio.get_running_loop()
    found = _by_loop.get(loop)
    if found is None:
        database = connections["default"]
        if database.vendor != "postgresql":
            return None
        params = dict(database.get_connection_params())
        params.pop("cursor_factory", None)  # Django's, a synchronous cursor
        params["autocommit"] = True
        found = _by_loop[loop] = Writes(params)
    return found


async def on_db(function, *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` on a thread of the loop's pool, its database
    connections tidied before and after as Channels does. Not Channels' default, one thread
    for every sync call of the process: there each ask waited for every other socket's round
    trips to Postgres and Redis (on 2 cores, ~180 asks/s with the CPU 28% idle;
    docs/benchmarks.md). Nor asgiref's SyncToAsync, built anew per call: its wrapper and
    context copy cost ~10% of the socket process's CPU per ask (py-spy), for nothing a
    socket uses. One consumer still takes one message at a time, so its game is never
    touched by two threads at once; each pool thread keeps its own connection."""
    return await asyncio.get_running_loop().run_in_executor(None, partial(_tidied, function, args, kwargs))


def _tidied(function, args: tuple, kwargs: dict) -> Any:
    close_old_connections()
    try:
        return function(*args, **kwargs)
    finally:
        close_old_connections()
