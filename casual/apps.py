from django.apps import AppConfig
from django.contrib.auth.signals import user_logged_in

from challenges import hooks


class CasualConfig(AppConfig):
    """Casual-game sessions (Kitten fishing, Go Fish with books) on top of the pure engines
    of games.rules."""

    name = "casual"
    label = "casual"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import accounts  # AppConfig.ready: it imports the models, loaded only now

        # The account's export and deletion (challenges/accounts.py) reach the casual games here.
        hooks.provide(
            player_casual_games=lambda player: accounts.player_casual_games(player),
            player_casual_delete=lambda player: accounts.player_casual_delete(player),
        )
        # A browser's casual games follow the player who signs in on it.
        user_logged_in.connect(accounts.adopt_at_login, dispatch_uid="casual-adopt-at-login")
