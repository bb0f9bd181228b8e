import json
import logging
from collections import Counter

from django.core.management.base import BaseCommand
from django.utils import timezone

from challenges import days, selectors, services
from challenges.management.operator import day_argument, existing_challenge
from challenges.models import Attempt, DailyChallenge
from leaderboard import rank_index
from leaderboard.models import Result

log = logging.getLogger(__name__)


class Command(BaseCommand):
    help = (
        "Daily challenges. `create DATE` makes a day's deal (idempotent); `inspect DATE` shows it, "
        "its attempts, results and rank index. The seed of a day not yet closed stays hidden "
        "unless --reveal-secret is given."
    )

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True, metavar="{create,inspect}")
        create = actions.add_parser("create", help="create the day's challenge if it does not exist")
        create.add_argument("date", help="YYYY-MM-DD, today or tomorrow")
        inspect = actions.add_parser("inspect", help="show a day's challenge and what was played")
        inspect.add_argument("date", help="YYYY-MM-DD, today or yesterday")
        inspect.add_argument(
            "--reveal-secret",
            action="store_true",
            help="print the seed even while the day is open (whoever sees it can win the day)",
        )
        inspect.add_argument("--json", action="store_true", help="one JSON object")

    def handle(self, *args, action, date, **options):
        day = day_argument(date)
        if action == "create":
            existed = DailyChallenge.objects.filter(game=services.DAILY_GAME, date=day).exists()
            challenge = services.challenge_for_day(day=day)
            public = selectors.challenge_public(challenge)
            self.stdout.write(
                f"{'exists' if existed else 'created'}: {challenge.game} {challenge.date} "
                f"commitment={challenge.commitment} closes_at={public['closes_at']}"
            )
            return
        self.inspect(existing_challenge(day), reveal=options["reveal_secret"], as_json=options["json"])

    def inspect(self, challenge: DailyChallenge, *, reveal: bool, as_json: bool) -> None:
        now = timezone.now()
        state = (
            "upcoming"
            if now < days.opens_at(challenge.date)
            else "closed"
            if challenge.is_revealed(now)
            else "grace"
            if now >= challenge.closes_at
            else "open"
        )
        info = {
            **selectors.challenge_public(challenge, now=now),
            "state": state,
            "opens_at": days.opens_at(challenge.date).isoformat(),
        }
        if "seed" not in info:
            if reveal:
                log.warning("seed revealed to an operator challenge=%s state=%s", challenge.pk, state)
                info["seed"] = challenge.seed
            else:
                info["seed"] = None
        attempts = Attempt.objects.filter(challenge=challenge)
        info["attempts"] = {
            "ranked": dict(Counter(attempts.filter(ranked=True).values_list("status", flat=True))),
            "practice": dict(Counter(attempts.filter(ranked=False).values_list("status", flat=True))),
        }
        results = Result.objects.filter(challenge=challenge, ranked=True)
        info["results"] = {
            "ranked": results.filter(disqualified=False, held=False).count(),
            "disqualified": results.filter(disqualified=True).count(),
            "held": results.filter(disqualified=False, held=True).count(),  # flagged, under review
            "not_indexed": results.filter(disqualified=False, held=False, indexed=False).count(),
        }
        info["rank_index"] = (
            "off (no REDIS_URL)"
            if not rank_index.available()
            else "ready"
            if rank_index.is_ready(challenge.pk)
            else "not built"
        )
        if as_json:
            self.stdout.write(json.dumps(info, sort_keys=False))
            return
        for key, value in info.items():
            if key == "seed" and value is None:
                value = f"(hidden while the day is {state}; --reveal-secret shows it)"
            elif isinstance(value, dict):
                value = " ".join(f"{k}={v if not isinstance(v, dict) else _counts(v)}" for k, v in value.items())
            self.stdout.write(f"{key}: {value}")


def _counts(counts: dict) -> str:
    return ",".join(f"{k}:{v}" for k, v in sorted(counts.items())) or "none"
