"""Admin: the replay inspector shows both hands, the lake and the opponent's knowledge;
disqualify and re-verify work."""
import pytest
from django.contrib.auth import get_user_model

from challenges.models import Attempt
from leaderboard.models import Result
from tests.conftest import new_player
from tests.test_daily_api import finish_without_verifying, play_to_end, start


@pytest.fixture
def admin_client(client, db):
    user = get_user_model().objects.create_superuser("root", "root@example.com", "pw-Admin-123")
    client.force_login(user)
    return client


@pytest.mark.django_db(transaction=True)
def test_replay_inspector_steps_through_with_hidden_information(admin_client):
    attempt = finish_without_verifying("Peggy")
    page = admin_client.get(f"/admin/challenges/attempt/{attempt.pk}/replay/")
    assert page.status_code == 200
    text = page.content.decode()
    assert text.count('class="replay-step') == len(attempt.moves) + 1
    assert "Opponent hand" in text and "Lake (42)" in text and "Opponent knowledge" in text
    from games.peche import ENGINE

    dealt = ENGINE.new(seed=attempt.challenge.seed)
    assert " ".join(dealt.hands[1].values()) in text  # the opponent's dealt hand is shown


@pytest.mark.django_db(transaction=True)
def test_admin_disqualify_and_reverify(admin_client, monkeypatch):
    from challenges import services

    # The test plays the worker's part, so that no worker is still replaying when it ends.
    monkeypatch.setattr(services, "enqueue_verification", lambda attempt_id: None)
    quinn = new_player("Quinn")
    view = play_to_end(quinn, start(quinn))
    attempt = Attempt.objects.get(pk=view["id"])
    services.attempt_verify(attempt_id=attempt.pk)
    date = attempt.challenge.date.isoformat()
    assert quinn.get(f"/api/leaderboard/{date}").json()["total"] == 1
    admin_client.post("/admin/challenges/attempt/", {"action": "disqualify", "_selected_action": [attempt.pk]})
    assert Result.objects.get(attempt=attempt).disqualified
    assert quinn.get(f"/api/leaderboard/{date}").json()["total"] == 0
    admin_client.post("/admin/challenges/attempt/", {"action": "reverify", "_selected_action": [attempt.pk]})
    attempt.refresh_from_db()
    assert attempt.status == "verifying"
    services.attempt_verify(attempt_id=attempt.pk)
    attempt.refresh_from_db()
    assert attempt.status == "verified"
    assert Result.objects.filter(attempt=attempt).count() == 1
