from celery import shared_task

from . import services


@shared_task(acks_late=True, ignore_result=True)
def rebuild_rank_index(challenge_id: int) -> int:
    return services.rebuild_index(challenge_id=challenge_id)
