"""A newcomer's result ranks but is left off the public list of the day (provisional)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0005_week_flagged_holds_the_week"),
    ]

    operations = [
        migrations.AddField(
            model_name="result",
            name="provisional",
            field=models.BooleanField(db_default=False, default=False),
        ),
    ]
