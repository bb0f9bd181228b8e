"""Linked accounts: where a player signed up (SignUp) and the network of the address a ranked
game started from (Attempt.network_key), as keyed hashes; indexes for the day's games that
share an address, a network or a device cookie (leaderboard/linking.py)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("challenges", "0004_name_fold"),
    ]

    operations = [
        migrations.CreateModel(
            name="SignUp",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("at", models.DateTimeField()),
                ("client_key", models.CharField(blank=True, default="", max_length=16)),
                ("network_key", models.CharField(blank=True, default="", max_length=16)),
                ("browser_key", models.CharField(blank=True, default="", max_length=16)),
                ("burst", models.BigIntegerField(blank=True, null=True)),
            ],
        ),
        migrations.AddField(
            model_name="attempt",
            name="network_key",
            field=models.CharField(blank=True, db_default="", default="", max_length=16),
        ),
        migrations.AddIndex(
            model_name="attempt",
            index=models.Index(
                condition=models.Q(("ranked", True), models.Q(("client_key", ""), _negated=True)),
                fields=["challenge", "client_key"],
                name="attempt_day_client_key",
            ),
        ),
        migrations.AddIndex(
            model_name="attempt",
            index=models.Index(
                condition=models.Q(("ranked", True), models.Q(("network_key", ""), _negated=True)),
                fields=["challenge", "network_key"],
                name="attempt_day_network_key",
            ),
        ),
        migrations.AddIndex(
            model_name="attempt",
            index=models.Index(
                condition=models.Q(("ranked", True), models.Q(("browser_key", ""), _negated=True)),
                fields=["challenge", "browser_key"],
                name="attempt_day_browser_key",
            ),
        ),
        migrations.AddField(
            model_name="signup",
            name="player",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.CASCADE, related_name="signup", to="challenges.player"
            ),
        ),
        migrations.AddIndex(
            model_name="signup",
            index=models.Index(
                condition=models.Q(("network_key", ""), _negated=True),
                fields=["network_key", "at"],
                name="signup_network_at",
            ),
        ),
        migrations.AddIndex(
            model_name="signup",
            index=models.Index(
                condition=models.Q(("browser_key", ""), _negated=True), fields=["browser_key"], name="signup_browser"
            ),
        ),
        migrations.AddIndex(
            model_name="signup",
            index=models.Index(condition=models.Q(("burst__isnull", False)), fields=["burst"], name="signup_burst"),
        ),
    ]
