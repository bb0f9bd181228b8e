from celery import shared_task

from . import rank_index, services


@shared_task(acks_late=True, ignore_result=True)
def rebuild_rank_index(challenge_id: int) -> int:
    try:
        return services.rebuild_index(challenge_id=challenge_id)
    except Exception:
        rank_index.release_rebuild(challenge_id)  # a later read starts another
        raise
