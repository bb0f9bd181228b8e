"""Held until reviewed: a flagged result counts for no one until a reviewer clears it.

Results flagged before this rule existed are held now, unless a reviewer already restored
them (a Review "restore" on the attempt: that reviewer cleared it). Their days' rank
indexes are dropped, so that readers use SQL until a rebuild, which leaves held results out.
"""

from django.db import migrations, models


def hold_flagged(apps, schema_editor):
    Result = apps.get_model("leaderboard", "Result")
    Review = apps.get_model("challenges", "Review")
    flagged = Result.objects.filter(ranked=True, flagged=True, disqualified=False)
    restored = dict(
        Review.objects.filter(attempt_id__in=flagged.values("attempt_id"), action="restore")
        .order_by("attempt_id", "at")
        .values_list("attempt_id", "at")
    )
    days = set()
    for result in flagged.iterator():
        if result.attempt_id in restored:
            result.cleared_at = restored[result.attempt_id]
            result.save(update_fields=["cleared_at"])
        else:
            result.held, result.indexed = True, False
            result.save(update_fields=["held", "indexed"])
            days.add(result.challenge_id)
    if days:
        from leaderboard import rank_index

        for challenge_id in days:
            try:
                rank_index.drop(challenge_id)
            except Exception:  # Redis down: run `manage.py rebuild_rank_index` for these days
                print(f"rank index of challenge {challenge_id} not dropped: rebuild it")


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0002_fair_play"),
        ("challenges", "0002_fair_play"),
    ]

    operations = [
        migrations.AddField("result", "held", models.BooleanField(db_default=False, default=False)),
        migrations.AddField("result", "cleared_at", models.DateTimeField(blank=True, null=True)),
        migrations.AddField(
            "result", "review_reason", models.CharField(blank=True, db_default="", default="", max_length=300)
        ),
        migrations.RemoveIndex("result", "result_ranking"),
        migrations.AddIndex(
            "result",
            models.Index(
                condition=models.Q(("disqualified", False), ("held", False), ("ranked", True)),
                fields=["challenge", "-score", "asks", "finished_at", "attempt"],
                name="result_ranking",
            ),
        ),
        migrations.RunPython(hold_flagged, migrations.RunPython.noop),
    ]
