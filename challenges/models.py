"""Daily deals, players and attempts. An attempt stores only its asks: every state is
derived by replaying seed + asks with the engine."""
from django.conf import settings
from django.db import models
from django.db.models.functions import Lower


class Player(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="player")
    name = models.CharField(max_length=24)
    # A bearer token for API clients; only its SHA-256 is stored.
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(Lower("name"), name="player_name_unique_ci")]

    def __str__(self) -> str:
        return self.name


class DailyChallenge(models.Model):
    GAME_CHOICES = [("peche", "Pêche")]

    game = models.CharField(max_length=16, choices=GAME_CHOICES, default="peche")
    date = models.DateField()
    # Secret while the day is open: never serialize it before ``closes_at``.
    seed = models.CharField(max_length=128)
    commitment = models.CharField(max_length=64)
    rules_version = models.PositiveSmallIntegerField()
    closes_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "date"], name="one_challenge_per_game_day")]
        ordering = ["-date"]

    def __str__(self) -> str:
        return f"{self.game} {self.date}"


class Attempt(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing"
        VERIFYING = "verifying"
        VERIFIED = "verified"
        REJECTED = "rejected"

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="attempts")
    challenge = models.ForeignKey(DailyChallenge, on_delete=models.PROTECT, related_name="attempts")
    ranked = models.BooleanField()
    moves = models.JSONField(default=list)  # the asked ranks, in order: the only game state
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    reject_reason = models.CharField(max_length=200, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    verify_enqueued_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player", "challenge"], condition=models.Q(ranked=True), name="one_ranked_attempt_per_day"
            )
        ]
        indexes = [models.Index(fields=["status", "verify_enqueued_at"], name="attempt_status_enqueued")]

    def __str__(self) -> str:
        return f"attempt {self.pk} ({self.player_id}, {self.challenge})"
