from django.apps import AppConfig

from challenges import hooks


class LeaguesConfig(AppConfig):
    """Private leaderboards of the daily deal among friends, above leaderboard: it reads
    results and ranks, and nothing below it knows of leagues."""

    name = "leagues"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import services  # AppConfig.ready: it imports the models, loaded only now

        # The account's export and deletion (challenges/accounts.py) reach the leagues here.
        hooks.provide(
            player_leagues=lambda player: services.player_leagues_export(player),
            player_leagues_delete=lambda player: services.player_leagues_delete(player),
        )
