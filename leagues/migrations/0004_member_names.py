"""On Postgres each membership carries its player's name (the column ``name``), a copy the
database keeps: triggers copy it when a member joins and when a player is renamed, however
the name is written (the account's rename, an admin, a raw UPDATE), and overwrite whatever
an insert or update of the membership puts there. The league boards read the members with
their names from one covering index of the league's (membership_board: the league, then its
members' ids and names), not from 200 probes of the players' table: on a day of a million
results that was half of a board's query, 1.7-2.1 ms down to 0.9-1.0 (pgbench, 20 leagues
in turn; docs/reports/leagues-2026-12-04-d4e90b9.md).

Postgres only, and outside the model (like 0002's index): the ORM neither reads nor writes
the column, so it never holds a stale copy in memory, and SQLite, the development database,
keeps reading names from the players' table (leagues.selectors) with no trigger for Django
to trip over when it rebuilds a table to alter it. The copy is ``text``: a wider player name
fits it as it is. A later migration that changes ``challenges_player.name``'s type drops
``leagues_player_renamed`` first and creates it again after (Postgres refuses to alter a
column a trigger names).

The membership's trigger reads the player's row FOR SHARE: a rename committed while a member
joins waits for the join, or the join for the rename, and the copy is the name that won.
The migration locks the players' table for writes while it runs (the triggers, the copy of
today's names): seconds on a site's tables, sign-ups and renames wait.
"""

from django.db import migrations

INDEX = "membership_board"

CREATE = [
    "ALTER TABLE leagues_membership ADD COLUMN IF NOT EXISTS name text NOT NULL DEFAULT ''",
    """
    CREATE OR REPLACE FUNCTION leagues_member_name() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        SELECT p.name INTO STRICT NEW.name FROM challenges_player p WHERE p.id = NEW.player_id FOR SHARE;
        RETURN NEW;
    END $$
    """,
    """
    CREATE TRIGGER leagues_member_name BEFORE INSERT OR UPDATE OF player_id, name ON leagues_membership
    FOR EACH ROW EXECUTE FUNCTION leagues_member_name()
    """,
    """
    CREATE OR REPLACE FUNCTION leagues_player_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE leagues_membership SET name = NEW.name WHERE player_id = NEW.id;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER leagues_player_renamed AFTER UPDATE OF name ON challenges_player
    FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION leagues_player_renamed()
    """,
    """
    UPDATE leagues_membership m SET name = p.name FROM challenges_player p
    WHERE p.id = m.player_id AND m.name IS DISTINCT FROM p.name
    """,
    f"CREATE INDEX IF NOT EXISTS {INDEX} ON leagues_membership (league_id) INCLUDE (player_id, name)",
]
DROP = [
    f"DROP INDEX IF EXISTS {INDEX}",
    "DROP TRIGGER IF EXISTS leagues_player_renamed ON challenges_player",
    "DROP FUNCTION IF EXISTS leagues_player_renamed()",
    "DROP TRIGGER IF EXISTS leagues_member_name ON leagues_membership",
    "DROP FUNCTION IF EXISTS leagues_member_name()",
    "ALTER TABLE leagues_membership DROP COLUMN IF EXISTS name",
]


def _run(statements: list[str]):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return  # the boards read names from the players' table there
        for statement in statements:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("leagues", "0003_refold_names"),
        ("challenges", "0006_name_look"),
    ]

    operations = [migrations.RunPython(_run(CREATE), _run(DROP), elidable=False)]
