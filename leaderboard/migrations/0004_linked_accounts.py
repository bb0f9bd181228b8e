"""A result flagged as a linked account's game (leaderboard/linking.py), and what was found."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0003_held_until_reviewed"),
    ]

    operations = [
        migrations.AddField(
            model_name="result",
            name="link_evidence",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="result",
            name="linked_accounts",
            field=models.BooleanField(db_default=False, default=False),
        ),
    ]
