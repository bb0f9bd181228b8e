"""The player's ask limit as a game socket spends it: leases of a few asks
(services.ask_lease) on the window the HTTP ask counts one by one. Whatever the mix of
sockets (tabs, processes) and HTTP asks, the player gets at most the limit per window."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import override_settings

from challenges import services
from challenges.models import Player
from config.rates import hit
from tests.conftest import new_player

pytestmark = pytest.mark.django_db


@override_settings(RATE_LIMITS={**settings.RATE_LIMITS, "asks": "100/minute"})
def test_leases_and_http_asks_together_never_pass_the_players_limit():
    client = new_player("Lea")
    player = Player.objects.get(pk=client.player["id"])
    granted = []
    # Two sockets (two tabs, or two processes) and the HTTP ask, in turns, until refused.
    for _ in range(200):
        first, _ = services.ask_lease(player=player)
        second, _ = services.ask_lease(player=player)
        over_http = hit("asks", f"user:{player.user_id}") is None
        granted.append(first + second + int(over_http))
        if not (first or second or over_http):
            break
    assert sum(granted) == 100
    refused, retry_after = services.ask_lease(player=player)
    assert refused == 0 and retry_after >= 1


@override_settings(RATE_LIMITS={**settings.RATE_LIMITS, "asks": "100/minute"})
def test_a_lease_is_a_few_asks_and_another_players_limit_is_their_own():
    ann, bob = (Player.objects.get(pk=new_player(name).player["id"]) for name in ("Ann", "Bob"))
    asks, seconds = services.ask_lease(player=ann)
    assert 1 <= asks <= services.ASK_LEASE and 0 < seconds <= 60
    for _ in range(100):
        services.ask_lease(player=ann)
    assert services.ask_lease(player=ann)[0] == 0
    assert services.ask_lease(player=bob)[0] >= 1
