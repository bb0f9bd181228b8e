from django.db import models


class CasualGame(models.Model):
    """One casual game: deal (seed + options) and the moves of seat 0 — every state is
    derived by replay with the engine named by ``game``."""

    class Status(models.TextChoices):
        PLAYING = "playing"
        OVER = "over"
        # Replaced by a new game before its end: no result, never counted in a tally.
        ABANDONED = "abandoned"

    player = models.ForeignKey("challenges.Player", on_delete=models.CASCADE, related_name="casual_games")
    game = models.CharField(max_length=16)
    seed = models.CharField(max_length=64)
    options = models.JSONField(default=dict)  # engine options: first, players, hand_size, ...
    moves = models.JSONField(default=list)
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.PLAYING)
    # From seat 0's side: win / loss / draw, set once when the game ends.
    result = models.CharField(max_length=5, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["player", "game", "-id"], name="casual_player_game")]
