"""Fair play: the grace after the close, look-alike names, where ranked games start, the
trail of reviews."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def fill(apps, schema_editor):
    from challenges.names import name_key

    DailyChallenge = apps.get_model("challenges", "DailyChallenge")
    for challenge in DailyChallenge.objects.filter(reveals_at__isnull=True).iterator():
        challenge.reveals_at = challenge.closes_at + settings.DAILY_CLOSE_GRACE
        challenge.save(update_fields=["reveals_at"])
    Player = apps.get_model("challenges", "Player")
    seen: set[str] = set()
    for player in Player.objects.order_by("id").iterator():
        key = name_key(player.name)
        # Look-alikes that existed before keep playing; the later one's key is made unique.
        player.name_key = key if key not in seen else f"{key}#{player.pk}"
        seen.add(key)
        player.save(update_fields=["name_key"])


class Migration(migrations.Migration):
    dependencies = [
        ("challenges", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField("dailychallenge", "reveals_at", models.DateTimeField(null=True)),
        migrations.AddField("player", "name_key", models.CharField(max_length=200, null=True)),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterField("dailychallenge", "reveals_at", models.DateTimeField()),
        migrations.AlterField("player", "name_key", models.CharField(max_length=200, unique=True)),
        migrations.RemoveConstraint("player", "player_name_unique_ci"),
        migrations.AddField("attempt", "client_key", models.CharField(blank=True, default="", max_length=16)),
        migrations.AddField("attempt", "browser_key", models.CharField(blank=True, default="", max_length=16)),
        migrations.AlterModelOptions(
            "attempt",
            options={"permissions": [("review_attempt", "Can disqualify, restore and re-verify ranked games")]},
        ),
        migrations.CreateModel(
            name="Review",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "action",
                    models.CharField(
                        choices=[("disqualify", "Disqualify"), ("restore", "Restore"), ("reverify", "Reverify")],
                        max_length=10,
                    ),
                ),
                ("reason", models.CharField(max_length=300)),
                ("at", models.DateTimeField(auto_now_add=True)),
                (
                    "attempt",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="reviews", to="challenges.attempt"
                    ),
                ),
                (
                    "by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={"ordering": ["-at", "-id"]},
        ),
    ]
