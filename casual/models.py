import datetime as dt
from typing import Any

from django.db import models

from challenges.play import StoredGame
from games.rules.base import Engine
from games.rules.registry import engine


class CasualOwner(models.Model):
    """Who casual games belong to. A browser without a player gets one on its first game
    (its id is kept in the browser's session, nothing else is known about it); a named
    player has one too, and the games of the browser it signs in on move to it. No name,
    no login: casual games never create a player nor spend a sign-up."""

    player = models.OneToOneField(
        "challenges.Player", null=True, blank=True, on_delete=models.CASCADE, related_name="casual_owner"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"casual owner {self.pk} ({self.player_id or 'anonymous'})"


class CasualGame(StoredGame):
    """One casual game: deal (seed + options) and the moves of seat 0 — every state is
    derived by replay with the engine named by ``game``."""

    class Status(models.TextChoices):
        PLAYING = "playing"
        OVER = "over"
        # Replaced by a new game before its end: no result, never counted in a tally.
        ABANDONED = "abandoned"

    owner = models.ForeignKey(CasualOwner, on_delete=models.CASCADE, related_name="games")
    game = models.CharField(max_length=16)
    seed = models.CharField(max_length=64)
    options = models.JSONField(default=dict)  # engine options: first, players, hand_size, ...
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.PLAYING)
    # From seat 0's side: win / loss / draw, set once when the game ends.
    result = models.CharField(max_length=5, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Read with the game by casual.selectors (not columns): its number among the owner's
    # games of that kind, the owner's tally of that kind, and the status it was tallied at.
    number: int
    tally: dict[str, int]
    tallied_status: str

    class Meta:
        indexes = [models.Index(fields=["owner", "game", "-id"], name="casual_owner_game")]

    def __str__(self) -> str:
        return f"{self.game} game {self.pk} ({self.status})"

    def engine(self) -> Engine:
        return engine(self.game)

    def deal(self) -> dict[str, Any]:
        return {"seed": self.seed, **self.options}

    def after_moves(self, eng: Engine, state: Any, now: dt.datetime) -> dict[str, Any]:
        changes: dict[str, Any] = {"updated_at": now}
        if eng.is_over(state):
            changes.update(status=self.Status.OVER, result=eng.outcome(state).side(0))
        return changes
