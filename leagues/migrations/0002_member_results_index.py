"""An index on the day's counted results by player (leaderboard_result), for the leagues'
boards: a league's day board and week read each member's counted results of one day or of
one week, 200 members at a time. Without it Postgres had the player's index (every result
the player ever had, filtered) or the day's (a million rows, hashed): with a year of history
per member the day board took 3.5 s and the week 0.8 s (bench.leagues_scale). With it each
member is one short index-only range: (player, day) and what the boards read beside them.

Created here rather than in leaderboard.models (the results' app knows nothing of leagues,
and its migrations are edited by others at the same time): Django's model state does not
list it, so ``makemigrations`` never proposes to drop it. Postgres gets the covering form
(INCLUDE); SQLite, the tests' database, a plain index on the two columns.
"""

from django.db import migrations

NAME = "result_member_days"
COUNTED = "ranked AND NOT disqualified AND NOT held"  # leaderboard.models.COUNTED


def create(apps, schema_editor):
    include = ""
    if schema_editor.connection.vendor == "postgresql":
        include = " INCLUDE (score, asks, finished_at, attempt_id, indexed)"
    schema_editor.execute(
        f"CREATE INDEX IF NOT EXISTS {NAME} ON leaderboard_result (player_id, challenge_id){include} WHERE {COUNTED}"
    )


def drop(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX IF EXISTS {NAME}")


class Migration(migrations.Migration):
    dependencies = [
        ("leagues", "0001_initial"),
        ("leaderboard", "0003_held_until_reviewed"),
    ]

    operations = [migrations.RunPython(create, drop, elidable=False)]
