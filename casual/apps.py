from django.apps import AppConfig


class CasualConfig(AppConfig):
    """Casual-game sessions (Kitten fishing, Go Fish with books) on top of the pure engines
    of games.rules."""

    name = "casual"
    label = "casual"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import accounts  # AppConfig.ready: it imports the models, loaded only now

        accounts.connect()
