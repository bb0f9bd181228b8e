"""Who a player is, and what the site holds about them: the chosen name and changing it,
a one-time code to sign in on another device, the export of everything, and deletion.

Refusals are domain errors (``AccountError`` with a code); the HTTP layer
(config/errors.py) gives them their statuses.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.rules.base import DomainError

from . import hooks, names
from .auth import forget_user
from .models import Attempt, DeviceCode, Player, SignUp
from .services import clean_name, hash_token

# A code is typed on a phone: 8 characters without look-alikes (no 0/O, 1/I/L), about
# 40 bits; with a few minutes of life and tries limited per address, guessing one is hopeless.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
CODE_LIFETIME = dt.timedelta(minutes=10)


class AccountError(DomainError):
    """A refusal of the account services: ``code`` is the API's error code."""


# --- the name ----------------------------------------------------------------------


def player_rename(*, player: Player, name: Any) -> Player:
    """The player's new name, under the rules of a first name (services.clean_name):
    NFKC, one script, and no name that looks like another player's. The leaderboards
    show the current name, past days included."""
    name, key = clean_name(name, player=player)
    try:
        with transaction.atomic():
            forget_user(player.user_id)  # its shared copy (an update() sends no signal)
            # A new name is checked like a first one: a look-alike kept from before the fold
            # (name_key_shared) holds its key under the unique constraint from now on.
            Player.objects.filter(pk=player.pk, deleted_at__isnull=True).update(
                name=name, name_key=key, name_look=names.name_look(name), name_key_shared=False
            )
    except IntegrityError:  # the unique look-alike key: the player's own key is theirs
        raise AccountError("name_taken", "this name, or one that looks like it, is already taken") from None
    player.name, player.name_key, player.name_key_shared = name, key, False
    return player


# --- another device ----------------------------------------------------------------


def _code_hash(code: str) -> str:
    return hmac.new(settings.SECRET_KEY.encode(), f"device-code:{code}".encode(), hashlib.sha256).hexdigest()


def normal_code(text: Any) -> str:
    """What was typed, as the code it means: case, spaces and dashes do not matter."""
    if not isinstance(text, str):
        return ""
    return "".join(c for c in text.upper() if c.isalnum())[:32]


def device_code_create(*, player: Player, now: dt.datetime | None = None) -> tuple[str, dt.datetime]:
    """A new one-time code for the player (shown once, e.g. "K7QM-3XTP") and when it
    expires. The player's earlier unused codes stop working: one code at a time."""
    now = now or timezone.now()
    expires = now + CODE_LIFETIME
    with transaction.atomic():
        DeviceCode.objects.filter(player=player, used_at__isnull=True).delete()
        for _ in range(3):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                with transaction.atomic():
                    DeviceCode.objects.create(player=player, code_hash=_code_hash(code), expires_at=expires)
                break
            except IntegrityError:  # another player's live code drew the same characters
                continue
        else:
            raise AccountError("unavailable", "no code could be made; try again")
    return f"{code[:4]}-{code[4:]}", expires


def device_code_redeem(*, code: Any, now: dt.datetime | None = None) -> Player:
    """The player whose code this is; the code is then spent. An unknown, expired or
    already used code is the same refusal (nothing tells which)."""
    now = now or timezone.now()
    digest = _code_hash(normal_code(code))
    with transaction.atomic():
        found = (
            DeviceCode.objects.select_related("player__user")
            .filter(code_hash=digest, used_at__isnull=True, expires_at__gt=now)
            .first()
        )
        if found is None or found.player.user is None or not found.player.user.is_active:
            raise AccountError("bad_code", "this code is unknown, expired or already used")
        # Compare-and-set: of two devices typing the code at once, one gets in.
        if not DeviceCode.objects.filter(pk=found.pk, used_at__isnull=True).update(used_at=now):
            raise AccountError("bad_code", "this code is unknown, expired or already used")
    return found.player


# --- your data ---------------------------------------------------------------------


def _when(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def player_export(*, player: Player, now: dt.datetime | None = None) -> dict[str, Any]:
    """Everything the site holds about the player, as one JSON document: the profile, every
    daily game with its asks and result, the casual games, the device codes (their dates;
    the codes themselves are not kept). No day's secret seed: a game's day is named, and
    its seed is public on that day's page once the day has closed."""
    now = now or timezone.now()
    user = player.user
    attempts = []
    for attempt in (
        Attempt.objects.filter(player=player).select_related("challenge", "result").order_by("started_at", "id")
    ):
        result = getattr(attempt, "result", None)
        attempts.append(
            {
                "id": attempt.pk,
                "game": attempt.challenge.game,
                "date": attempt.challenge.date.isoformat(),
                "ranked": attempt.ranked,
                "status": attempt.status,
                "reject_reason": attempt.reject_reason or None,
                "asks": list(attempt.moves),
                "started_at": _when(attempt.started_at),
                "finished_at": _when(attempt.finished_at),
                # Keyed hashes of the address and browser a ranked game started from (kept for
                # the review of clusters of players); they cannot be turned back into either.
                "origin": {
                    "address_hash": attempt.client_key or None,
                    "network_hash": attempt.network_key or None,
                    "browser_hash": attempt.browser_key or None,
                },
                "result": None
                if result is None
                else {
                    "score": result.score,
                    "player_pairs": result.player_pairs,
                    "opponent_pairs": result.opponent_pairs,
                    "asks": result.asks,
                    "ranked": result.ranked,
                    "disqualified": result.disqualified,
                    "verified_at": _when(result.verified_at),
                    "rank": hooks.result_rank(result),
                },
            }
        )
    codes = [
        {"created_at": _when(c.created_at), "expires_at": _when(c.expires_at), "used_at": _when(c.used_at)}
        for c in DeviceCode.objects.filter(player=player).order_by("id")
    ]
    return {
        "exported_at": now.isoformat(),
        "profile": {
            "id": player.pk,
            "name": player.name,
            "created_at": _when(player.created_at),
            "has_password": bool(user and user.has_usable_password()),
            "last_login": _when(user.last_login) if user else None,
            # Where the account was made, as the keyed hashes kept (challenges/origins.py).
            "signup": _signup(player),
        },
        "attempts": attempts,
        "casual_games": hooks.player_casual_games(player),
        "leagues": hooks.player_leagues(player),
        "device_codes": codes,
    }


def _signup(player: Player) -> dict[str, Any] | None:
    signup = SignUp.objects.filter(player=player).first()
    if signup is None:
        return None
    return {
        "address_hash": signup.client_key or None,
        "network_hash": signup.network_key or None,
        "browser_hash": signup.browser_key or None,
        "burst": signup.burst is not None,
    }


def player_delete(*, player: Player, now: dt.datetime | None = None) -> None:
    """Delete the account. The login goes (the user, hence every session, and the token),
    so do the name, practice games, unfinished or rejected games, casual games, device
    codes and where games came from. Ranked games that ranked (or are being verified)
    stay on their leaderboards under "Deleted player 4f2a", so nobody's rank moves."""
    now = now or timezone.now()
    with transaction.atomic():
        player = Player.objects.select_for_update(of=("self",)).select_related("user").get(pk=player.pk)
        if player.deleted_at is not None:
            return
        user = player.user
        kept = Attempt.objects.filter(
            player=player, ranked=True, status__in=[Attempt.Status.VERIFYING, Attempt.Status.VERIFIED]
        )
        Attempt.objects.filter(player=player).exclude(pk__in=kept.values("pk")).delete()
        kept.update(client_key="", network_key="", browser_key="")
        hooks.player_casual_delete(player)
        hooks.player_leagues_delete(player)
        DeviceCode.objects.filter(player=player).delete()
        SignUp.objects.filter(player=player).delete()  # where the account was made
        # The look-alike key must stay unique: a tab never survives names.normal_form, so
        # no name anybody types has this key, and the empty name is free for nobody.
        Player.objects.filter(pk=player.pk).update(
            name="",
            name_key=f"\tdeleted {player.pk}",
            name_look="",
            token_hash=hash_token(secrets.token_urlsafe(32)),
            deleted_at=now,
            user=None,
        )
        if user is not None:
            user.delete()  # its sessions name a user that no longer exists: refused everywhere
