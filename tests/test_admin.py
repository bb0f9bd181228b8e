"""Admin: the replay inspector shows both hands, the lake, the opponent's knowledge and
each ask's fair-play evidence — to those allowed to see them; decisions need a reason
and leave a trail; attempts and results cannot be added or edited by hand."""

import datetime as dt
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client

from challenges import days, services
from challenges.models import Attempt, Player, Review
from games import fairplay
from games.rules.peche import ENGINE
from leaderboard.models import Result
from tests.conftest import new_player, verified_game
from tests.test_daily_api import finish_without_verifying, play_to_end, start


@pytest.fixture
def admin_client(client, db):
    user = get_user_model().objects.create_superuser("root", "root@example.com", "pw-Admin-123")
    client.force_login(user)
    client.user = user
    return client


def staff_client(*permissions: str):
    client = Client()
    user = get_user_model().objects.create_user("staff", "staff@example.com", "pw-Staff-123", is_staff=True)
    for codename in permissions:
        user.user_permissions.add(Permission.objects.get(codename=codename))
    client.force_login(user)
    return client


def verified_attempt(name: str, *, day: dt.date | None = None) -> Attempt:
    """A verified ranked game of ``day`` (today by default), played by the first rank in hand."""
    return verified_game(name, day=day)


def inspector_steps(page) -> list[dict]:
    """The steps the inspector draws (the public replay's component reads the same JSON)."""
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page.content.decode(), re.S)
    assert found, "the inspector carries its steps"
    return json.loads(found.group(1))["steps"]


@pytest.mark.django_db(transaction=True)
def test_replay_inspector_steps_through_with_hidden_information(admin_client):
    attempt = finish_without_verifying("Peggy")
    page = admin_client.get(f"/admin/challenges/attempt/{attempt.pk}/replay/")
    assert page.status_code == 200
    text = page.content.decode()
    # The public replay's table (one component): both hands, the lake, the steps' slider.
    for part in ('id="opponent-cards"', 'id="player-cards"', 'id="lake-cards"', 'id="step-slider"'):
        assert part in text
    steps = inspector_steps(page)
    assert len(steps) == len(attempt.moves) + 1
    dealt = ENGINE.new(seed=attempt.challenge.seed)
    assert steps[0]["hands"][1] == list(dealt.hands[1].values())  # the opponent's dealt hand, face up
    assert len(steps[0]["lake"]) == 42
    # Every ask carries its fair-play evidence and what the opponent knew when it was made.
    evidence = fairplay.assess(attempt.challenge.seed, list(attempt.moves)).asks
    for step, e in zip(steps[1:], evidence):
        assert step["ask"] == e.rank == step["evidence"]["rank"]
        assert step["evidence"]["held_ranks"] == list(e.held_ranks)
        assert step["evidence"]["llr"] == pytest.approx(e.weight, abs=1e-3)
        # The chances the page shows are the table's, each between 0 and 1, and the chance that
        # any rank of the hand was held is at least that of the rank asked.
        assert step["evidence"]["public_chance"] == pytest.approx(e.public_chance, abs=1e-4)
        assert e.public_chance - 1e-9 <= e.any_held <= 1 + 1e-9
        assert step["evidence"]["counted"] == e.counted
        assert len(step["evidence"]["chances"]) == len(step["evidence"]["ranks"])
        assert set(step["knew"]) == {"known", "absent", "draws"}
    # What the opponent knew before the second ask: the first ask told it the player holds that rank,
    # unless the player was given the opponent's card (then a pair, none left).
    first = steps[1]["events"][0]
    assert (attempt.moves[0] in steps[2]["knew"]["known"]) == (not first["given"])


@pytest.mark.django_db(transaction=True)
def test_an_attempt_that_cannot_be_decided_yet_says_so_to_the_admin(admin_client):
    """A game of a day that has not begun, still being played: the inspector says why
    nothing can be decided yet, in the admin's page (not the public "Bad request")."""
    future = days.today() + dt.timedelta(days=2)
    challenge = services.challenge_for_day(day=future)
    player = Player.objects.get(pk=new_player("Early Eve").player["id"])
    attempt = Attempt.objects.create(player=player, challenge=challenge, ranked=True, moves=[], status="playing")
    page = admin_client.get(f"/admin/challenges/attempt/{attempt.pk}/replay/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Bad request" not in text
    assert "This game cannot be decided yet" in text and f"{future:%Y-%m-%d}, has not begun" in text
    assert len(inspector_steps(page)) == 1  # the deal, face up
    # A decision sent anyway is refused with the same words, and nothing is recorded.
    refused = admin_client.post(
        "/admin/challenges/attempt/review/decide/",
        {"attempt": attempt.pk, "decision": "disqualify", "reason": "too early"},
        follow=True,
    )
    assert "cannot be decided yet" in refused.content.decode() and not Review.objects.exists()
    queue = admin_client.get(f"/admin/challenges/attempt/review/?date={future:%Y-%m-%d}").content.decode()
    assert "This day has not begun" in queue


def reason_boxes_are_labelled(html: str) -> int:
    """Each reason box of the page has a label of its own (for= its id); returns how many."""
    boxes = re.findall(r"<input[^>]*name=\"reason\"[^>]*>", html)
    for box in boxes:
        found = re.search(r'id="([^"]+)"', box)
        assert found, f"a reason box without an id: {box}"
        label = re.search(rf'<label for="{found.group(1)}">(.*?)</label>', html, re.S)
        assert label and re.sub(r"<[^>]+>", "", label.group(1)).strip(), f"no label for {box}"
    return len(boxes)


# What a reviewer reads: words and figures, never the code's names.
CODE_NAMES = (
    "WEEK_THRESHOLD",
    "GAME_LEVEL",
    "FLAG_THRESHOLD",
    "games/fairplay",
    "fairplay.py",
    "linking.py",
    "linked_accounts",
    "Σ",
)


@pytest.mark.django_db(transaction=True)
def test_the_review_pages_speak_in_words_with_labelled_reason_boxes(admin_client):
    # A closed day with a fixed deal (the test settings' seed secret): the cheater's game is
    # flagged on it, whatever day the test runs.
    cheat = verified_game("Seer", day=dt.date(2026, 6, 2), choose=clairvoyant)
    verified_game("Hana", day=cheat.challenge.date)
    date = cheat.challenge.date.isoformat()
    queue = admin_client.get(f"/admin/challenges/attempt/review/?date={date}", HTTP_ACCEPT_LANGUAGE="fr")
    inspector = admin_client.get(f"/admin/challenges/attempt/{cheat.pk}/replay/", HTTP_ACCEPT_LANGUAGE="fr")
    reason = admin_client.post("/admin/challenges/attempt/", {"action": "disqualify", "_selected_action": [cheat.pk]})
    for page in (queue, inspector, reason):
        html = page.content.decode()
        assert page.status_code == 200 and '<html lang="en"' in html  # English, whatever the browser asks
        assert reason_boxes_are_labelled(html) >= 1
        shown = re.sub(r"<script.*?</script>", "", html, flags=re.S)
        assert not [name for name in CODE_NAMES if name in shown]
    text = queue.content.decode()
    assert reason_boxes_are_labelled(text) >= 2
    assert len(re.findall(r'<label for="reason-[0-9]+">', text)) == 2  # one per game of the day
    # What the figures mean, with the detector's thresholds as numbers.
    words = re.sub(r"\s+", " ", text)
    assert f"A game is <strong>flagged</strong> at {round(fairplay.FLAG_THRESHOLD, 2)} or more" in words
    assert f"at most {fairplay.GAME_LEVEL:.1%} of games" in words
    assert f"The week is <strong>flagged</strong> at {round(fairplay.WEEK_THRESHOLD, 2)}" in words
    assert f"flagged at {round(fairplay.FLAG_THRESHOLD, 2)}" in inspector.content.decode()
    assert "times as likely for someone who sees the opponent's hand" in inspector.content.decode()


def clairvoyant(state) -> str:
    """A rank the opponent holds when there is one: the player who sees the cards."""
    return next((r for r in state.hands[0] if r in state.hands[1]), next(iter(state.hands[0])))


@pytest.mark.django_db(transaction=True)
def test_staff_without_permissions_see_no_cards(db):
    today = verified_attempt("Olga")
    past = verified_attempt("Pavel", day=days.today() - dt.timedelta(days=2))
    staff = staff_client()
    for url in (
        f"/admin/challenges/attempt/{today.pk}/replay/",
        f"/admin/challenges/attempt/{past.pk}/replay/",
        f"/admin/challenges/attempt/{today.pk}/change/",
        "/admin/challenges/attempt/review/",
        f"/admin/challenges/dailychallenge/{today.challenge_id}/change/",
    ):
        assert staff.get(url).status_code == 403, url


@pytest.mark.django_db(transaction=True)
def test_an_open_days_cards_are_for_superusers_only(admin_client):
    today = verified_attempt("Quentin")
    past = verified_attempt("Rosa", day=days.today() - dt.timedelta(days=2))
    viewer = staff_client("view_attempt", "view_dailychallenge")
    assert viewer.get(f"/admin/challenges/attempt/{today.pk}/replay/").status_code == 403
    closed = viewer.get(f"/admin/challenges/attempt/{past.pk}/replay/")
    assert closed.status_code == 200 and 'id="opponent-cards"' in closed.content.decode()
    open_day = viewer.get(f"/admin/challenges/dailychallenge/{today.challenge_id}/change/").content.decode()
    assert today.challenge.seed not in open_day and "secret" in open_day
    closed_day = viewer.get(f"/admin/challenges/dailychallenge/{past.challenge_id}/change/").content.decode()
    assert past.challenge.seed in closed_day
    assert admin_client.get(f"/admin/challenges/attempt/{today.pk}/replay/").status_code == 200
    assert (
        today.challenge.seed
        in admin_client.get(f"/admin/challenges/dailychallenge/{today.challenge_id}/change/").content.decode()
    )


@pytest.mark.django_db(transaction=True)
def test_attempts_and_results_cannot_be_added_or_edited_by_hand(admin_client):
    attempt = verified_attempt("Sven")
    result = Result.objects.get(attempt=attempt)
    for url in (
        "/admin/challenges/attempt/add/",
        "/admin/leaderboard/result/add/",
        "/admin/challenges/dailychallenge/add/",
        "/admin/challenges/review/add/",
    ):
        assert admin_client.get(url).status_code == 403, url
    changelist = admin_client.get("/admin/challenges/attempt/").content.decode()
    assert "/admin/challenges/attempt/add/" not in changelist
    admin_client.post(f"/admin/leaderboard/result/{result.pk}/change/", {"score": 1300, "asks": 1})
    admin_client.post(f"/admin/challenges/attempt/{attempt.pk}/change/", {"moves": "[]", "status": "verified"})
    result.refresh_from_db()
    attempt.refresh_from_db()
    assert result.score != 1300 and attempt.moves


@pytest.mark.django_db(transaction=True)
def test_decisions_need_a_reason_and_leave_a_trail(admin_client, monkeypatch):
    # The test plays the worker's part, so that no worker is still replaying when it ends.
    monkeypatch.setattr(services, "enqueue_verification", lambda attempt_id: None)
    quinn = new_player("Quinn")
    view = play_to_end(quinn, start(quinn))
    attempt = Attempt.objects.get(pk=view["id"])
    services.attempt_verify(attempt_id=attempt.pk)
    date = attempt.challenge.date.isoformat()
    assert quinn.get(f"/api/leaderboard/{date}").json()["total"] == 1

    asked = admin_client.post("/admin/challenges/attempt/", {"action": "disqualify", "_selected_action": [attempt.pk]})
    assert asked.status_code == 200 and 'name="reason"' in asked.content.decode()
    assert not Result.objects.get(attempt=attempt).disqualified  # nothing done without a reason
    admin_client.post(
        "/admin/challenges/attempt/",
        {"action": "disqualify", "_selected_action": [attempt.pk], "apply": "1", "reason": "played from a leaked seed"},
    )
    assert Result.objects.get(attempt=attempt).disqualified
    assert quinn.get(f"/api/leaderboard/{date}").json()["total"] == 0

    admin_client.post(
        "/admin/challenges/attempt/review/decide/",
        {"attempt": attempt.pk, "decision": "restore", "reason": "the leak was ours"},
    )
    assert not Result.objects.get(attempt=attempt).disqualified
    admin_client.post(
        "/admin/challenges/attempt/",
        {"action": "reverify", "_selected_action": [attempt.pk], "apply": "1", "reason": "rules fix 1.1"},
    )
    attempt.refresh_from_db()
    assert attempt.status == "verifying"
    services.attempt_verify(attempt_id=attempt.pk)
    attempt.refresh_from_db()
    assert attempt.status == "verified"
    assert Result.objects.filter(attempt=attempt).count() == 1

    trail = list(Review.objects.filter(attempt=attempt).order_by("at", "id").values_list("action", "by", "reason"))
    assert trail == [
        ("disqualify", admin_client.user.pk, "played from a leaked seed"),
        ("restore", admin_client.user.pk, "the leak was ours"),
        ("reverify", admin_client.user.pk, "rules fix 1.1"),
    ]
    inspector = admin_client.get(f"/admin/challenges/attempt/{attempt.pk}/replay/").content.decode()
    queue = admin_client.get(f"/admin/challenges/attempt/review/?date={date}").content.decode()
    for page in (inspector, queue):
        assert "played from a leaked seed" in page and "the leak was ours" in page and "rules fix 1.1" in page


@pytest.mark.django_db(transaction=True)
def test_a_reviewer_without_the_review_permission_cannot_decide(db):
    attempt = verified_attempt("Tilda", day=days.today() - dt.timedelta(days=2))
    viewer = staff_client("view_attempt")
    response = viewer.post(
        "/admin/challenges/attempt/review/decide/", {"attempt": attempt.pk, "decision": "disqualify", "reason": "no"}
    )
    assert response.status_code == 403
    assert not Result.objects.get(attempt=attempt).disqualified and not Review.objects.exists()
