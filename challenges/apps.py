from django.apps import AppConfig


class ChallengesConfig(AppConfig):
    name = "challenges"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings
        from django.core.exceptions import ImproperlyConfigured

        from config.throttling import parse_rate

        # Registers the tasks with Celery (services enqueue them by name, their module imports
        # the services); here because it imports the models, loaded only now.
        from . import tasks  # noqa: F401
        from .auth import connect_signals

        # Every change of a user or a player drops the user's shared copy (challenges/auth.py).
        connect_signals()

        # A mistyped limit (RATE_LIMIT_ASKS=on) would otherwise surface as a 500 on every
        # ask: no process starts with one.
        for scope, rate in settings.RATE_LIMITS.items():
            try:
                parse_rate(rate)
            except ValueError as exc:
                raise ImproperlyConfigured(f"RATE_LIMIT_{scope.upper()}: {exc}") from None
        try:
            parse_rate(settings.LOGIN_FAILURE_BURST)
        except ValueError as exc:
            raise ImproperlyConfigured(f"LOGIN_FAILURE_BURST: {exc}") from None
