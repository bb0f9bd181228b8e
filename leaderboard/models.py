"""Results: written only by the verification replay, never from client input."""

from django.db import models

# The results on a day's ranking (and in its rank index): ranked, neither disqualified nor
# held. One definition for SQL, the index's rebuild and the partial index that serves them.
COUNTED = models.Q(ranked=True, disqualified=False, held=False)


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
    # How often the asks found the opponent's cards against the table's chances
    # (games/fairplay/): the log of the game's evidence ratio, in nats; high is suspicious.
    suspicion = models.FloatField(default=0.0)
    flagged = models.BooleanField(default=False)
    # What the detector found, stored at verification (fairplay.GameAssessment.evidence):
    # the week's rule and the review queue read it instead of replaying the week's games.
    evidence = models.JSONField(null=True, blank=True)
    # Held until reviewed: flagged by the detector and not cleared by a reviewer yet. A held
    # result counts for no one (the leaderboard, its histogram, the archive, ranks,
    # top shares, streaks) and is not in the rank index; its player sees it "under review"
    # with the provisional score. services.holds() is the one rule that sets it.
    held = models.BooleanField(default=False, db_default=False)
    # (held and review_reason have database defaults too: rows written in plain SQL, as
    # bench.leaderboard_scale does, rank.)
    # A reviewer cleared it (or restored it after a disqualification): set once, so that a
    # re-assessment flagging it again does not hold it again (services.holds).
    cleared_at = models.DateTimeField(null=True, blank=True)
    # The reason of the last reviewer decision on it (the Review trail keeps every one):
    # a disqualified player is shown it.
    review_reason = models.CharField(max_length=300, blank=True, default="", db_default="")
    # Flagged as a linked account's game (leaderboard/linking.py): on a day on which accounts
    # tied to this one (address, network, device cookie, sign-up burst) explored the deal,
    # this late game replays or extends one of their lines and wins. Held like a detector's
    # flag (services.holds); ``link_evidence`` says what was found (the game copied, the
    # asks shared, the lines explored, the ties).
    linked_accounts = models.BooleanField(default=False, db_default=False)
    link_evidence = models.JSONField(null=True, blank=True)
    # The week rule (services.week_assess) as decided when this game was verified, over the
    # player's ranked games of the 7 days ending on its day: ``week_evidence`` its figures
    # (the review queue reads them instead of judging the week again). ``week_flagged`` is
    # also set on the player's other results of a week that a later game tipped: the whole
    # week is held (services.holds) until a reviewer decides it.
    week_flagged = models.BooleanField(default=False, db_default=False)
    week_evidence = models.JSONField(null=True, blank=True)
    # The history rule (services.history_assess) as decided when this game was verified,
    # over every ranked game of its player in its game up to its day, since the first (or
    # since the last game of that player whose history flag a reviewer cleared: a new test
    # starts after a person looked): ``history_evidence`` its figures (suspicion, games,
    # rate, channels, tallies, first and restarted_after), ``history_flagged`` whether it
    # reached fairplay.HISTORY_THRESHOLD. A flagged history holds this game (services.holds).
    history_flagged = models.BooleanField(default=False, db_default=False)
    history_evidence = models.JSONField(null=True, blank=True)
    # Its player had too short a ranked history when it was verified (fewer than
    # settings.ESTABLISHED_DAYS days with a counted result in the ESTABLISHED_WINDOW days
    # before its day): it ranks, and its player sees the rank, but the public list of the
    # day (its page, the API, the archive) leaves it out. Decided once: a day's public
    # list does not change when its players' histories grow.
    provisional = models.BooleanField(default=False, db_default=False)

    class Meta:
        indexes = [
            models.Index(
                fields=["challenge", "-score", "asks", "finished_at", "attempt"],
                condition=COUNTED,
                name="result_ranking",
            ),
            models.Index(fields=["indexed"], condition=models.Q(indexed=False), name="result_unindexed"),
        ]

    def __str__(self) -> str:
        return f"result {self.pk}: {self.score}"
