"""Daily deals, players and attempts. An attempt stores only its asks: every state is
derived by replaying seed + asks with the engine."""

import datetime as dt
from typing import Any

from django.conf import settings
from django.db import connection, models
from django.db.models.fields.json import KeyTextTransform

from games.rules.base import DomainError, Engine
from games.rules.registry import engine

from . import days
from .names import shown_name
from .play import StoredGame

# The asks of a line's start that an index of the day's games keeps (Attempt's Meta).
LINE_START = 6


class Player(models.Model):
    # None once the player deleted their account (challenges/accounts.py): the login is
    # gone, the row stays so that past leaderboards keep their ranks.
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="player"
    )
    name = models.CharField(max_length=24)
    # What the name looks like, not how it is spelled (challenges/names.py): two names with
    # one key would look alike on the leaderboard, so the key is unique, not the name.
    name_key = models.CharField(max_length=200, db_index=True)
    # True for a player whose name already looked like an older player's when names were
    # first compared by their fold (migration 0004): kept as it was, outside the unique
    # key, listed by `manage.py name_collisions`; a new name clears it.
    name_key_shared = models.BooleanField(default=False, db_default=False)  # raw inserts too (bench)
    # What the name looks like in the case it is shown in (names.look: capital I and small l
    # one shape, 0 and O another): a second key beside name_key, unique where not shared.
    # Empty for a deleted account (and for rows written in plain SQL, as benches do): no
    # name's look is empty, and the constraint leaves empty ones out.
    name_look = models.CharField(max_length=200, blank=True, default="", db_default="", db_index=True)
    # A bearer token for API clients; only its SHA-256 is stored.
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set when the player deleted their account: the name is then empty (stored
    # neutrally) and pages show a translated label instead (``shown_name``).
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # Unique where it is not shared: the look-alikes that existed before the fold
            # neither stop the migration nor get renamed behind their players' backs.
            models.UniqueConstraint(
                fields=["name_key"], condition=models.Q(name_key_shared=False), name="one_player_per_name_key"
            ),
            models.UniqueConstraint(
                fields=["name_look"],
                condition=models.Q(name_key_shared=False) & ~models.Q(name_look=""),
                name="one_player_per_name_look",
            ),
        ]

    def __str__(self) -> str:
        return self.shown_name

    @property
    def shown_name(self) -> str:
        """The name on leaderboards and pages: the chosen one, or for a deleted account
        "Deleted player 4f2a" in the reader's language."""
        return shown_name(self.name, self.pk)


class DeviceCode(models.Model):
    """A one-time code that signs a second device in as this player, without a password.
    Only a keyed hash of the code is stored; it lasts a few minutes and works once."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="device_codes")
    code_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"device code of player {self.player_id} (until {self.expires_at:%H:%M})"


# The daily game: every day's deal is of this engine (games/rules/registry.py). Named here
# once; a new daily game comes in through this name.
DAILY_GAME = "peche"


class DailyChallenge(models.Model):
    GAME_CHOICES = [(DAILY_GAME, "Pêche")]

    game = models.CharField(max_length=16, choices=GAME_CHOICES, default=DAILY_GAME)
    date = models.DateField()
    # Secret until ``reveals_at``: never serialize it before (``is_revealed``).
    seed = models.CharField(max_length=128)
    commitment = models.CharField(max_length=64)
    rules_version = models.PositiveSmallIntegerField()
    # No new ranked game starts after ``closes_at`` (the next day has begun); a ranked game
    # already running may take asks until ``reveals_at`` (the close plus a short grace),
    # and the seed is published only then, so no ranked ask is ever made knowing it.
    closes_at = models.DateTimeField()
    reveals_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "date"], name="one_challenge_per_game_day")]
        ordering = ["-date"]

    def __str__(self) -> str:
        return f"{self.game} {self.date}"

    def is_revealed(self, now: dt.datetime) -> bool:
        """The seed is public and the day's ranked games can no longer change."""
        return now >= self.reveals_at

    @classmethod
    def of_day(cls, day: dt.date, game: str = DAILY_GAME) -> "DailyChallenge":
        """The day's challenge as it is derived (seed, commitment, close), not stored: every
        field is a function of the day, so a read needs no row."""
        version = engine(game).rules_version
        seed = days.daily_seed(game, day, version)
        return cls(
            game=game,
            date=day,
            seed=seed,
            commitment=days.commitment(seed),
            rules_version=version,
            closes_at=days.closes_at(day),
            reveals_at=days.reveals_at(day),
        )


class LineStart(models.Func):
    """``moves``' first LINE_START asks joined by spaces, NULL while there are fewer: the
    JSON texts joined by ``||`` (a NULL makes it all NULL), no COALESCE nor cast. Django's
    Concat wraps each part in COALESCE and casts the whole: with it, Postgres spent as long
    working the column out at each ask as the index writes it saved (pgbench, 2026-12-05:
    9,500 updates/s against 11,000 for this, 11,300 with no column at all)."""

    arg_joiner = " || ' ' || "
    template = "(%(expressions)s)"
    output_field = models.TextField()

    def __init__(self) -> None:
        super().__init__(*(KeyTextTransform(str(i), "moves") for i in range(LINE_START)))


class Attempt(StoredGame):
    """A player's game of a day's deal: ``moves`` are the asked ranks, in order."""

    class Status(models.TextChoices):
        PLAYING = "playing"
        VERIFYING = "verifying"
        VERIFIED = "verified"
        REJECTED = "rejected"

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="attempts")
    challenge = models.ForeignKey(DailyChallenge, on_delete=models.PROTECT, related_name="attempts")
    ranked = models.BooleanField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    reject_reason = models.CharField(max_length=200, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    verify_enqueued_at = models.DateTimeField(null=True, blank=True)
    # Keyed hashes (never the address or cookie itself) of where a ranked game started:
    # several players of one day from one address or one browser are shown to reviewers
    # (throwaway players mapping the deal for a last one who plays it knowing the cards).
    client_key = models.CharField(max_length=16, blank=True, default="")
    browser_key = models.CharField(max_length=16, blank=True, default="")
    # The address's network (its /24, or /64 for IPv6), keyed the same way: a household or
    # a cheater's spare addresses share it (leaderboard/linking.py).
    network_key = models.CharField(max_length=16, blank=True, default="", db_default="")
    # The first LINE_START asks, space-separated ("10 10 5 5 10 5"; NULL before the game
    # has made them), worked out by the database from ``moves``: the index of a day's lines
    # (below) reads this column, so an ask, which only appends to ``moves``, leaves every
    # index as it was once the line has started and Postgres updates the row in place (a
    # HOT update); an index on expressions of ``moves`` made every ask write all the
    # table's indexes.
    line_start = models.GeneratedField(
        expression=LineStart(), output_field=models.TextField(null=True), db_persist=True
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player", "challenge"], condition=models.Q(ranked=True), name="one_ranked_attempt_per_day"
            )
        ]
        indexes = [
            models.Index(fields=["status", "verify_enqueued_at"], name="attempt_status_enqueued"),
            # The day's games tied to one by where they started (leaderboard/linking.py),
            # looked up at each ranked game's verification: ranked ones with a key only.
            *(
                models.Index(
                    fields=["challenge", key],
                    condition=models.Q(ranked=True) & ~models.Q(**{key: ""}),
                    name=f"attempt_day_{key}",
                )
                for key in ("client_key", "network_key", "browser_key")
            ),
            # The day's ranked games that begin with given asks (linking.copies, at each
            # winning game's verification): their first LINE_START asks, so the day's rows are
            # not all read (docs/fairplay.md, "copies of a line").
            models.Index(
                fields=["challenge", "line_start"],
                condition=models.Q(ranked=True, line_start__isnull=False),
                name="attempt_day_line",
            ),
        ]
        permissions = [("review_attempt", "Can disqualify, restore and re-verify ranked games")]

    def __str__(self) -> str:
        return f"attempt {self.pk} ({self.player_id}, {self.challenge})"

    def engine(self) -> Engine:
        return engine(self.challenge.game)

    def deal(self) -> dict[str, Any]:
        return {"seed": self.challenge.seed}

    def refuse_move(self, now: dt.datetime) -> None:
        if self.ranked and self.challenge.is_revealed(now):
            # The seed is public now: an ask made knowing the deal must never rank.
            raise DomainError("day_closed", "this day has closed: the game no longer counts (play it on as practice)")

    def write_guard(self, now: dt.datetime) -> tuple[str, list[Any]]:
        """A ranked ask lands only while its day's seed is secret, as the database has it
        now: a game held between asks (a WebSocket) read its day's close a while ago."""
        if not self.ranked:
            return "", []
        closes = (
            f" AND NOT EXISTS (SELECT 1 FROM {DailyChallenge._meta.db_table} c"
            f" WHERE c.id = {Attempt._meta.db_table}.challenge_id AND c.reveals_at <= %s)"
        )
        return closes, [models.DateTimeField().get_db_prep_value(now, connection)]

    def after_moves(self, eng: Engine, state: Any, now: dt.datetime) -> dict[str, Any]:
        """A finished game waits for the worker's replay (``verifying``); the caller
        enqueues it once the write is committed."""
        if not eng.is_over(state):
            return {}
        return {
            "status": self.Status.VERIFYING,
            "verify_enqueued_at": now,
            "finished_at": now.replace(microsecond=now.microsecond // 1000 * 1000),
        }


class SignUp(models.Model):
    """Where a player was created, as keyed hashes (challenges/origins.py): the address, its
    network, the browser's device cookie, and the burst of sign-ups from one network it
    belongs to. Read by leaderboard/linking.py to tie accounts together; deleted with the
    account (challenges/accounts.py)."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="signup")
    at = models.DateTimeField()
    client_key = models.CharField(max_length=16, blank=True, default="")
    network_key = models.CharField(max_length=16, blank=True, default="")
    browser_key = models.CharField(max_length=16, blank=True, default="")
    # The id of the first player of a burst (several sign-ups from one network within
    # origins.BURST_WINDOW), the same for every player of the burst; None outside one.
    burst = models.BigIntegerField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["network_key", "at"], condition=~models.Q(network_key=""), name="signup_network_at"),
            models.Index(fields=["browser_key"], condition=~models.Q(browser_key=""), name="signup_browser"),
            models.Index(fields=["burst"], condition=models.Q(burst__isnull=False), name="signup_burst"),
        ]

    def __str__(self) -> str:
        return f"sign-up of player {self.player_id} at {self.at:%Y-%m-%d %H:%M}"


class Review(models.Model):
    """The trail of every decision on a game after it was played: who, when and why."""

    class Action(models.TextChoices):
        DISQUALIFY = "disqualify"
        RESTORE = "restore"
        REVERIFY = "reverify"

    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="reviews")
    action = models.CharField(max_length=10, choices=Action.choices)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    reason = models.CharField(max_length=300)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.action} attempt {self.attempt_id} by {self.by} at {self.at:%Y-%m-%d %H:%M}"


class DayPar(models.Model):
    """The day's par: the analysis engine's own game of the deal (games/analysis/), the same
    for every player. Written once the day's seed is public (the beat, or the first
    analysis asked for), shown only then: before, it would tell something of the deal."""

    challenge = models.OneToOneField(DailyChallenge, on_delete=models.CASCADE, primary_key=True, related_name="par")
    score = models.IntegerField()
    player_pairs = models.PositiveSmallIntegerField()
    opponent_pairs = models.PositiveSmallIntegerField()
    moves = models.JSONField()  # the engine's asks: anyone may replay them once the seed is public
    version = models.PositiveSmallIntegerField()  # games.analysis.game.VERSION: another is worked out again
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"par {self.score} ({self.challenge})"


class GameAnalysis(models.Model):
    """A ranked game analysed (games/analysis/game.py ``analyse``), worked out on the first
    request after its day's close by an `analysis` worker and kept: a second view is a read."""

    attempt = models.OneToOneField(Attempt, on_delete=models.CASCADE, primary_key=True, related_name="analysis")
    accuracy = models.FloatField()
    luck = models.FloatField()  # in pairs: the result less what the engine expected of the player's choices
    asks = models.JSONField()  # AskAnalysis.as_dict() of each ask
    version = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "game analyses"

    def __str__(self) -> str:
        return f"analysis of attempt {self.attempt_id}"
