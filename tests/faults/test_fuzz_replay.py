"""Any replay input gives a result or a named error, never a crash: the `replay`
command's line handler and the verification task, fuzzed with hypothesis."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules.conformance import run_case, run_line

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5),
    max_leaves=20,
)
moves = st.lists(st.sampled_from(RANKS) | json_values, max_size=40)
gofish_moves = st.lists(
    st.fixed_dictionaries(
        {
            "seat": st.integers(-1, 6) | json_scalars,
            "target": st.integers(-1, 6) | json_scalars,
            "rank": st.sampled_from(RANKS) | json_scalars,
        }
    ),
    max_size=30,
)
cases = st.one_of(
    st.fixed_dictionaries(
        {"game": st.just("peche"), "seed": st.text(max_size=10) | json_scalars, "moves": moves | json_values}
    ),
    st.fixed_dictionaries(
        {
            "game": st.just("kitten"),
            "seed": st.text(max_size=10) | json_scalars,
            "first": st.sampled_from(["player", "opponent"]) | json_scalars,
            "limit": st.integers(-5, 300) | json_scalars,
        }
    ),
    st.fixed_dictionaries(
        {
            "game": st.just("gofish"),
            "players": st.integers(0, 8) | json_scalars,
            "hand_size": st.none() | st.integers(-1, 30) | json_scalars,
            "seed": st.text(min_size=1, max_size=10),
            "moves": gofish_moves | json_values,
        }
    ),
    st.fixed_dictionaries(
        {
            "game": st.sampled_from(["peche", "kitten", "gofish"]),
            "deck": st.lists(st.sampled_from(["AS", "2H", "KC", "10D", "XX"]), max_size=60) | json_values,
        }
    ),
    json_values,
)
# Postgres jsonb cannot hold NUL; stored asks only ever come from validated requests anyway.
_stored_text = st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=8)
_stored_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | _stored_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_stored_text, inner, max_size=4),
    max_leaves=12,
)
stored_moves = st.lists(st.sampled_from(RANKS) | _stored_values, max_size=40)
NAMED = {"bad_input", "bad_move", "illegal_ask", "incomplete", "extra_moves", "wrong_seat", "bad_target"}


def check(out: dict) -> None:
    assert isinstance(out, dict)
    json.dumps(out)
    if "error" in out:
        assert out["error"] in NAMED, out


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases)
def test_any_case_gives_a_result_or_a_named_error(case):
    check(run_case(case))


@settings(max_examples=200, deadline=None)
@given(line=st.text(max_size=200) | st.binary(max_size=100).map(lambda b: b.decode("latin-1")))
def test_any_line_gives_a_result_or_a_named_error(line):
    check(run_line(line))


@pytest.mark.django_db
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(stored=stored_moves)
def test_verification_of_any_stored_asks_ends_verified_or_rejected(stored):
    from challenges import days, services
    from challenges.models import Attempt
    from leaderboard.models import Result
    from tests.conftest import new_player

    client = new_player(f"Fuzz {Attempt.objects.count()}")
    player = services.Player.objects.get(pk=client.player["id"])
    challenge = services.challenge_for_day(day=days.today())
    from django.utils import timezone

    attempt = Attempt.objects.create(
        player=player, challenge=challenge, ranked=True, moves=stored, status="verifying", finished_at=timezone.now()
    )
    services.attempt_verify(attempt_id=attempt.pk)
    attempt.refresh_from_db()
    assert attempt.status in ("verified", "rejected")
    assert Result.objects.filter(attempt=attempt).count() == (attempt.status == "verified")
    if attempt.status == "rejected":
        code = attempt.reject_reason.split()[0]
        assert code in NAMED
