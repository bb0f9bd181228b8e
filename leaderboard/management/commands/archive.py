from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from challenges.management.operator import day_argument, existing_challenge
from leaderboard.selectors import archive_lines


class Command(BaseCommand):
    help = (
        "Write a closed day's archive (the same JSON Lines as GET /api/challenges/<date>/archive): one "
        "docs/rules.md §5 Pêche case per ranked result, in rank order, with the published score, asks, rank "
        "and player. `manage.py replay --jsonl FILE` recomputes every score from it."
    )

    def add_arguments(self, parser):
        parser.add_argument("--date", required=True, help="YYYY-MM-DD, or yesterday")
        parser.add_argument("--out", default="-", help="a file to write ('-' = stdout, the default)")

    def handle(self, *args, date, out, **options):
        challenge = existing_challenge(day_argument(date))
        if not challenge.is_revealed(timezone.now()):
            # The archive holds the seed: writing it earlier would publish today's deal.
            raise CommandError(f"{challenge.date} is still open: its seed is secret until {challenge.reveals_at}")
        if out == "-":
            for line in archive_lines(challenge=challenge):
                self.stdout.write(line, ending="")
            return
        lines = 0
        with open(out, "w", encoding="utf-8") as stream:
            for line in archive_lines(challenge=challenge):
                stream.write(line)
                lines += 1
        self.stderr.write(f"wrote {lines} ranked results of {challenge.date} to {out}")
