from django.apps import AppConfig


class CasualConfig(AppConfig):
    """Casual-game sessions (Kitten fishing, Go Fish with books) on top of the pure engines.

    The only Django code under games/: everything else in games/ is standard library."""

    name = "games.web"
    label = "casual"
    default_auto_field = "django.db.models.BigAutoField"
