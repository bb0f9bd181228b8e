from django.apps import AppConfig


class ChallengesConfig(AppConfig):
    name = "challenges"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings
        from django.contrib.auth.signals import user_logged_in, user_logged_out
        from django.core.exceptions import ImproperlyConfigured

        from config.throttling import parse_rate

        # A mistyped limit (RATE_LIMIT_ASKS=on) would otherwise surface as a 500 on every
        # ask: no process starts with one.
        for scope, rate in settings.RATE_LIMITS.items():
            try:
                parse_rate(rate)
            except ValueError as exc:
                raise ImproperlyConfigured(f"RATE_LIMIT_{scope.upper()}: {exc}") from None

        from .auth import forget_session, remember_login

        user_logged_in.connect(remember_login, dispatch_uid="challenges.forget_session.in")
        user_logged_out.connect(forget_session, dispatch_uid="challenges.forget_session.out")
