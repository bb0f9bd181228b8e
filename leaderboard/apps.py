from django.apps import AppConfig

from challenges import hooks


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Here because they import the models, loaded only now. tasks: registers the tasks
        # with Celery in every process, the web's included (services enqueue them by name:
        # the tasks' module imports the services).
        from . import selectors, services, tasks  # noqa: F401

        # Looked up at call time (not bound here), so that a test's monkeypatch of the
        # module's function is what runs.
        hooks.provide(
            record_results=lambda *, verified: services.results_record(verified=verified),
            result_rank=lambda result: selectors.result_rank(result),
            after_sweep=lambda: services.rank_indexes_kept(),
        )
