"""Writes. Views and tasks call these; every state is derived from seed + asks."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import logging
import math
import re
import secrets
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from asgiref.sync import async_to_sync
from celery import current_app
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from config import metrics
from config.db import CURSOR, Writer, at_once, one_statement
from config.rates import hit, parse_rate
from config.redis_client import Unavailable, client_for, redis_client
from games import fairplay
from games.rules import peche
from games.rules.base import DomainError, ReplayError
from games.rules.registry import engine

from . import days, hooks, names, origins
from .models import DAILY_GAME, Attempt, DailyChallenge, Player, Review
from .play import move_write, one_move, stored

log = logging.getLogger(__name__)

NAME_RE = re.compile(r"^[^\W_](?:[\w .'-]{0,22}[^\W_])?$")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# --- challenges --------------------------------------------------------------------


def challenge_for_day(*, day: dt.date, game: str = DAILY_GAME) -> DailyChallenge:
    """The day's challenge, created on first request (two racing requests get one row)."""
    found = DailyChallenge.objects.filter(game=game, date=day).first()
    if found:
        return found
    try:
        with transaction.atomic():
            challenge = DailyChallenge.of_day(day, game)
            challenge.save(force_insert=True)
            return challenge
    except IntegrityError:
        return DailyChallenge.objects.get(game=game, date=day)


def challenge_on(*, date_text: str) -> DailyChallenge:
    """The challenge of a day named in a URL (``today`` or YYYY-MM-DD), from FIRST_DAY to
    today, stored: to play it (past days are playable as practice even if nobody opened
    them that day). A read takes ``selectors.challenge_read``, which stores nothing."""
    return challenge_for_day(day=days.day_named(date_text))


def ensure_upcoming_challenges(*, now: dt.datetime | None = None) -> list[DailyChallenge]:
    """Today's and tomorrow's challenges exist (run by beat ahead of time)."""
    day = days.today(now)
    return [challenge_for_day(day=day), challenge_for_day(day=day + dt.timedelta(days=1))]


# --- players -----------------------------------------------------------------------


def clean_name(name: Any, *, player: Player | None = None) -> tuple[str, str]:
    """The name as it will be shown (NFKC, single spaces) and its look-alike key
    (``player``: the one renaming itself, whose own key is not in its way)."""
    if not isinstance(name, str):
        raise DomainError("bad_name", "the name must be a string")
    name = names.normal_form(name)
    if not 2 <= len(name) <= 24:
        raise DomainError("bad_name", "a name has 2 to 24 characters")
    if not NAME_RE.match(name):
        raise DomainError("bad_name", "letters, digits, spaces and . ' - only; start and end with a letter or digit")
    if names.mixes_scripts(name):
        raise DomainError(
            "bad_name", "a name is written in one script (Latin with Japanese, Chinese or Korean is fine)"
        )
    if names.reserved(name):
        raise DomainError("reserved_name", "this name reads as the site's own (its staff or its name): choose another")
    key = names.name_key(name)
    # Two keys (names.py): the same letters in any case, or the same shapes as shown. The
    # unique constraints leave out the look-alikes that predate the fold (migrations 0004,
    # 0006): a key they share is taken all the same.
    shared = Player.objects.filter(
        Q(name_key=key, name_key_shared=True) | Q(name_look=names.name_look(name), name_key_shared=True)
    )
    if player is not None:
        shared = shared.exclude(pk=player.pk)
    if shared.exists():
        raise DomainError("name_taken", "this name, or one that looks like it, is already taken")
    return name, key


def player_create(*, name: Any, client: str = "", browser: str = "") -> tuple[Player, str]:
    """A named guest player; returns the player and its token (shown once). ``client`` and
    ``browser`` (the address, the device cookie) are kept as keyed hashes (origins.py)."""
    name, key = clean_name(name)
    token = secrets.token_urlsafe(32)
    user = get_user_model()(username=f"p_{secrets.token_hex(10)}")
    user.set_unusable_password()
    try:
        # The unique look-alike key decides a taken name (two racing requests for one
        # name, or for two names that look alike, included); the username is 80 random bits.
        with transaction.atomic():
            user.save(force_insert=True)
            player = Player.objects.create(
                user=user, name=name, name_key=key, name_look=names.name_look(name), token_hash=hash_token(token)
            )
            origins.signup_record(player=player, client=client, browser=browser)
    except IntegrityError:
        raise DomainError("name_taken", "this name, or one that looks like it, is already taken") from None
    return player, token


def player_set_password(*, player: Player, password: Any) -> None:
    if not isinstance(password, str) or len(password) > 128:
        raise DomainError("bad_password", "the password must be a string of at most 128 characters")
    user = player.user
    if user is None:  # a deleted account's player keeps only its ranked results
        raise DomainError("not_authenticated", "this player's account was deleted")
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise DomainError("bad_password", " ".join(exc.messages)) from None
    user.set_password(password)
    user.save(update_fields=["password"])
    player_sockets_close(player_id=player.pk, reason="password")


def player_rotate_token(*, player: Player) -> str:
    """A new API token for the player (shown once); the old one is refused from now on,
    by every process (tokens are looked up in the database on every request)."""
    token = secrets.token_urlsafe(32)
    player.token_hash = hash_token(token)
    player.save(update_fields=["token_hash"])
    player_sockets_close(player_id=player.pk, reason="token")
    return token


# The Channels group every process's game sockets listen on (challenges/sockets.py
# ``Closes``); a close message names its player.
SOCKETS_GROUP = "sockets"


def player_sockets_close(*, player_id: int, reason: str) -> None:
    """Close the player's open game sockets (challenges/consumers.py) once the current
    transaction commits: a socket authenticated once at its handshake must not outlive the
    credential that opened it (a log-out, a password change, a new token). Every socket of
    the player closes; a page whose credential still holds reconnects at once (the handshake
    authenticates again), the others fall back to HTTP and meet its 401. Never refuses the
    change that called it: a channel layer that cannot be reached is logged, and the sockets
    then close at their next credential check (settings.GAME_SOCKET["recheck_seconds"])."""
    transaction.on_commit(
        lambda: _group_send(SOCKETS_GROUP, {"type": "player.close", "player": player_id, "reason": reason})
    )


def _group_send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return

    def send() -> None:
        try:
            async_to_sync(layer.group_send)(group, message)
        except Exception as exc:
            log.warning("could not message the sockets of %s: %s", group, exc.__class__.__name__)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        send()
        return
    # Called on a thread that runs an event loop of its own (async_to_sync refuses that):
    # the message goes from a thread of its own.
    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    thread.join(5)


def player_authenticate(*, name: Any, password: Any) -> Player:
    if not isinstance(name, str) or not isinstance(password, str):
        raise DomainError("bad_login", "name and password are strings")
    # Look-alikes from before the fold (name_key_shared) share a key: the one spelled as typed.
    found = list(Player.objects.select_related("user").filter(name_key=names.name_key(name)).order_by("pk")[:8])
    player = next((p for p in found if p.name == names.normal_form(name)), found[0] if found else None)
    if player is None:
        # Hash the password anyway, as Django's ModelBackend does: an unknown name must take
        # as long as a wrong password, or the timing tells which names exist. (A name
        # without a password costs the same already: Django hashes a random one for it.)
        get_user_model()().set_password(password)
    if player is None or player.user is None or not player.user.check_password(password):
        raise DomainError("bad_login", "unknown name or wrong password")
    return player


# --- attempts ----------------------------------------------------------------------


def attempt_start(
    *, player: Player, challenge: DailyChallenge, client: str = "", browser: str = ""
) -> tuple[Attempt, bool]:
    """Today's challenge: the one ranked attempt (created once). A past day: unranked
    practice, resuming the unfinished one if any. A future day cannot be played.
    ``client`` and ``browser`` (an address, a browser's own cookie) are kept as keyed
    hashes with a ranked game (with the address's network), for the review of linked
    accounts (leaderboard/linking.py)."""
    today = days.today()
    if challenge.date > today:
        raise DomainError("not_open", "this day has not started yet")
    ranked = challenge.date == today
    existing = (
        Attempt.objects.filter(player=player, challenge=challenge, ranked=True).first()
        if ranked
        else Attempt.objects.filter(player=player, challenge=challenge, ranked=False, status=Attempt.Status.PLAYING)
        .order_by("-id")
        .first()
    )
    if existing:
        return existing, False
    moves: list[str] = []
    if not ranked:
        # A ranked game the close cut short goes on as practice from where it stopped.
        cut_short = Attempt.objects.filter(
            player=player, challenge=challenge, ranked=True, status=Attempt.Status.PLAYING
        ).first()
        if cut_short is not None:
            moves = list(cut_short.moves)
    keys = origins.origin(client=client, browser=browser) if ranked else origins.Origin("", "", "")
    try:
        with one_statement():
            attempt = Attempt.objects.create(
                player=player,
                challenge=challenge,
                ranked=ranked,
                moves=moves,
                client_key=keys.client_key,
                network_key=keys.network_key,
                browser_key=keys.browser_key,
            )
    except IntegrityError:  # a second tab created it a moment ago
        return Attempt.objects.get(player=player, challenge=challenge, ranked=True), False
    # A deal where the game ends before any ask cannot happen (a hand of 5 holds a single).
    return attempt, True


def _locked_attempt(attempt_id: int, player: Player | None = None) -> Attempt:
    # Lock the attempt row only, not the day's challenge row every player shares.
    rows = Attempt.objects.select_for_update(of=("self",)).select_related("challenge")
    if player is not None:
        rows = rows.filter(player=player)
    attempt = rows.filter(pk=attempt_id).first()
    if attempt is None:
        raise DomainError("not_found", "no such attempt")
    return attempt


# The ask is the hot path (a game is ~30 of them): a plain statement instead of the
# ORM's query building, which cost ~1 ms of CPU per statement (bench/ask_cpu.py); the
# write is play.move_write's.
_ASK_READ = (
    "SELECT a.status, a.moves, a.ranked, c.id, c.game, c.seed, c.date, c.reveals_at"
    f" FROM {Attempt._meta.db_table} a JOIN {DailyChallenge._meta.db_table} c ON c.id = a.challenge_id"
    " WHERE a.id = %s AND a.player_id = %s"
)
# No row has an id beyond a 64-bit integer (and SQLite cannot even bind one): such an
# attempt does not exist. The ORM knows this; the raw statements below must be told.
_MAX_ID = 2**63 - 1


def _attempt_for_ask(attempt_id: int, player: Player) -> Attempt:
    if not 0 < attempt_id <= _MAX_ID:
        raise DomainError("not_found", "no such attempt")
    with connection.cursor() as cursor:
        cursor.execute(_ASK_READ, [attempt_id, player.pk])
        row = cursor.fetchone()
    if row is None:
        raise DomainError("not_found", "no such attempt")
    status_, moves, ranked, challenge_id, game, seed, date, reveals_at = row
    if isinstance(reveals_at, str):
        reveals_at = dt.datetime.fromisoformat(reveals_at)
    if reveals_at.tzinfo is None:  # SQLite keeps UTC without its offset
        reveals_at = reveals_at.replace(tzinfo=dt.UTC)
    challenge = DailyChallenge(
        id=challenge_id, game=game, seed=seed, date=dt.date.fromisoformat(str(date)), reveals_at=reveals_at
    )
    return Attempt(
        id=attempt_id,
        player=player,
        challenge=challenge,
        status=status_,
        ranked=bool(ranked),
        moves=json.loads(moves) if isinstance(moves, (str, bytes)) else moves,
    )


@dataclass
class HeldGame:
    """An attempt and its state after its stored asks, kept by a WebSocket between asks
    (challenges/consumers.py): each ask then neither reads the attempt nor replays it."""

    attempt: Attempt
    state: Any


def attempt_held(*, attempt_id: int, player: Player) -> HeldGame:
    """The player's attempt as stored, replayed once (``not_found`` for another's)."""
    attempt = _attempt_for_ask(attempt_id, player)
    return HeldGame(attempt, attempt.state())


def attempt_ask(*, attempt_id: int, player: Player, rank: Any, move: Any, held: HeldGame | None = None):
    """Apply one ask on Django's connection (``ask_stored``, its write through ``CURSOR``).
    The ask that ends the game enqueues its verification once committed. Returns
    (attempt, state, events)."""
    attempt, state, events = at_once(
        ask_stored(attempt_id=attempt_id, player=player, rank=rank, move=move, held=held, writer=CURSOR)
    )
    if attempt.status == Attempt.Status.VERIFYING:
        # Committed already (autocommit). Should this process die right here, the
        # attempt is `verifying` without a message: the sweeper enqueues it.
        transaction.on_commit(lambda: enqueue_verification(attempt.pk))
    return attempt, state, events


async def ask_stored(
    *, attempt_id: int, player: Player, rank: Any, move: Any, held: HeldGame | None = None, writer: Writer
):
    """The ask, whichever transport brings it: played on the attempt (``held``'s, else read
    and replayed: a read through Django, so on an event loop a socket passes its held game),
    its compare-and-set run by ``writer`` (challenges/play.py ``stored``: ``move`` is the
    number of asks made, a stale one is refused and changes nothing). Returns (attempt,
    state, events). ``held``, the game a WebSocket holds (``attempt_held``), is updated in
    place by the ask; the write is the same compare-and-set, so another tab's ask is still
    ``stale_move`` here, and after any refusal the holder reads the game again (the state
    may be past the stored one). A finished game's verification is the caller's to enqueue
    once the write is committed (``enqueue_verification``)."""
    if held is not None and held.attempt.pk == attempt_id and held.attempt.player_id == player.pk:
        attempt, write = held.attempt, move_write(held.attempt, move=move, play=one_move(rank), state=held.state)
    else:
        attempt = _attempt_for_ask(attempt_id, player)
        write = move_write(attempt, move=move, play=one_move(rank))
    _, state, events = await stored(write, writer)
    if attempt.status == Attempt.Status.VERIFYING:
        log.info(
            "attempt finished attempt=%s challenge=%s asks=%s", attempt.pk, attempt.challenge_id, len(attempt.moves)
        )
    return attempt, state, events


# A socket spends the player's ask limit (settings.RATE_LIMITS["asks"], the HTTP ask's, on the
# same key) from a lease taken in one round trip, not one round trip per ask: the count of
# the window goes up by the lease, so every process and tab together still get at most the
# limit per window. Asks leased and not spent before the socket closes count as spent: a
# lease is at most ASK_LEASE asks, and at most one fiftieth of the limit (one ask at a time
# under a limit of less than 100).
ASK_LEASE = 8
_LEASE = """
redis.call('SET', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
return {count, redis.call('PTTL', KEYS[1])}
"""


@lru_cache(maxsize=4)
def _lease_script(location: str):
    return client_for(location).register_script(_LEASE)


def ask_lease(*, player: Player, most: int = ASK_LEASE) -> tuple[int, float]:
    """Asks of the player's limit, at most ``most`` (a socket leases a few, the HTTP ask
    takes one): (asks granted, seconds they last: until the window closes), or (0, the
    seconds to wait: ``retry_after``). One ask, and without a Redis cache or while it
    fails any lease, goes through the limiter itself (config/rates.py ``hit``, which then
    counts in this process's memory)."""
    ident = f"user:{player.user_id}"
    rate = parse_rate(settings.RATE_LIMITS.get("asks"))
    if rate is None:
        return ASK_LEASE, 3600.0
    allowed, period = rate
    want = max(1, min(most, allowed // 50))
    store = settings.CACHES["default"]
    if want > 1 and "RedisCache" in store["BACKEND"]:
        try:
            count, ms_left = _lease_script(store["LOCATION"])(
                keys=[cache.make_key(f"rl:asks:{ident}")], args=[period, want]
            )
        except Exception as exc:
            if not isinstance(exc, Unavailable):
                log.warning("rate limit store unavailable scope=asks: %s", exc.__class__.__name__)
        else:
            seconds = ms_left / 1000 if ms_left > 0 else float(period)
            granted = max(0, min(want, allowed - (count - want)))
            return (granted, seconds) if granted else (0, max(1, math.ceil(seconds)))
    wait = hit("asks", ident)
    return (1, float(period)) if wait is None else (0, wait)


VERIFY_PENDING = "verify:pending"
VERIFY_SCHEDULED = "verify:scheduled"
VERIFY_BATCH = 200


def _task(name: str) -> Any:
    """A task of challenges.tasks, from Celery's registry by its name: tasks.py is Celery's
    entry point and calls these services, so this module does not import it back. The
    registry holds the task object itself, not only its name: without Redis
    (CELERY_TASK_ALWAYS_EAGER) only a task object runs inline. ChallengesConfig.ready
    imports tasks.py, so every process has registered them before it serves."""
    return current_app.tasks[f"challenges.tasks.{name}"]


def enqueue_verification(attempt_id: int) -> None:
    """Hand the attempt to a worker. With Redis, ids queue in a list drained in batches
    by `verify_pending` (one message per burst, not per attempt). If anything here
    fails, the attempt stays `verifying` in Postgres and the sweeper enqueues it again
    later: nothing is lost."""
    try:
        client = redis_client()
        if client is None:
            _task("verify_attempt").apply_async((attempt_id,), retry=False)
            return
        client.rpush(VERIFY_PENDING, attempt_id)
        if client.set(VERIFY_SCHEDULED, "1", nx=True, ex=10):
            _task("verify_pending").apply_async(retry=False)
    except Exception:  # broker unreachable: the sweeper is the retry
        log.warning("could not enqueue verification attempt=%s; the sweeper will retry", attempt_id)


def verify_pending() -> int:
    """Drain the pending list in batches. Ids popped by a worker that then dies are
    still `verifying` in Postgres: the sweeper re-enqueues them."""
    client = redis_client()
    client.delete(VERIFY_SCHEDULED)
    done = 0
    while ids := client.lpop(VERIFY_PENDING, VERIFY_BATCH):
        done += attempts_verify(attempt_ids=sorted({int(i) for i in ids}))
    return done


def attempt_verify(*, attempt_id: int) -> None:
    attempts_verify(attempt_ids=[attempt_id])


def attempts_verify(*, attempt_ids: list[int]) -> int:
    """Replay seed + asks from scratch and write the results. Idempotent: only attempts
    still `verifying` are replayed, under their row locks, and a result is keyed by its
    attempt, so a duplicated task finds nothing to do. Returns how many were replayed."""
    with transaction.atomic():
        attempts = list(
            Attempt.objects.select_for_update(of=("self",))
            .select_related("challenge")
            .filter(pk__in=attempt_ids, status=Attempt.Status.VERIFYING)
            .order_by("pk")
        )
        if not attempts:
            return 0
        if connection.vendor == "postgresql":
            # The results are recomputable: if Postgres loses this commit in a crash, the
            # attempts are `verifying` again and the sweeper replays them. Asks stay durable.
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
        verified = []
        for attempt in attempts:
            if attempt.ranked and (attempt.finished_at is None or attempt.finished_at > attempt.challenge.reveals_at):
                # Whatever the path that finished it, a ranked game that changed once its
                # seed could be known never ranks (the ask service refuses such asks).
                _reject(attempt, "finished_after_close")
                continue
            game = engine(attempt.challenge.game)
            seed = attempt.challenge.seed
            assessment: fairplay.GameAssessment | None
            try:
                if attempt.ranked and game is peche.ENGINE:
                    # The result (one replay, ~0.1 ms) and how the asks were chosen (the
                    # review of ranked games), each position of the day's deal judged once
                    # in this process (games/fairplay/field.py). Practice is not assessed.
                    state, assessment = fairplay.replay_judged(seed, list(attempt.moves))
                else:
                    state = game.replay({"seed": seed}, list(attempt.moves))
                    assessment = fairplay.assess(seed, list(attempt.moves)) if attempt.ranked else None
            except ReplayError as exc:
                _reject(attempt, f"{exc.code} at ask {exc.index}")
                continue
            attempt.status = Attempt.Status.VERIFIED
            verified.append((attempt, game.outcome(state), assessment))
        results = hooks.record_results(verified=verified)
        # One UPDATE per (status, reason), nearly always one for the whole batch: bulk_update's
        # CASE WHEN per row cost ~20 % of verification's CPU building the expressions.
        outcomes: dict[tuple[str, str], list[int]] = {}
        for attempt in attempts:
            outcomes.setdefault((attempt.status, attempt.reject_reason), []).append(attempt.pk)
        for (status, reason), ids in outcomes.items():
            Attempt.objects.filter(pk__in=ids).update(status=status, reject_reason=reason)
        metrics.verified([attempt.finished_at for attempt in attempts])
        for result in results:
            log.info(
                "attempt verified attempt=%s challenge=%s score=%s",
                result.attempt_id,
                result.challenge_id,
                result.score,
            )
    return len(attempts)


def _reject(attempt: Attempt, reason: str) -> None:
    """A verified game that never ranks: its status and reason (written with the batch), logged."""
    attempt.status = Attempt.Status.REJECTED
    attempt.reject_reason = reason
    log.warning("attempt rejected attempt=%s challenge=%s reason=%s", attempt.pk, attempt.challenge_id, reason)


def attempt_reverify(*, attempt_id: int, by=None, reason: str) -> None:
    """Admin or operator: replay again (e.g. after a fix); the result is updated in place.
    ``by`` (a user, None for an operator's command) and ``reason`` go to the trail."""
    with transaction.atomic():
        attempt = _locked_attempt(attempt_id)
        if attempt.status == Attempt.Status.PLAYING:
            raise DomainError("not_finished", "the game is not finished")
        Review.objects.create(attempt=attempt, action=Review.Action.REVERIFY, by=by, reason=reason[:300])
        attempt.status = Attempt.Status.VERIFYING
        attempt.reject_reason = ""
        attempt.verify_enqueued_at = timezone.now()
        attempt.save(update_fields=["status", "reject_reason", "verify_enqueued_at"])
        transaction.on_commit(lambda: enqueue_verification(attempt.pk))


def sweep_verifying(*, now: dt.datetime | None = None) -> int:
    """Re-enqueue attempts stuck in `verifying` (lost message, dead worker, broker down)."""
    now = now or timezone.now()
    stuck = list(
        Attempt.objects.filter(
            status=Attempt.Status.VERIFYING, verify_enqueued_at__lt=now - settings.VERIFY_STUCK_AFTER
        ).values_list("pk", flat=True)[:5000]
    )
    if stuck:
        Attempt.objects.filter(pk__in=stuck).update(verify_enqueued_at=now)
        for pk in stuck:
            enqueue_verification(pk)
        log.info("sweeper re-enqueued %s attempts", len(stuck))
    try:  # ids still listed but no drain scheduled (its message lost): schedule one
        client = redis_client()
        if client is not None and client.llen(VERIFY_PENDING) and client.set(VERIFY_SCHEDULED, "1", nx=True, ex=10):
            _task("verify_pending").apply_async(retry=False)
    except Exception:
        log.warning("sweeper could not reach Redis")
    return len(stuck)
