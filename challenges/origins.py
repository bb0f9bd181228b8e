"""Where players and ranked games come from, kept as keyed hashes: the address, its network
(the /24 of an IPv4 address, the /64 of an IPv6 one: what a household or one provider's
customer usually holds), and the browser's device cookie. Equal values compare equal for
reviewers (leaderboard/linking.py ties accounts by them); a stored key tells nothing of
the value, and the address itself is never stored.

A sign-up also records its **burst**: several players created from one network within
BURST_WINDOW (throwaway accounts made in a row to map the day's deal).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import ipaddress
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from .models import Player, SignUp

# Three sign-ups from one network within a quarter of an hour make a burst: a household
# signing up together is one too, which only ties them (linking flags a move line, not a tie).
BURST_SIZE = 3
BURST_WINDOW = dt.timedelta(minutes=15)
# More sign-ups than this from one network within the window are a crowd (a campus, a
# carrier's shared addresses), not a burst: they tie nobody new.
BURST_MAX = 30
# At most this many earlier sign-ups are read when a new one checks for a burst.
BURST_READ = 200


def origin_key(kind: str, value: str) -> str:
    """A keyed hash of where a game came from (an address, a network, a browser's cookie):
    equal values compare equal for reviewers, and the stored key tells nothing of the value."""
    if not value:
        return ""
    return hmac.new(settings.SECRET_KEY.encode(), f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()[:16]


def network_of(address: str) -> str:
    """The address's network: its /24 for IPv4 (an IPv4-mapped IPv6 address too), its /64
    for IPv6; "" for anything that is not an address."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return ""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = 24 if ip.version == 4 else 64
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


@dataclass(frozen=True)
class Origin:
    client_key: str
    network_key: str
    browser_key: str


def origin(*, client: str, browser: str) -> Origin:
    """The keys of an address (``client``) and a device cookie (``browser``)."""
    return Origin(
        client_key=origin_key("client", client),
        network_key=origin_key("network", network_of(client)),
        browser_key=origin_key("browser", browser),
    )


def signup_record(*, player: Player, client: str, browser: str) -> SignUp:
    """Keep where ``player`` signed up, and mark the burst it makes with the recent sign-ups
    of its network (each of them gets the burst's id: the first player's)."""
    keys = origin(client=client, browser=browser)
    at = player.created_at
    with transaction.atomic():
        signup = SignUp.objects.create(
            player=player,
            at=at,
            client_key=keys.client_key,
            network_key=keys.network_key,
            browser_key=keys.browser_key,
        )
        if not keys.network_key:
            return signup
        recent = list(
            SignUp.objects.filter(network_key=keys.network_key, at__gte=at - BURST_WINDOW, at__lte=at)
            .order_by("at", "player_id")
            .values_list("pk", "player_id", "burst")[:BURST_READ]
        )
        if not BURST_SIZE <= len(recent) <= BURST_MAX:
            return signup
        # One id for the whole burst, the same whichever of two racing sign-ups writes it:
        # an earlier burst this one continues, else the first player of the window.
        burst = next((b for _, _, b in recent if b is not None), recent[0][1])
        SignUp.objects.filter(pk__in=[pk for pk, _, b in recent if b is None]).update(burst=burst)
        signup.burst = burst
    return signup
