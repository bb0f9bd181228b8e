import json

from django.core.management.base import BaseCommand

from challenges.management.operator import day_argument, existing_challenge
from leaderboard import selectors, services


class Command(BaseCommand):
    help = (
        "The day's ranked results for fair-play review, most suspicious first: one JSON object per "
        "line with attempt, player, score, suspicion, flagged (this game), week_suspicion and "
        "week_flagged (the player's games of the last 7 days), history_suspicion, history_games and "
        "history_flagged (every ranked game of the player since its first, or since a reviewer last cleared its "
        "history), spoke (which channels carry the game's, the week's and the history's figures, in words), same_client / same_browser (other "
        "players of the day from the same address / browser), group (its group of linked accounts: "
        "the first game's attempt id, null alone) and ties (what ties it to the group: address, "
        "network, device, burst), reasons (suspicion, week, history, linked_accounts), disqualified and held "
        "(flagged, not cleared by a reviewer yet: off the ranking until then)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--date", required=True, help="YYYY-MM-DD, today or yesterday")
        parser.add_argument("--flagged-only", action="store_true", help="only games or weeks that are flagged")
        parser.add_argument(
            "--recompute",
            action="store_true",
            help="compute every figure of the day again from seed + asks first, linked accounts, weeks and histories "
            "too (and store it)",
        )

    def handle(self, *args, date, flagged_only, recompute, **options):
        challenge = existing_challenge(day_argument(date))
        if recompute:
            changed = services.results_reassess(challenge_id=challenge.pk)
            linked = services.links_reassess(challenge_id=challenge.pk)
            weeks = services.weeks_reassess(challenge_id=challenge.pk)
            histories = services.histories_reassess(challenge_id=challenge.pk)
            self.stderr.write(
                f"recomputed the day's figures: {changed} changed, {linked} linked accounts' flags changed,"
                f" {weeks} weeks changed, {histories} histories changed"
            )
        for row in selectors.review_queue(challenge=challenge):
            if flagged_only and not row["reasons"]:
                continue
            self.stdout.write(
                json.dumps(
                    {
                        key: row[key]
                        for key in (
                            "attempt",
                            "player",
                            "score",
                            "suspicion",
                            "flagged",
                            "week_suspicion",
                            "week_games",
                            "week_flagged",
                            "history_suspicion",
                            "history_games",
                            "history_flagged",
                            "spoke",
                            "same_client",
                            "same_browser",
                            "group",
                            "ties",
                            "reasons",
                            "disqualified",
                            "held",
                        )
                    },
                    ensure_ascii=False,
                )
            )
