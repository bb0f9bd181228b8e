"""Each membership carries its player's name (Membership.name), kept by the database: a
trigger copies it when a member joins and when a player is renamed, however the name is
written (the account's rename, an admin, a raw UPDATE). The league boards read members and
their names from one covering index (membership_board: the league, then its members' ids
and names), not from 200 probes of the players' table: on a day of a million results that
was half of a board's query, 1.7-2.1 ms down to 0.9-1.0 (pgbench, bench_leagues, 2026-12-04).

Postgres gets the covering index (INCLUDE) and BEFORE triggers that overwrite whatever the
insert or update wrote; SQLite, the tests' other database, AFTER triggers to the same end.
The index is created here, not in the model's Meta: SQLite has no covering index, and
Django's model state does not list it, so ``makemigrations`` never proposes to drop it.
"""

from django.db import migrations, models

INDEX = "membership_board"

POSTGRES = [
    """
    CREATE OR REPLACE FUNCTION leagues_member_name() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        SELECT p.name INTO NEW.name FROM challenges_player p WHERE p.id = NEW.player_id;
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
POSTGRES_UNDO = [
    f"DROP INDEX IF EXISTS {INDEX}",
    "DROP TRIGGER IF EXISTS leagues_player_renamed ON challenges_player",
    "DROP FUNCTION IF EXISTS leagues_player_renamed()",
    "DROP TRIGGER IF EXISTS leagues_member_name ON leagues_membership",
    "DROP FUNCTION IF EXISTS leagues_member_name()",
]
SQLITE = [
    """
    CREATE TRIGGER IF NOT EXISTS leagues_member_name AFTER INSERT ON leagues_membership
    BEGIN
        UPDATE leagues_membership SET name = (SELECT p.name FROM challenges_player p WHERE p.id = NEW.player_id)
        WHERE id = NEW.id;
    END
    """,
    """
    CREATE TRIGGER IF NOT EXISTS leagues_member_renamed AFTER UPDATE OF player_id, name ON leagues_membership
    WHEN NEW.name IS NOT (SELECT p.name FROM challenges_player p WHERE p.id = NEW.player_id)
    BEGIN
        UPDATE leagues_membership SET name = (SELECT p.name FROM challenges_player p WHERE p.id = NEW.player_id)
        WHERE id = NEW.id;
    END
    """,
    """
    CREATE TRIGGER IF NOT EXISTS leagues_player_renamed AFTER UPDATE OF name ON challenges_player
    WHEN OLD.name IS NOT NEW.name
    BEGIN
        UPDATE leagues_membership SET name = NEW.name WHERE player_id = NEW.id;
    END
    """,
    """
    UPDATE leagues_membership SET name = (SELECT p.name FROM challenges_player p WHERE p.id = leagues_membership.player_id)
    """,
    f"CREATE INDEX IF NOT EXISTS {INDEX} ON leagues_membership (league_id, player_id, name)",
]
SQLITE_UNDO = [
    f"DROP INDEX IF EXISTS {INDEX}",
    "DROP TRIGGER IF EXISTS leagues_player_renamed",
    "DROP TRIGGER IF EXISTS leagues_member_renamed",
    "DROP TRIGGER IF EXISTS leagues_member_name",
]


def _run(statements: dict[str, list[str]]):
    def run(apps, schema_editor):
        for statement in statements.get(schema_editor.connection.vendor, statements["sqlite"]):
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("leagues", "0003_refold_names"),
        ("challenges", "0006_name_look"),
    ]

    operations = [
        migrations.AddField(
            model_name="membership",
            name="name",
            field=models.CharField(default="", editable=False, max_length=24),
        ),
        migrations.RunPython(
            _run({"postgresql": POSTGRES, "sqlite": SQLITE}),
            _run({"postgresql": POSTGRES_UNDO, "sqlite": SQLITE_UNDO}),
            elidable=False,
        ),
    ]
