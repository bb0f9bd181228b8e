"""Casual games belong to a CasualOwner (a browser, or a player) instead of a Player (1/3)."""

from django.db import migrations, models
import django.db.models.deletion


class Migration(migrations.Migration):
    dependencies = [
        ("casual", "0002_abandoned"),
        ("challenges", "0002_fair_play"),
    ]

    operations = [
        migrations.CreateModel(
            name="CasualOwner",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "player",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="casual_owner",
                        to="challenges.player",
                    ),
                ),
            ],
        ),
        migrations.AddField(
            model_name="casualgame",
            name="owner",
            field=models.ForeignKey(
                null=True, on_delete=django.db.models.deletion.CASCADE, related_name="games", to="casual.casualowner"
            ),
        ),
        migrations.AlterField(
            model_name="casualgame",
            name="player",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="casual_games",
                to="challenges.player",
            ),
        ),
    ]
