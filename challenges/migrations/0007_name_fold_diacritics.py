"""Names folded across diacritics (challenges/names.py): ``Ánna`` and ``Anna``, ``Cléo``,
``Cleø`` and ``Cleo`` are one name. Every living player's keys are computed again, oldest
first, as in 0006 (its ``_assign``): a player whose name now folds to an older one's key
shares it (``name_key_shared``) and keeps its name; nobody is renamed. ``manage.py
name_collisions`` lists them. Going back leaves the keys as they are: the coarser fold
only ever shares more, never lets two players hold one key."""

import importlib

from django.db import migrations


def refold(apps, schema_editor):
    from challenges.names import name_key, name_look

    keys = importlib.import_module("challenges.migrations.0006_name_look")
    keys._assign(apps, schema_editor, lambda name: (name_key(name), name_look(name)))


class Migration(migrations.Migration):
    dependencies = [("challenges", "0006_name_look")]

    operations = [migrations.RunPython(refold, migrations.RunPython.noop)]
