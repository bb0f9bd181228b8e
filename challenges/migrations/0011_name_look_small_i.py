"""Names whose look joins a small i with l (challenges/names.py): ``Vivlan`` and ``Vivian``,
``W1ll`` and ``Will`` are one name. Every living player's keys are computed again, oldest
first, as in 0006 (its ``_assign``): a player whose name now looks like an older one's
shares the key (``name_key_shared``) and keeps its name; nobody is renamed. ``manage.py
name_collisions`` lists them for a moderator. Going back leaves the keys as they are: the
coarser look only ever shares more, never lets two players hold one key."""

import importlib

from django.db import migrations


def relook(apps, schema_editor):
    from challenges.names import name_key, name_look

    keys = importlib.import_module("challenges.migrations.0006_name_look")
    keys._assign(apps, schema_editor, lambda name: (name_key(name), name_look(name)))


class Migration(migrations.Migration):
    dependencies = [("challenges", "0010_attempt_line_start_column")]

    operations = [migrations.RunPython(relook, migrations.RunPython.noop)]
