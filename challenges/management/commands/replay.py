import json
import sys

from django.core.management.base import BaseCommand

from games.rules.conformance import run_line


class Command(BaseCommand):
    help = "Replay conformance cases (docs/rules.md §5): one JSON output line per input line."

    def add_arguments(self, parser):
        parser.add_argument("--jsonl", required=True, help="a file of cases, one JSON object per line ('-' = stdin)")

    def handle(self, *args, jsonl, **options):
        stream = sys.stdin if jsonl == "-" else open(jsonl, encoding="utf-8", errors="replace")
        with stream:
            out = self.stdout
            for line in stream:
                if not line.strip():
                    continue
                out.write(json.dumps(run_line(line), separators=(",", ":"), ensure_ascii=False))
