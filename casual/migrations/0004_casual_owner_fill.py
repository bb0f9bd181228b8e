"""Each player's casual games go to an owner of that player (2/3). Its own migration: on
Postgres, rows changed and the table altered in one transaction clash (pending trigger events)."""

from django.db import migrations


def owners_for_players(apps, schema_editor):
    CasualGame = apps.get_model("casual", "CasualGame")
    CasualOwner = apps.get_model("casual", "CasualOwner")
    for player_id in CasualGame.objects.values_list("player_id", flat=True).distinct():
        owner = CasualOwner.objects.create(player_id=player_id)
        CasualGame.objects.filter(player_id=player_id).update(owner=owner)


def players_for_owners(apps, schema_editor):
    CasualGame = apps.get_model("casual", "CasualGame")
    # Games of anonymous browsers have no player to go back to.
    CasualGame.objects.filter(owner__player__isnull=True).delete()
    for game in CasualGame.objects.select_related("owner"):
        game.player_id = game.owner.player_id
        game.save(update_fields=["player"])


class Migration(migrations.Migration):
    dependencies = [("casual", "0003_casual_owner")]

    operations = [migrations.RunPython(owners_for_players, players_for_owners)]
