from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0007_fair_play_evidence"),
    ]

    operations = [
        migrations.AddField(
            model_name="result",
            name="history_flagged",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddField(
            model_name="result",
            name="history_evidence",
            field=models.JSONField(blank=True, null=True),
        ),
    ]
