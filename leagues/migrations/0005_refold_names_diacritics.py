"""League names' keys folded again across diacritics (challenges/names.py, challenges
migration 0007): ``Cléo's`` and ``Cleo's`` are one name among an owner's leagues. Going
back leaves the keys (a coarser key only refuses more look-alikes)."""

import importlib

from django.db import migrations


def refold(apps, schema_editor):
    importlib.import_module("leagues.migrations.0003_refold_names").refold(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [("leagues", "0004_member_names"), ("challenges", "0007_name_fold_diacritics")]

    operations = [migrations.RunPython(refold, migrations.RunPython.noop)]
