from django.core.management.base import BaseCommand, CommandError

from challenges.management.operator import day_argument, existing_challenge, progress
from leaderboard import rank_index, services


class Command(BaseCommand):
    help = (
        "Rebuild days' rank indexes (Redis sorted sets) from the results in Postgres, the record. "
        "Readers keep being answered during the rebuild; the new set replaces the old at once."
    )

    def add_arguments(self, parser):
        parser.add_argument("dates", nargs="+", metavar="date", help="YYYY-MM-DD, today or yesterday")

    def handle(self, *args, dates, verbosity, **options):
        if not rank_index.available():
            raise CommandError("REDIS_URL is not set: there is no rank index (the leaderboard reads SQL)")
        challenges = [existing_challenge(day_argument(text)) for text in dates]
        for challenge in progress(challenges, total=len(challenges), desc="rebuild rank index", verbosity=verbosity):
            count = services.rebuild_index(challenge_id=challenge.pk)
            self.stdout.write(f"rank index {challenge.date}: {count} entries")
