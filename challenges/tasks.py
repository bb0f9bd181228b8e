"""Tasks take ids and call services; all are idempotent."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from . import analysis_jobs, hooks, services

# Acknowledged once done (a killed worker gives the message back); a database outage is
# retried with backoff; the sweeper catches whatever still falls through.
VERIFICATION = dict(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    retry_backoff_max=30,
    max_retries=20,
    ignore_result=True,
)


@shared_task(**VERIFICATION)
def verify_attempt(attempt_id: int) -> None:
    services.attempt_verify(attempt_id=attempt_id)


@shared_task(**VERIFICATION)
def verify_pending() -> int:
    return services.verify_pending()


@shared_task(ignore_result=True)
def sweep_verifying() -> int:
    count = services.sweep_verifying()
    hooks.after_sweep()  # leaderboard's: results that never reached the rank index
    return count


@shared_task(ignore_result=True)
def ensure_upcoming_challenges() -> None:
    services.ensure_upcoming_challenges()


# The analysis queue (`analysis`, CELERY_TASK_ROUTES): its own workers, so an analysis (~1 s
# of CPU) never waits in front of a verification. A worker that dies mid-analysis gives the
# message back; a lost one is asked for again by the next reader.
ANALYSIS = dict(acks_late=True, reject_on_worker_lost=True, ignore_result=True)


@shared_task(**ANALYSIS)
def analyse_attempt(attempt_id: int) -> bool:
    return analysis_jobs.attempt_analyse(attempt_id=attempt_id)


@shared_task(**ANALYSIS)
def analyses_due() -> int:
    return analysis_jobs.analyses_due()


@shared_task(**ANALYSIS)
def pars_due() -> int:
    return analysis_jobs.pars_due()


@shared_task(**ANALYSIS)
def day_par(challenge_id: int) -> None:
    analysis_jobs.day_par_of(challenge_id=challenge_id)
