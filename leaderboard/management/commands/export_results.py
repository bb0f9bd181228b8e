import csv
import os
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand

from challenges.management.operator import day_argument, existing_challenge, progress
from leaderboard.models import Result
from leaderboard.selectors import RANK_ORDER, ranked_results

COLUMNS = [
    "rank",
    "name",
    "player_id",
    "score",
    "asks",
    "player_pairs",
    "opponent_pairs",
    "finished_at",
    "verified_at",
    "ranked",
    "disqualified",
    "attempt_id",
    "result_id",
    "held",
]


class Command(BaseCommand):
    help = (
        "A day's verified results as CSV, in leaderboard order: ranked results with their rank, "
        "then held ones (flagged, under review: no rank), then disqualified ones (no rank), then with --include-practice practice results."
    )

    def add_arguments(self, parser):
        parser.add_argument("date", help="YYYY-MM-DD, today or yesterday")
        parser.add_argument("--out", help="write to this file (replaced whole at the end); default: stdout")
        parser.add_argument("--include-practice", action="store_true", help="also unranked practice results")

    def handle(self, *args, date, out, include_practice, verbosity, **options):
        challenge = existing_challenge(day_argument(date))
        day = Result.objects.filter(challenge=challenge).select_related("player")
        parts = [
            ranked_results(challenge.pk).select_related("player").order_by(*RANK_ORDER),
            day.filter(ranked=True, disqualified=False, held=True).order_by(*RANK_ORDER),
            day.filter(ranked=True, disqualified=True).order_by(*RANK_ORDER),
        ]
        if include_practice:
            parts.append(day.filter(ranked=False).order_by(*RANK_ORDER))
        total = sum(part.count() for part in parts)
        if out:
            target = Path(out)
            handle, tmp = tempfile.mkstemp(dir=target.parent.resolve(), prefix=f".{target.name}.", suffix=".tmp")
            stream = os.fdopen(handle, "w", newline="", encoding="utf-8")
        else:
            stream = self.stdout  # csv writes whole lines: the wrapper adds no newline of its own
        try:
            written = self.write(stream, parts, total, f"export {challenge.date}", verbosity)
        except BaseException:
            if out:
                stream.close()
                os.unlink(tmp)
            raise
        if out:
            stream.close()
            os.replace(tmp, target)
            self.stderr.write(f"{written} results of {challenge.date} written to {target}")

    @staticmethod
    def write(stream, parts, total: int, desc: str, verbosity: int) -> int:
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(COLUMNS)
        written = rank = 0
        with progress(total=total, desc=desc, verbosity=verbosity) as bar:
            for index, part in enumerate(parts):
                for result in part.iterator(chunk_size=2000):
                    if index == 0:
                        rank += 1
                    writer.writerow(
                        [
                            rank if index == 0 else "",
                            result.player.shown_name,
                            result.player_id,
                            result.score,
                            result.asks,
                            result.player_pairs,
                            result.opponent_pairs,
                            result.finished_at.isoformat(),
                            result.verified_at.isoformat(),
                            result.ranked,
                            result.disqualified,
                            result.attempt_id,
                            result.pk,
                            result.held,
                        ]
                    )
                    written += 1
                    bar.update(1)
        return written
