"""Names compared by their fold (challenges/names.py): NFKC, case, confusables (0/O, 1/l/I,
5/S, Greek and Cyrillic look-alikes of Latin letters), spaces and - _ . ' ignored.

Players who signed up before may now have names that fold alike (``AltS60`` and ``AltS6O``).
The migration must not fail on them and must rename nobody behind their back, so the key
is unique only where it is not shared: in each group of look-alikes the oldest player holds
the key, the others keep their names with ``name_key_shared`` set. Nobody new can take a
shared key (services.clean_name refuses it), and ``manage.py name_collisions`` lists the
groups for an operator to settle with the players (a player's new name clears the flag).
"""

from django.db import migrations, models


def fold_keys(apps, schema_editor):
    from challenges.names import name_key

    Player = apps.get_model("challenges", "Player")
    held: set[str] = set()
    # Deleted accounts keep their reserved key ("\tdeleted <id>", which no fold makes).
    for player in Player.objects.filter(deleted_at__isnull=True).order_by("created_at", "id").iterator():
        key = name_key(player.name)
        player.name_key, player.name_key_shared = key, key in held
        held.add(key)
        player.save(update_fields=["name_key", "name_key_shared"])


def unfold_keys(apps, schema_editor):
    """Back to 0003's plain unique key: a shared key gets the player's id appended (as
    0002 did for the look-alikes of its time)."""
    Player = apps.get_model("challenges", "Player")
    for player in Player.objects.filter(name_key_shared=True).iterator():
        player.name_key = f"{player.name_key}#{player.pk}"
        player.save(update_fields=["name_key"])


class Migration(migrations.Migration):
    dependencies = [("challenges", "0003_accounts")]

    operations = [
        migrations.AddField("player", "name_key_shared", models.BooleanField(default=False, db_default=False)),
        migrations.AlterField("player", "name_key", models.CharField(db_index=True, max_length=200)),
        migrations.RunPython(fold_keys, unfold_keys),
        migrations.AddConstraint(
            "player",
            models.UniqueConstraint(
                condition=models.Q(name_key_shared=False), fields=("name_key",), name="one_player_per_name_key"
            ),
        ),
    ]
