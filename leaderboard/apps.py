from django.apps import AppConfig

from challenges import hooks


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import selectors, services  # AppConfig.ready: they import models, loaded only now

        # Looked up at call time (not bound here), so that a test's monkeypatch of the
        # module's function is what runs.
        hooks.provide(
            record_results=lambda *, verified: services.results_record(verified=verified),
            result_rank=lambda result: selectors.result_rank(result),
            after_sweep=lambda: services.index_pending(),
        )
