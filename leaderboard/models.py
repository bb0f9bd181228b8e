"""Results: written only by the verification replay, never from client input."""

from django.db import models


class Result(models.Model):
    # One result per attempt: a repeated verification finds it and changes nothing.
    attempt = models.OneToOneField("challenges.Attempt", on_delete=models.CASCADE, related_name="result")
    challenge = models.ForeignKey("challenges.DailyChallenge", on_delete=models.PROTECT, related_name="results")
    player = models.ForeignKey("challenges.Player", on_delete=models.CASCADE, related_name="results")
    ranked = models.BooleanField()
    score = models.IntegerField()
    player_pairs = models.PositiveSmallIntegerField()
    opponent_pairs = models.PositiveSmallIntegerField()
    asks = models.PositiveSmallIntegerField()
    # Millisecond precision, so that the rank index and SQL order ties the same way.
    finished_at = models.DateTimeField()
    verified_at = models.DateTimeField(auto_now_add=True)
    disqualified = models.BooleanField(default=False)
    # False until the rank index holds this result; the sweeper retries (e.g. Redis down).
    indexed = models.BooleanField(default=False)
    # How the asks were chosen (games/rules/fairplay.py): a log-likelihood ratio of a player who
    # knows the deal against one who only knows what the table shows; high is suspicious.
    suspicion = models.FloatField(default=0.0)
    flagged = models.BooleanField(default=False)

    class Meta:
        indexes = [
            models.Index(
                fields=["challenge", "-score", "asks", "finished_at", "attempt"],
                condition=models.Q(ranked=True, disqualified=False),
                name="result_ranking",
            ),
            models.Index(fields=["indexed"], condition=models.Q(indexed=False), name="result_unindexed"),
        ]

    def __str__(self) -> str:
        return f"result {self.pk}: {self.score}"
