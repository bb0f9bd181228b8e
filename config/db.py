"""Database helpers shared by the apps."""

from __future__ import annotations

from contextlib import nullcontext

from django.db import transaction


def one_statement(using: str | None = None):
    """Around a single write that a unique constraint may refuse: inside a transaction a
    savepoint, so that the refusal does not break the transaction; outside one nothing,
    since the statement is its own transaction (Django's atomic() would add a BEGIN and a
    COMMIT, two more round trips)."""
    return transaction.atomic(using=using) if transaction.get_connection(using).in_atomic_block else nullcontext()
