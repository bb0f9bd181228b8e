"""The Content-Security-Policy violations browsers reported (config/csp_reports.py): how
many a day over the last week, and the latest ones kept."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from config import csp_reports


class Command(BaseCommand):
    help = "CSP violations reported by browsers: counts per day (7 days) and the latest reports (a day)."

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="one JSON object: counts and recent")

    def handle(self, *args, **options):
        counts, recent = csp_reports.counts(), csp_reports.recent()
        if options["json"]:
            self.stdout.write(json.dumps({"counts": counts, "recent": recent}))
            return
        for day, count in counts.items():
            self.stdout.write(f"{day}  {count}")
        for report in recent:
            self.stdout.write(
                f"{report['at']}  {report['effectiveDirective']}  blocked={report['blockedURL']}  "
                f"document={report['documentURL']}  source={report['sourceFile']}:{report['lineNumber']}"
            )
