from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0001_initial"),
    ]

    operations = [
        migrations.AddField("result", "suspicion", models.FloatField(default=0.0)),
        migrations.AddField("result", "flagged", models.BooleanField(default=False)),
    ]
