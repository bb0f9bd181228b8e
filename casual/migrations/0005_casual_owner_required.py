"""Every casual game has an owner; the player column goes (3/3)."""

from django.db import migrations, models
import django.db.models.deletion


class Migration(migrations.Migration):
    dependencies = [("casual", "0004_casual_owner_fill")]

    operations = [
        migrations.RemoveIndex(model_name="casualgame", name="casual_player_game"),
        migrations.RemoveField(model_name="casualgame", name="player"),
        migrations.AlterField(
            model_name="casualgame",
            name="owner",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="games", to="casual.casualowner"
            ),
        ),
        migrations.AddIndex(
            model_name="casualgame",
            index=models.Index(fields=["owner", "game", "-id"], name="casual_owner_game"),
        ),
    ]
