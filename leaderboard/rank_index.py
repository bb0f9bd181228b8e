"""A Redis sorted set per day answering "top N" and "my rank" in O(log n).

Postgres is the record; the index is derived from it and can be dropped and rebuilt at
any time. Order: score desc, asks asc, earlier finish first, then attempt id — packed
into one exact integer (< 2**53, so a Redis double holds it exactly), lower is better;
equal keys fall back to the member string, the zero-padded attempt id (one result per
attempt, and known before the result row is written).
A day's set is used only once its ``ready`` marker exists, i.e. after a full build:
until then (or with no Redis at all) readers use SQL.

Beside it, the day's listed set: the same keys for the results the public list shows (those
of established players; a provisional newcomer's result ranks in the first set only). The
public list pages through it and reads each entry's rank in the first set, in one script.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Collection
from typing import Any

from django.conf import settings

from config import metrics
from config.redis_client import Unavailable, is_down, redis_client  # noqa: F401 (Unavailable: callers' name for it)

log = logging.getLogger(__name__)

MAX_SCORE = 1780
_ASK_BITS, _TIME_BITS = 10, 30  # asks < 1024; ms since the day opened < 2**30 (12 days)


def _redis(*, bulk: bool = False):
    # After a failure every use of Redis in this process skips it for a moment instead of
    # paying a timeout per request: one breaker for all of them (config/redis_client.py).
    return redis_client(bulk=bulk) if settings.REDIS_URL else None


def sort_key(*, score: int, asks: int, finished_ms: int) -> int:
    return (
        ((MAX_SCORE - score) << (_ASK_BITS + _TIME_BITS))
        | (min(asks, 2**_ASK_BITS - 1) << _TIME_BITS)
        | max(0, min(finished_ms, 2**_TIME_BITS - 1))
    )


def member(attempt_id: int) -> str:
    return f"{attempt_id:012d}"


def key(challenge_id: int) -> str:
    return f"lb:{challenge_id}"


def listed_key(challenge_id: int) -> str:
    return f"lb:{challenge_id}:listed"


def ready_key(challenge_id: int) -> str:
    return f"lb:{challenge_id}:ready"


def available() -> bool:
    """Configured and not known to be down."""
    return bool(settings.REDIS_URL) and not is_down()


def add(challenge_id: int, entries: list[tuple[int, int]], *, unlisted: Collection[int] = ()) -> bool:
    """Add (attempt_id, sort_key) pairs, each to the listed set too unless in ``unlisted``
    (a provisional result; taken out of it if it was there); False if Redis is unreachable."""
    try:
        # The sweeper's catch-up adds up to 10,000 at once (worker side): no hot-path timeout.
        client = _redis(bulk=len(entries) > 1000)
        if client is None or not entries:
            return client is not None
        pipe = client.pipeline(transaction=False)
        pipe.zadd(key(challenge_id), {member(aid): k for aid, k in entries})
        listed = {member(aid): k for aid, k in entries if aid not in unlisted}
        if listed:
            pipe.zadd(listed_key(challenge_id), listed)
        if unlisted:
            pipe.zrem(listed_key(challenge_id), *(member(aid) for aid, _ in entries if aid in unlisted))
        pipe.execute()
        return True
    except Exception as exc:  # Redis down: the sweeper adds it later
        log.warning("rank index unavailable for add challenge=%s: %s", challenge_id, exc.__class__.__name__)
        return False


def remove(challenge_id: int, attempt_id: int) -> bool:
    try:
        client = _redis()
        if client is None:
            return True
        pipe = client.pipeline(transaction=False)
        pipe.zrem(key(challenge_id), member(attempt_id))
        pipe.zrem(listed_key(challenge_id), member(attempt_id))
        pipe.execute()
        return True
    except Exception:
        # Readers skip disqualified rows anyway; the entry goes at the day's next rebuild.
        return False


def is_ready(challenge_id: int) -> bool:
    try:
        client = _redis()
        return client is not None and bool(client.exists(ready_key(challenge_id)))
    except Exception:
        return False


def rank_of(challenge_id: int, attempt_id: int) -> int | None:
    """0-based position, or None (not indexed, or Redis unreachable)."""
    try:
        return _redis().zrank(key(challenge_id), member(attempt_id))
    except Exception:
        return None


# Many ranks in one command (a league's board asks up to 200): the ready marker, then each
# member's ZRANK (-1: not in the set); false when the day's set is not ready.
_RANKS = """
if redis.call('EXISTS', KEYS[2]) == 0 then return false end
local out = {}
for i, m in ipairs(ARGV) do out[i] = redis.call('ZRANK', KEYS[1], m) or -1 end
return out
"""


def ranks_of(challenge_id: int, attempt_ids: list[int]) -> dict[int, int | None] | None:
    """Each attempt's 0-based position (None: not in the set) in one round trip, or None
    if the day's index is not ready or Redis is unreachable."""
    try:
        client = _redis()
        if client is None:
            return None
        found = client.register_script(_RANKS)(
            keys=[key(challenge_id), ready_key(challenge_id)], args=[member(a) for a in attempt_ids]
        )
    except Exception:
        return None
    return _positions(attempt_ids, found)


def _positions(attempt_ids, found: list[int] | None) -> dict[int, int | None] | None:
    """_RANKS' answer by attempt: its 0-based position, None where it is not in the set;
    None for no answer (the day's set not ready)."""
    if found is None:
        return None
    return {a: (p if p >= 0 else None) for a, p in zip(attempt_ids, found, strict=True)}


_RANKS_SHA = hashlib.sha1(_RANKS.encode()).hexdigest()  # what EVALSHA names it by (redis-py's Script.sha)


class AskedRanks:
    """ranks_of's question, sent at once and answered later (``answer``): Redis ranks while
    the caller works, a league board's query meanwhile (leagues.selectors.day_board). A
    context manager: the question is sent on entering, and leaving reads or drops the reply,
    so a connection never goes back to the pool with a reply of this question still in it,
    nor stays out of it (an interrupt included)."""

    def __init__(self, challenge_id: int, attempt_ids: tuple[int, ...], packed: Any = None) -> None:
        self.challenge_id, self.attempt_ids = challenge_id, attempt_ids
        # The command as sent: the caller may keep it to ask the same question again
        # (formatting and packing 200 members was a tenth of a league board's time).
        self.packed = packed
        self._pool: Any = None
        self._connection: Any = None
        self._found: dict[int, int | None] | None = None

    def __enter__(self) -> AskedRanks:
        try:
            client = _redis()
            if client is None or not self.attempt_ids:
                return self
            self._pool = client.connection_pool
            self._connection = self._pool.get_connection()
            if self.packed is None:
                self.packed = self._connection.pack_command(
                    "EVALSHA",
                    _RANKS_SHA,
                    2,
                    key(self.challenge_id),
                    ready_key(self.challenge_id),
                    *(member(a) for a in self.attempt_ids),
                )
            self._connection.send_packed_command(self.packed)
        except BaseException as exc:
            self._drop()
            if not isinstance(exc, Exception):
                raise
            # Redis unreachable: no answer, as ranks_of
        return self

    def answer(self) -> dict[int, int | None] | None:
        """As ranks_of: each attempt's 0-based position (None: not in the set), or None
        (the day's index not ready, Redis unreachable, or the script not loaded yet: a
        restarted Redis answers NOSCRIPT, and ranks_of, which loads it, is asked next)."""
        if self._connection is not None:
            try:
                found = self._connection.read_response()
            except BaseException as exc:
                self._drop()
                if not isinstance(exc, Exception):
                    raise
                return None
            self._pool.release(self._connection)
            self._connection = None
            self._found = _positions(self.attempt_ids, found)
        return self._found

    def _drop(self) -> None:
        # A connection whose reply is unread or half read is closed, not reused.
        if self._connection is not None:
            self._connection.disconnect()
            self._pool.release(self._connection)
        self._connection = None

    def __exit__(self, *exc) -> None:
        if self._connection is not None:
            self.answer()


def size(challenge_id: int) -> int | None:
    """How many results the day's set holds, or None (Redis unreachable)."""
    try:
        return _redis().zcard(key(challenge_id))
    except Exception:
        return None


def page(challenge_id: int, offset: int, limit: int) -> tuple[int, list[int]] | None:
    """(total, attempt ids in rank order) in one round trip, or None if the day's index
    is not ready (never fully built, or Redis restarted empty) or Redis is unreachable."""
    try:
        client = _redis()
        if client is None:
            return None
        pipe = client.pipeline(transaction=False)
        pipe.exists(ready_key(challenge_id))
        pipe.zcard(key(challenge_id))
        pipe.zrange(key(challenge_id), offset, offset + limit - 1)
        ready, total, members = pipe.execute()
    except Exception:
        return None
    return (total, [int(m) for m in members]) if ready else None


# A page of the listed set with each entry's rank in the day's set, in one round trip (a
# range of the day's set from the page's first to its last, unless too many newcomers lie
# between them):
# false when the day's set is not ready, else {size, listed size, member, rank, member, rank, …}.
_LISTED_PAGE = """
if redis.call('EXISTS', KEYS[3]) == 0 then return false end
local out = {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2])}
local page = redis.call('ZRANGE', KEYS[2], ARGV[1], ARGV[2])
if #page == 0 then return out end
local first = redis.call('ZRANK', KEYS[1], page[1])
local last = redis.call('ZRANK', KEYS[1], page[#page])
if first and last and last >= first and last - first < 4 * #page then
  -- The day's members from the page's first to its last: the listed ones in the same order,
  -- the others (provisional) in between. One range read instead of a ZRANK per entry.
  local at = 1
  for i, m in ipairs(redis.call('ZRANGE', KEYS[1], first, last)) do
    if m == page[at] then
      out[#out + 1] = m
      out[#out + 1] = first + i - 1
      at = at + 1
    end
  end
  if at > #page then return out end
  out = {out[1], out[2]}
end
-- Many newcomers between them (or a member missing from the day's set): one ZRANK each.
for _, m in ipairs(page) do
  out[#out + 1] = m
  out[#out + 1] = redis.call('ZRANK', KEYS[1], m) or -1
end
return out
"""


def listed_page(challenge_id: int, offset: int, limit: int) -> tuple[int, int, list[tuple[int, int | None]]] | None:
    """(how many rank, how many are listed, [(attempt id, 0-based rank in the day's set or
    None)] in rank order) for a page of the listed set, in one round trip; None if the
    day's index is not ready or Redis is unreachable. O(log n) a member, as ``page``."""
    try:
        client = _redis()
        if client is None:
            return None
        found = client.register_script(_LISTED_PAGE)(
            keys=[key(challenge_id), listed_key(challenge_id), ready_key(challenge_id)],
            args=[offset, offset + limit - 1],
        )
    except Exception:
        return None
    if found is None:
        return None
    pairs = found[2:]
    return found[0], found[1], [(int(m), (r if r >= 0 else None)) for m, r in zip(pairs[::2], pairs[1::2], strict=True)]


def rebuild(challenge_id: int, rows) -> int:
    """Replace the day's sets with ``rows`` [(attempt_id, sort_key, listed)], atomically
    for readers."""
    client = _redis(bulk=True)  # batches of 10,000 members: the worker may wait for them
    if client is None:
        return 0
    building, building_listed = f"{key(challenge_id)}:building", f"{listed_key(challenge_id)}:building"
    client.unlink(building, building_listed)
    count = listed_count = 0
    batch: dict[str, int] = {}
    listed: dict[str, int] = {}
    for aid, k, shown in rows:
        batch[member(aid)] = k
        if shown:
            listed[member(aid)] = k
        if len(batch) >= 10_000:
            client.zadd(building, batch)
            count += len(batch)
            batch = {}
        if len(listed) >= 10_000:
            client.zadd(building_listed, listed)
            listed_count += len(listed)
            listed = {}
    if batch:
        client.zadd(building, batch)
        count += len(batch)
    if listed:
        client.zadd(building_listed, listed)
        listed_count += len(listed)
    # UNLINK frees the old set in the background: RENAME over it would free millions of
    # members inline and stall Redis. MULTI keeps readers from seeing the gap.
    pipe = client.pipeline(transaction=True)
    pipe.unlink(key(challenge_id), listed_key(challenge_id))
    if count:
        pipe.rename(building, key(challenge_id))
    if listed_count:
        pipe.rename(building_listed, listed_key(challenge_id))
    pipe.set(ready_key(challenge_id), "1")
    pipe.delete(f"{key(challenge_id)}:rebuilding")
    pipe.execute()
    metrics.RANK_INDEX_REBUILDS.inc()
    return count


def claim_rebuild(challenge_id: int) -> bool:
    """One rebuild at a time per day, whoever asks first."""
    try:
        return bool(_redis().set(f"{key(challenge_id)}:rebuilding", "1", nx=True, ex=300))
    except Exception:
        return False


def release_rebuild(challenge_id: int) -> None:
    """Give the claim back when the rebuild did not happen (its task could not be queued,
    or failed): the next reader claims it again instead of waiting out the claim's 300 s."""
    try:
        client = _redis()
        if client is not None:
            client.delete(f"{key(challenge_id)}:rebuilding")
    except Exception:  # unreachable: the claim lapses on its own (300 s)
        pass


def drop(challenge_id: int) -> None:
    client = _redis(bulk=True)  # DEL of a big day's set runs inline: more than the hot path's timeout
    if client is not None:
        client.delete(key(challenge_id), listed_key(challenge_id), ready_key(challenge_id))
