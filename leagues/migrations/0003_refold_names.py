"""League names' keys folded again (challenges/names.py, challenges migration 0006): the fold
no longer joins i with l (``Lia`` and ``Ila`` are two names), and the look, compared beside
it among one owner's leagues, joins capital I with l. The new key is finer than the old, so
no owner's two leagues come to share one."""

from django.db import migrations


def refold(apps, schema_editor):
    from challenges.names import fold

    League = apps.get_model("leagues", "League")
    changed = []
    for league in League.objects.only("id", "name", "name_key").iterator():
        key = fold(league.name)
        if key != league.name_key:
            league.name_key = key
            changed.append(league)
    League.objects.bulk_update(changed, ["name_key"], batch_size=1000)


def unfold(apps, schema_editor):
    """0001's fold: today's with i -> l."""
    from challenges.names import fold

    League = apps.get_model("leagues", "League")
    leagues = list(League.objects.only("id", "name", "name_key"))
    for league in leagues:
        league.name_key = fold(league.name).replace("i", "l")
    League.objects.bulk_update(leagues, ["name_key"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("leagues", "0002_member_results_index")]

    operations = [migrations.RunPython(refold, unfold)]
