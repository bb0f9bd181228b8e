"""Names compared by two keys (challenges/names.py): ``name_key``, the same letters in any
case, and ``name_look``, the same shapes in the case shown. The fold of 0004 joined i with l
once case folded (capital I looks like l), which made ``Lia`` and ``Ila``, ``Eli`` and
``Ell`` one name; now the fold keeps i apart and the look joins capital I with l.

Every living player's keys are computed again, oldest first: a player whose name has the
key or the look of an older one shares it (``name_key_shared``), as in 0004; nobody is
renamed. The new keys are finer than 0004's, so nobody becomes shared who was not; some
shared players (an ``Ila`` after a ``Lia``) hold their key again. ``manage.py
name_collisions`` lists what is left.
"""

from django.db import migrations, models

BATCH = 1000


def _assign(apps, schema_editor, keys) -> None:
    """Each living player's (key, look) from ``keys(name)``, oldest first, sharing what an
    older player holds. Everybody is out of the unique constraints (shared) while the keys
    change, and back in once theirs is final: a half-done pass never meets a stale key."""
    Player = apps.get_model("challenges", "Player")
    living = Player.objects.filter(deleted_at__isnull=True)
    living.update(name_key_shared=True)
    held_keys: set[str] = set()
    held_looks: set[str] = set()
    # Plain UPDATEs by id in batches (executemany: one pipeline on Postgres): bulk_update's
    # CASE over a batch took minutes for a million players.
    update = f"UPDATE {Player._meta.db_table} SET name_key = %s, name_look = %s, name_key_shared = %s WHERE id = %s"
    batch = []
    with schema_editor.connection.cursor() as cursor:
        for pk, name in living.order_by("created_at", "id").values_list("id", "name").iterator(chunk_size=BATCH):
            key, look = keys(name)
            batch.append((key, look, key in held_keys or (look != "" and look in held_looks), pk))
            held_keys.add(key)
            held_looks.add(look)
            if len(batch) >= BATCH:
                cursor.executemany(update, batch)
                batch = []
        cursor.executemany(update, batch)
    if schema_editor.connection.vendor == "postgresql":
        # A row updated twice in one transaction queues its deferred foreign-key check
        # (the user's) although the key did not change, and Postgres refuses an ALTER
        # TABLE (going back drops a column) while checks are pending: run them now.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def two_keys(apps, schema_editor):
    from challenges.names import name_key, name_look

    _assign(apps, schema_editor, lambda name: (name_key(name), name_look(name)))


def one_key(apps, schema_editor):
    """Back to 0004's single key: its fold is today's with i -> l (both keep i and l as
    they are until that last step), and no look."""
    from challenges.names import name_key

    _assign(apps, schema_editor, lambda name: (name_key(name).replace("i", "l"), ""))


class Migration(migrations.Migration):
    dependencies = [("challenges", "0005_linked_accounts")]

    operations = [
        migrations.AddField(
            "player",
            "name_look",
            models.CharField(blank=True, db_default="", db_index=True, default="", max_length=200),
        ),
        migrations.RunPython(two_keys, one_key),
        migrations.AddConstraint(
            "player",
            models.UniqueConstraint(
                condition=models.Q(name_key_shared=False) & ~models.Q(name_look=""),
                fields=("name_look",),
                name="one_player_per_name_look",
            ),
        ),
    ]
