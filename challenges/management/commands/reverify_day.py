from collections import Counter

from django.core.management.base import BaseCommand

from challenges import services
from challenges.management.operator import day_argument, existing_challenge, progress
from challenges.models import Attempt
from games.rules.base import DomainError


class Command(BaseCommand):
    help = (
        "Re-verify every finished attempt of a day (e.g. after a rules fix): each is replayed from "
        "seed + asks again and its result updated in place. By default the workers do the replays."
    )

    def add_arguments(self, parser):
        parser.add_argument("date", help="YYYY-MM-DD, today or yesterday")
        parser.add_argument(
            "--inline", action="store_true", help="replay in this process and wait for the outcome (no worker needed)"
        )
        parser.add_argument("--ranked-only", action="store_true", help="leave practice attempts alone")
        parser.add_argument(
            "--reason",
            default="operator: manage.py reverify_day",
            help="why, kept with each attempt's trail of reviews",
        )

    def handle(self, *args, date, inline, ranked_only, reason, verbosity, **options):
        challenge = existing_challenge(day_argument(date))
        attempts = Attempt.objects.filter(challenge=challenge).exclude(status=Attempt.Status.PLAYING)
        if ranked_only:
            attempts = attempts.filter(ranked=True)
        ids = list(attempts.order_by("pk").values_list("pk", flat=True))
        skipped = 0
        for attempt_id in progress(ids, total=len(ids), desc=f"reverify {challenge.date}", verbosity=verbosity):
            try:
                services.attempt_reverify(attempt_id=attempt_id, reason=reason)
            except DomainError:  # started again since the listing (cannot happen to a finished one) or gone
                skipped += 1
                continue
            if inline:
                # The enqueued task finds it verified already and does nothing.
                services.attempt_verify(attempt_id=attempt_id)
        done = len(ids) - skipped
        if inline:
            counts = Counter(Attempt.objects.filter(pk__in=ids).values_list("status", flat=True))
            summary = " ".join(f"{status}={counts[status]}" for status in sorted(counts)) or "none"
            self.stdout.write(f"reverified {done} attempts of {challenge.date}: {summary}")
        else:
            self.stdout.write(
                f"queued {done} attempts of {challenge.date} for verification; "
                f"the workers replay them (watch: manage.py challenge inspect {challenge.date})"
            )
