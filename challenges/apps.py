from django.apps import AppConfig


class ChallengesConfig(AppConfig):
    name = "challenges"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in, user_logged_out

        from .auth import forget_session

        user_logged_in.connect(forget_session, dispatch_uid="challenges.forget_session.in")
        user_logged_out.connect(forget_session, dispatch_uid="challenges.forget_session.out")
