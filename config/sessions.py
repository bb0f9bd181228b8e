"""Django's ``cached_db`` sessions (SESSION_ENGINE when REDIS_URL is set): every session is
a database row, read through the Redis cache (config/cache.py), so a web process reads
a session from Redis, never from its own memory, and a session ended anywhere is ended
everywhere at once.

One change, in ``delete``: Django deletes the row, then the cached copy; if Redis cannot
delete it (down, or the guard's breaker open) the copy outlives the row, and the ended
session is valid again as soon as Redis answers. Here the copy goes first:
- a session that ends (log-out; Django's flush after a password changed elsewhere) is
  not ended if its copy cannot go: the error reaches the caller (the log-out answers 503,
  try again), the session is left whole;
- a key that changes (``cycle_key`` at a log-in or a password change) goes on: the old
  key's copy holds only what the new key holds (anonymous data, or the password hash
  of before, which Django refuses);
- the copy is deleted again after the row: a concurrent request of the same session may
  have put it back meanwhile.
"""

from __future__ import annotations

from django.contrib.sessions.backends.cached_db import SessionStore as CachedDbStore
from django.contrib.sessions.backends.db import SessionStore as DatabaseStore

from config.cache import FAILED


class SessionStore(CachedDbStore):
    def delete(self, session_key=None):
        key = session_key if session_key is not None else self.session_key
        if key is None:
            return
        copy = self.cache_key_prefix + key
        try:
            self._cache.delete(copy)
        except FAILED:
            if key == self.session_key:  # this session ends
                raise
        DatabaseStore.delete(self, key)
        try:
            self._cache.delete(copy)
        except FAILED:
            pass  # deleted a moment ago; only a concurrent request's copy could be there

    async def adelete(self, session_key=None):
        from asgiref.sync import sync_to_async

        await sync_to_async(self.delete)(session_key)
