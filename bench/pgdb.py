"""The benchmarks' own Postgres database (`bench`, or BENCH_DB: `make bench` gives each report
a fresh one), never the test or site data."""

import os

PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
DB = os.environ.get("BENCH_DB", "bench")
URL = f"{PG}/{DB}"


def ensure_database() -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        if not conn.execute("select 1 from pg_database where datname = %s", [DB]).fetchone():
            conn.execute(f'create database "{DB}"')


def fresh_database(name: str) -> str:
    """A new, empty database ``name`` (an earlier run's dropped first); its URL."""
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'drop database if exists "{name}" with (force)')
        conn.execute(f'create database "{name}"')
    return f"{PG}/{name}"


def drop_databases(*names: str) -> None:
    """Drop what a run made, its open connections included; a failure is not the run's."""
    import psycopg

    try:
        with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
            for name in names:
                conn.execute(f'drop database if exists "{name}" with (force)')
    except psycopg.Error:
        pass


def setup_django(redis_override: str) -> None:
    """Django as a benchmark runs it: local settings on the benchmarks' database (created if
    missing, migrated), warnings only in the log, and a redis-server of the run's own
    (bench/own_redis.py) unless ``$redis_override`` names one."""
    from bench.own_redis import own_redis

    os.environ["DATABASE_URL"] = URL
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    # The deals of the benchmark's days are the same on every clone: with the install's own
    # secret (config/settings/base.py) each clone dealt other cards, and the fair-play
    # judgement of a game costs 2 ms on one deal and 130 ms on another (bench.analysis_field).
    os.environ.setdefault("DAILY_SEED_SECRET", "bench-daily-seed")
    os.environ["REDIS_URL"] = own_redis(redis_override)
    ensure_database()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
