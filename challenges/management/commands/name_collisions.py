"""Which players' names look alike now that names are compared by their fold
(challenges/names.py): each group, oldest first. It renames nobody: a player is asked to
choose another name (their new name clears ``name_key_shared``), or left as they are.

The groups come from the names as they are folded today, not from the stored keys, so a
change of the fold shows here before any migration refills the keys."""

from collections import defaultdict

from django.core.management.base import BaseCommand

from challenges.models import Player
from challenges.names import name_key


class Command(BaseCommand):
    help = "List the players whose names now look alike (groups, oldest first); renames nobody."

    def handle(self, *args, **options):
        groups: dict[str, list[Player]] = defaultdict(list)
        players = Player.objects.filter(deleted_at__isnull=True).order_by("created_at", "id")
        for player in players.only("id", "name", "name_key", "name_key_shared", "created_at").iterator():
            groups[name_key(player.name)].append(player)
        collisions = [group for group in groups.values() if len(group) > 1]
        for group in collisions:
            self.stdout.write(f"{len(group)} names look alike:")
            for player in group:
                if player.name_key != name_key(player.name):
                    held = "stored key out of date"
                else:
                    held = "kept, shares the key" if player.name_key_shared else "holds the key"
                joined = player.created_at.date().isoformat()
                self.stdout.write(f"  player {player.pk}  {player.name!r}  joined {joined}  {held}")
        players_in = sum(len(group) for group in collisions)
        self.stdout.write(
            f"groups of look-alike names: {len(collisions)}, players in them: {players_in}; nobody renamed"
        )
