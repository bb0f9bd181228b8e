"""Leagues: a name, an owner, an invite code, members. Nothing else is stored: a league's
boards are read from the day's results (leaderboard), so they can never disagree with it."""

from django.db import models


class League(models.Model):
    # As typed, in normal form (challenges.names.normal_form), 1-40 characters.
    name = models.CharField(max_length=40)
    # Its look-alike fold (challenges.names.fold): one owner never has two leagues that
    # look alike. Not unique across owners: two families may both call theirs "Family".
    name_key = models.CharField(max_length=200)
    # None only for a moment inside the deletion of the owner's account (services pass the
    # league to its oldest member, or delete it when nobody is left).
    owner = models.ForeignKey("challenges.Player", null=True, on_delete=models.SET_NULL, related_name="owned_leagues")
    # The invite: 10 characters of a 31-letter alphabet (about 49 random bits). Members see
    # it and share it; the owner replaces it when it leaked (the old one stops working).
    code = models.CharField(max_length=16, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["owner", "name_key"], name="league_owner_name")]

    def __str__(self) -> str:
        return f"league {self.pk}: {self.name}"


class Membership(models.Model):
    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="memberships")
    player = models.ForeignKey("challenges.Player", on_delete=models.CASCADE, related_name="league_memberships")
    # Who is "oldest" when an owner's account goes: the earliest to join (then the lowest id).
    joined_at = models.DateTimeField(auto_now_add=True)
    # On Postgres the table also has a column ``name``: the player's name, a copy the
    # database keeps (triggers, migration 0004: on joining and on every rename, whoever
    # writes it), which the boards read with the members from one index of the league's
    # (membership_board) instead of 200 probes of the players' table. Not a field here: the
    # ORM neither reads nor writes it.

    class Meta:
        constraints = [models.UniqueConstraint(fields=["league", "player"], name="one_membership_per_league")]
        indexes = [models.Index(fields=["player", "league"], name="membership_player")]

    def __str__(self) -> str:
        return f"player {self.player_id} in league {self.league_id}"
