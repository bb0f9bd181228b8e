"""The daily page asks over the game's WebSocket (/ws/attempts/<id>), and over HTTP by itself
when the socket cannot open or drops: the same game either way."""

from __future__ import annotations

import json

import pytest

from .test_daily import start_as_guest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FAST = "window.PECHE_STEP_MS = 5; window.PECHE_POLL_MS = 150;"


def watch(page) -> dict:
    """The page's sockets and the frames they carried, and its HTTP asks."""
    seen: dict = {"sockets": [], "sent": [], "received": [], "http_asks": []}

    def on_socket(ws):
        seen["sockets"].append(ws.url)
        index = len(seen["sockets"]) - 1
        ws.on("framesent", lambda payload: seen["sent"].append((index, json.loads(payload))))
        ws.on("framereceived", lambda payload: seen["received"].append((index, json.loads(payload))))

    page.on("websocket", on_socket)
    page.on("request", lambda r: r.method == "POST" and r.url.endswith("/asks") and seen["http_asks"].append(r.url))
    return seen


def ask(page, asks: int) -> None:
    """Ask with the focused card; wait until the page shows the answer played out."""
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"document.getElementById('asks').textContent === '{asks}' && "
        "document.querySelector('#turn').dataset.turn !== 'busy'"
    )


def my_turn(page) -> bool:
    page.wait_for_function(
        "document.querySelector('#turn')?.dataset.turn === 'player' || !document.querySelector('#end').hidden"
    )
    return not page.locator("#end").is_visible()


def ready(page, seen: dict, socket: int) -> None:
    """Wait until socket number ``socket`` of the page holds the game."""
    page.wait_for_function("true")  # let Playwright deliver the frames seen so far
    for _ in range(100):
        if any(i == socket and m.get("ready") for i, m in seen["received"]):
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"socket {socket} never became ready: {seen}")


def stored_moves(name: str) -> list[str]:
    from challenges.models import Attempt

    return list(Attempt.objects.get(player__name=name).moves)


def test_asks_travel_over_the_socket(new_page):
    page = new_page()
    page.add_init_script(FAST)
    seen = watch(page)
    start_as_guest(page, "Socket Sam")
    ready(page, seen, 0)
    asks = 0
    while asks < 6 and my_turn(page):
        asks += 1
        ask(page, asks)
    assert seen["http_asks"] == []
    sent = [m for _, m in seen["sent"]]
    assert [m["move"] for m in sent] == list(range(asks))
    # Each answer came back on the socket, and what was asked is what is stored.
    answers = [m for _, m in seen["received"] if "events" in m]
    assert [a["move"] for a in answers] == list(range(1, asks + 1))
    assert stored_moves("Socket Sam") == [m["rank"] for m in sent]
    assert seen["sockets"][0].endswith(f"/ws/attempts/{answers[0]['id']}")


def test_the_page_asks_over_http_when_the_socket_is_refused(new_page, monkeypatch):
    # The server refuses every socket at the handshake (HTTP 403), as a proxy without /ws/
    # or another site's origin would: the browser says so in its console.
    monkeypatch.setattr("challenges.consumers.sockets.host_allowed", lambda scope: False)
    page = new_page()
    page.expected_errors = ["WebSocket"]
    page.add_init_script(FAST)
    seen = watch(page)
    start_as_guest(page, "Fallback Fay")
    asks = 0
    while asks < 4 and my_turn(page):
        asks += 1
        ask(page, asks)
    assert seen["sockets"], "the page tried the socket"
    assert seen["sent"] == [] and len(seen["http_asks"]) == asks
    assert len(stored_moves("Fallback Fay")) == asks
    assert page.locator("#error").is_hidden()


def test_a_dropped_socket_is_opened_again_and_no_ask_is_lost_or_doubled(new_page):
    page = new_page()
    page.add_init_script(FAST)
    seen = watch(page)
    start_as_guest(page, "Reconnect Rae")
    ready(page, seen, 0)
    asks = 0
    for _ in range(2):
        if my_turn(page):
            asks += 1
            ask(page, asks)
    # A password set from this browser: the server closes the player's sockets, this
    # session holds, and the page opens a new socket by itself.
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(
        page.base + "/api/players/me/password",
        data=json.dumps({"password": "a long new pass"}),
        headers={"Content-Type": "application/json", "X-CSRFToken": csrf},
    )
    assert response.status == 200
    ready(page, seen, 1)
    assert any(m.get("error") == "signed_out" for i, m in seen["received"] if i == 0)
    for _ in range(3):
        if my_turn(page):
            asks += 1
            ask(page, asks)
    assert any(i == 1 for i, _ in seen["sent"]), "asks went over the new socket"
    moves = stored_moves("Reconnect Rae")
    assert len(moves) == asks == int(page.locator("#asks").inner_text())
