"""Finished attempts in bulk, for the verification benchmark and the fault tests."""

from __future__ import annotations

import datetime as dt
import itertools
import time

_batch = itertools.count()


def complete_asks(seed: str) -> list[str]:
    """A complete ask sequence for a deal: always the first rank in hand."""
    from games.rules.peche import ENGINE

    state = ENGINE.new(seed=seed)
    moves: list[str] = []
    while not state.over:
        moves.append(ENGINE.legal_moves(state)[0])
        ENGINE.apply(state, moves[-1])
    return moves


def finished_attempts(n: int, *, day: dt.date):
    """``n`` players, each with a finished ranked attempt of ``day`` left `verifying`
    (as if its verification message were in flight). Returns (challenge, attempt ids)."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from challenges import services
    from challenges.models import Attempt, Player

    challenge = services.challenge_for_day(day=day)
    moves = complete_asks(challenge.seed)
    user_model = get_user_model()
    stamp = f"{time.time_ns() % 10**10}-{next(_batch)}"
    users = user_model.objects.bulk_create([user_model(username=f"b{stamp}_{i}") for i in range(n)], batch_size=2000)
    players = Player.objects.bulk_create(
        [
            Player(user=u, name=f"b{stamp} {i}", name_key=f"b{stamp} {i}", token_hash=f"{stamp}-{i}".ljust(64, "x"))
            for i, u in enumerate(users)
        ],
        batch_size=2000,
    )
    now = timezone.now()
    # Finished while the day's ranked asks were allowed (docs/fairplay.md): a past day's
    # attempts stamped "now" would be rejected as finished after the close, never ranked.
    finished = min(now, challenge.reveals_at - dt.timedelta(minutes=1))
    attempts = Attempt.objects.bulk_create(
        [
            Attempt(
                player=p,
                challenge=challenge,
                ranked=True,
                moves=moves,
                status="verifying",
                finished_at=finished - dt.timedelta(milliseconds=i),
                verify_enqueued_at=now,
            )
            for i, p in enumerate(players)
        ],
        batch_size=2000,
    )
    return challenge, [a.pk for a in attempts]
