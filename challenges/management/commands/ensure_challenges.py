from django.core.management.base import BaseCommand

from challenges.services import ensure_upcoming_challenges


class Command(BaseCommand):
    help = "Create today's and tomorrow's daily challenges if missing (the beat task does it too)."

    def handle(self, *args, **options):
        for challenge in ensure_upcoming_challenges():
            self.stdout.write(f"{challenge.game} {challenge.date} commitment={challenge.commitment}")
