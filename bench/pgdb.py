"""The benchmarks' own Postgres database (`bench`), never the test or site data."""

import os

PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")


def ensure_database() -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        if not conn.execute("select 1 from pg_database where datname = 'bench'").fetchone():
            conn.execute("create database bench")
