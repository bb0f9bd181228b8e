"""Writes of leagues: create, join, leave, rename, a new code, remove a member, and what an
account's export and deletion do to them (challenges/hooks.py).

Refusals are domain errors with a code (config/errors.py gives the statuses). A league is
private: a player who is not a member gets the refusal of a league that does not exist
(``not_found``), whatever they try, so ids and codes tell nothing.

The limits (MAX_MEMBERS a league, MAX_LEAGUES a player) hold under concurrent requests: a
join or a creation locks the player's row, then the league's (always in that order, as
the account's deletion does), before counting.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count

from challenges import names
from challenges.accounts import normal_code
from challenges.models import Player

from .errors import LeagueError, not_found
from .models import League, Membership

MAX_MEMBERS = 200
MAX_LEAGUES = 20
NAME_LENGTH = (1, 40)
# A player's name's shape (challenges.services.NAME_RE), 1 to 40 characters: letters and
# digits of one script, spaces and . ' - inside.
NAME_RE = re.compile(r"^[^\W_](?:[\w .'-]{0,38}[^\W_])?$")
# As the device codes (challenges/accounts.py): no 0/O, 1/I/L to mistype. 31**10 is about
# 2**49.5: guessing one, at the rate limits of the join (per address and per player), is
# hopeless, and a guess tells nothing but "no such league".
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 10


# --- the name ----------------------------------------------------------------------------


def clean_league_name(name: Any) -> tuple[str, str]:
    """The name as stored (NFKC, single spaces) and its look-alike fold, under a player
    name's rules: 1-40 letters, digits, spaces and . ' -, starting and ending with a letter
    or digit, in one script (challenges.names)."""
    if not isinstance(name, str):
        raise LeagueError("bad_name", "the name must be a string")
    name = names.normal_form(name)
    if not NAME_LENGTH[0] <= len(name) <= NAME_LENGTH[1]:
        raise LeagueError("bad_name", "a league's name has 1 to 40 characters")
    if not NAME_RE.match(name):
        raise LeagueError("bad_name", "letters, digits, spaces and . ' - only; start and end with a letter or digit")
    if names.mixes_scripts(name):
        raise LeagueError(
            "bad_name", "a name is written in one script (Latin with Japanese, Chinese or Korean is fine)"
        )
    return name, names.fold(name)


def _refuse_look_alike(*, owner: Player, name: str, key: str, league: League | None = None) -> None:
    """One owner's leagues are told apart by what their names look like (their members see
    them side by side in their list): neither the same letters in any case (``name_key``,
    names.fold) nor the same shapes as shown (names.look: "PauI's" beside "Paul's"). An
    owner has at most 20 leagues: their looks are compared here. The caller holds the
    owner's row lock."""
    taken = League.objects.filter(owner=owner)
    if league is not None:
        taken = taken.exclude(pk=league.pk)
    look = names.look(name)
    if any(other_key == key or names.look(other) == look for other, other_key in taken.values_list("name", "name_key")):
        raise LeagueError("name_taken", "you already have a league with this name, or one that looks like it")


# --- locks and membership --------------------------------------------------------------------


def _lock_player(player: Player) -> Player:
    found = Player.objects.select_for_update().filter(pk=player.pk, deleted_at__isnull=True).first()
    if found is None:
        raise LeagueError("not_authenticated", "this player no longer exists")
    return found


def _member_league(*, league_id: int, player: Player) -> League:
    """The league, locked, if ``player`` is a member; otherwise the league does not exist."""
    league = League.objects.select_for_update().filter(pk=league_id).first()
    if league is None or not Membership.objects.filter(league=league, player=player).exists():
        raise not_found()
    return league


def _owned_league(*, league_id: int, player: Player) -> League:
    league = _member_league(league_id=league_id, player=player)
    if league.owner_id != player.pk:
        raise LeagueError("not_owner", "only the league's owner may do this")
    return league


def _refuse_too_many(player: Player) -> None:
    if Membership.objects.filter(player=player).count() >= MAX_LEAGUES:
        raise LeagueError("too_many_leagues", f"a player is in at most {MAX_LEAGUES} leagues: leave one first")


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _with_new_code(save) -> None:
    """Run ``save(code)`` with a fresh code, again if another league drew the same one."""
    for _ in range(3):
        try:
            with transaction.atomic():
                save(_new_code())
            return
        except IntegrityError:
            continue
    raise LeagueError("unavailable", "no code could be made; try again")


# --- what a player does ----------------------------------------------------------------------


def league_create(*, owner: Player, name: Any) -> League:
    """A new league owned (and joined) by ``owner``, with a fresh invite code."""
    name, key = clean_league_name(name)
    with transaction.atomic():
        owner = _lock_player(owner)
        _refuse_too_many(owner)
        _refuse_look_alike(owner=owner, name=name, key=key)
        league = League(name=name, name_key=key, owner=owner)

        def save(code: str) -> None:
            league.code = code
            league.save(force_insert=True)

        _with_new_code(save)
        Membership.objects.create(league=league, player=owner)
    return league


def league_join(*, player: Player, code: Any) -> tuple[League, bool]:
    """The league whose code this is, with ``player`` in it; True if they just joined
    (False: already a member, nothing changed). An unknown or replaced code is
    ``not_found``."""
    code = normal_code(code)
    if not code:
        raise not_found()
    with transaction.atomic():
        player = _lock_player(player)
        league = League.objects.select_for_update().filter(code=code).first()
        if league is None:
            raise not_found()
        if Membership.objects.filter(league=league, player=player).exists():
            return league, False
        _refuse_too_many(player)
        if Membership.objects.filter(league=league).count() >= MAX_MEMBERS:
            raise LeagueError("league_full", f"this league has {MAX_MEMBERS} members already, its most")
        Membership.objects.create(league=league, player=player)
    return league, True


def league_rename(*, league_id: int, player: Player, name: Any) -> League:
    name, key = clean_league_name(name)
    with transaction.atomic():
        player = _lock_player(player)
        league = _owned_league(league_id=league_id, player=player)
        _refuse_look_alike(owner=player, name=name, key=key, league=league)
        League.objects.filter(pk=league.pk).update(name=name, name_key=key)
    league.name, league.name_key = name, key
    return league


def league_new_code(*, league_id: int, player: Player) -> League:
    """A new invite code; the old one stops working at once (a join with it is
    ``not_found``). Members stay."""
    with transaction.atomic():
        league = _owned_league(league_id=league_id, player=player)

        def save(code: str) -> None:
            League.objects.filter(pk=league.pk).update(code=code)
            league.code = code

        _with_new_code(save)
    return league


def _depart(league: League, player_id: int) -> None:
    """``player_id`` leaves ``league`` (locked by the caller). An owner's league passes to
    its oldest member (earliest to join), or goes with its last member."""
    Membership.objects.filter(league=league, player_id=player_id).delete()
    if league.owner_id is not None and league.owner_id != player_id:
        return
    heir = Membership.objects.filter(league=league).order_by("joined_at", "id").first()
    if heir is None:
        league.delete()
    else:
        League.objects.filter(pk=league.pk).update(owner_id=heir.player_id)
        league.owner_id = heir.player_id


def league_leave(*, league_id: int, player: Player) -> None:
    with transaction.atomic():
        league = _member_league(league_id=league_id, player=player)
        _depart(league, player.pk)


def member_remove(*, league_id: int, by: Player, player_id: int) -> None:
    """The owner removes a member (themselves: they leave). A player who is not a member is
    ``not_found``, as the league is to a stranger. The removed player may join again with
    the code: the owner makes a new one (``league_new_code``) to keep them out."""
    with transaction.atomic():
        league = _owned_league(league_id=league_id, player=by)
        if not Membership.objects.filter(league=league, player_id=player_id).exists():
            raise LeagueError("not_found", "this player is not a member of the league")
        _depart(league, player_id)


# --- the account: export and deletion (challenges/hooks.py) ----------------------------------


def player_leagues_export(player: Player) -> list[dict[str, Any]]:
    """The player's leagues as their export lists them, oldest membership first: the
    league's name, whether they own it, when they joined, how many members it has."""
    rows = list(Membership.objects.filter(player=player).select_related("league").order_by("joined_at", "id"))
    counts = dict(
        Membership.objects.filter(league__in=[m.league_id for m in rows])
        .values_list("league_id")
        .annotate(n=Count("id"))
    )
    return [
        {
            "id": m.league_id,
            "name": m.league.name,
            "owner": m.league.owner_id == player.pk,
            "joined_at": m.joined_at.isoformat(),
            "members": counts.get(m.league_id, 0),
        }
        for m in rows
    ]


def player_leagues_delete(player: Player) -> None:
    """The account goes: each membership goes, and each league it owned passes to its
    oldest member, or goes when nobody is left. The caller's transaction holds the
    player's row lock (challenges.accounts.player_delete)."""
    for league_id in Membership.objects.filter(player=player).values_list("league_id", flat=True):
        league = League.objects.select_for_update().get(pk=league_id)
        _depart(league, player.pk)
    # A league whose owner left it some other way (none should): it passes on too.
    for league in League.objects.select_for_update().filter(owner=player):
        _depart(league, player.pk)
