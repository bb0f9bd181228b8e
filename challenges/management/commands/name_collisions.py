"""Which players' names look alike now that names are compared by their fold and their look
(challenges/names.py): each group, oldest first. It renames nobody: a player is asked to
choose another name (their new name clears ``name_key_shared``), or left as they are.

A group is the players joined by either key, one pair at a time (``Lia``, ``LIA`` and
``LlA`` are one group: the first two are one name in two cases, the last two one shape,
although ``Lia`` and ``LlA`` alone would not be). The groups come from the names as they
are folded today, not from the stored keys, so a change of the fold shows here before any
migration refills the keys."""

from django.core.management.base import BaseCommand

from challenges.models import Player
from challenges.names import name_key, name_look


class Command(BaseCommand):
    help = "List the players whose names now look alike (groups, oldest first); renames nobody."

    def handle(self, *args, **options):
        players = Player.objects.filter(deleted_at__isnull=True).order_by("created_at", "id")
        fields = ("id", "name", "name_key", "name_look", "name_key_shared", "created_at")
        found: list[tuple[Player, str, str]] = []
        # Union-find over the players, by the first player seen with each key or look.
        parent: list[int] = []
        first: dict[tuple[str, str], int] = {}

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for player in players.only(*fields).iterator():
            key, look = name_key(player.name), name_look(player.name)
            i = len(found)
            found.append((player, key, look))
            parent.append(i)
            for kind, value in (("key", key), ("look", look)):
                j = first.setdefault((kind, value), i)
                a, b = root(i), root(j)
                parent[max(a, b)] = min(a, b)  # the oldest player roots the group
        groups: dict[int, list[tuple[Player, str, str]]] = {}
        for i, entry in enumerate(found):
            groups.setdefault(root(i), []).append(entry)
        collisions = [group for _, group in sorted(groups.items()) if len(group) > 1]
        for group in collisions:
            self.stdout.write(f"{len(group)} names look alike:")
            for player, key, look in group:
                if (player.name_key, player.name_look) != (key, look):
                    held = "stored key out of date"
                else:
                    held = "kept, shares the key" if player.name_key_shared else "holds the key"
                joined = player.created_at.date().isoformat()
                self.stdout.write(f"  player {player.pk}  {player.name!r}  joined {joined}  {held}")
        players_in = sum(len(group) for group in collisions)
        self.stdout.write(
            f"groups of look-alike names: {len(collisions)}, players in them: {players_in}; nobody renamed"
        )
