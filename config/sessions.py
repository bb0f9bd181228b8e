"""Django's database sessions, with a new session written once (SESSION_ENGINE).

At a log-in (every sign-up is one) Django writes the session twice: it checks that a random
key is free (a SELECT), inserts an empty row in a transaction, and at the end of the
request updates that row with the session's data in another transaction: 7 statements.
Here a log-in only draws the key; the end of the request inserts the row with its data,
and the INSERT itself is the check that the key is free (on the one-in-2^165 clash another
key is drawn). Outside a transaction a single statement needs no BEGIN/COMMIT of its own.
A sign-up is 12 statements -> 6 (measured in docs/benchmarks.md).
"""
from __future__ import annotations

from asgiref.sync import sync_to_async
from django.contrib.sessions.backends.base import VALID_KEY_CHARS, CreateError, UpdateError
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.db import DatabaseError, IntegrityError, router
from django.utils.crypto import get_random_string

from config.db import one_statement


class SessionStore(DatabaseSessionStore):
    _unwritten = False  # a key is drawn, its row not inserted yet

    def _get_new_session_key(self) -> str:
        return get_random_string(32, VALID_KEY_CHARS)

    def create(self) -> None:
        self._session_key = self._get_new_session_key()
        self._unwritten = True
        self.modified = True

    def save(self, must_create: bool = False) -> None:
        if self.session_key is None:
            self.create()
        if self._unwritten:
            must_create = True
        while True:
            try:
                self._write(must_create)
            except CreateError:
                if not self._unwritten:
                    raise
                self._session_key = self._get_new_session_key()
                continue
            self._unwritten = False
            return

    def _write(self, must_create: bool) -> None:
        obj = self.create_model_instance(self._get_session(no_load=must_create))
        using = router.db_for_write(self.model, instance=obj)
        try:
            with one_statement(using):
                obj.save(force_insert=must_create, force_update=not must_create, using=using)
        except IntegrityError:
            if must_create:
                raise CreateError from None
            raise
        except DatabaseError:
            if not must_create:
                raise UpdateError from None
            raise

    # The async API gets the same behaviour (Django's own would update a row not written).
    async def acreate(self) -> None:
        self.create()

    async def asave(self, must_create: bool = False) -> None:
        await sync_to_async(self.save)(must_create)
