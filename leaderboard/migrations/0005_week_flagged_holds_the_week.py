"""The week rule's decision stored on each result (a flagged week holds all its results)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0004_linked_accounts"),
    ]

    operations = [
        migrations.AddField(
            model_name="result",
            name="week_flagged",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddField(
            model_name="result",
            name="week_evidence",
            field=models.JSONField(blank=True, null=True),
        ),
    ]
