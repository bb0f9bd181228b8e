"""The daily game over a WebSocket (/ws/attempts/<id>): the consumer through Channels'
WebsocketCommunicator, in the test's process and database, beside the HTTP API."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import threading

import psycopg
import pytest
from asgiref.sync import sync_to_async
from asgiref.testing import ApplicationCommunicator
from channels.layers import InMemoryChannelLayer
from django.conf import settings
from django.db import OperationalError
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from challenges import days, services, sockets
from challenges.models import Attempt, DailyChallenge, Player
from config.asgi import application
from config.db import Cursor, Runner
from games.rules.peche import ENGINE
from tests.conftest import in_own_thread, new_player, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = (b"origin", b"http://testserver")
HOST = (b"host", b"testserver")


def browser_player(name: str) -> APIClient:
    """A client logged in by its session cookie, as the daily page is."""
    client = APIClient()
    response = client.post("/api/players", {"name": name}, format="json")
    assert response.status_code == 201, response.content
    client.player = response.json()
    return client


def cookie_of(client: APIClient) -> tuple[bytes, bytes]:
    return (b"cookie", f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode())


def token_of(client: APIClient) -> tuple[bytes, bytes]:
    return (b"authorization", f"Token {client.player['token']}".encode())


def start(client: APIClient) -> dict:
    response = client.post("/api/challenges/today/attempt")
    assert response.status_code in (200, 201), response.content
    return response.json()


class WebsocketCommunicator(ApplicationCommunicator):
    """A WebSocket client of the ASGI application in this process (Channels' own needs
    daphne, which the site does not use)."""

    def __init__(self, path: str, headers: list[tuple[bytes, bytes]]) -> None:
        scope = {
            "type": "websocket",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "headers": headers,
            "subprotocols": [],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        super().__init__(application, scope)

    async def connect(self, timeout: float = 5):
        await self.send_input({"type": "websocket.connect"})
        answer = await self.receive_output(timeout)
        return answer["type"] == "websocket.accept", answer.get("code")

    async def send_to(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self.send_input({"type": "websocket.receive", "text": text_data, "bytes": bytes_data})

    async def send_json_to(self, data) -> None:
        await self.send_to(text_data=json.dumps(data))

    async def receive_json_from(self, timeout: float = 5):
        answer = await self.receive_output(timeout)
        assert answer["type"] == "websocket.send", answer
        return json.loads(answer["text"])

    async def disconnect(self, code: int = 1000, timeout: float = 5) -> None:
        await self.send_input({"type": "websocket.disconnect", "code": code})
        await self.wait(timeout)


def socket(attempt_id: int, *headers: tuple[bytes, bytes]) -> WebsocketCommunicator:
    return WebsocketCommunicator(f"/ws/attempts/{attempt_id}", [HOST, *headers])


async def opened(communicator: WebsocketCommunicator) -> dict:
    connected, _ = await communicator.connect()
    assert connected
    return await communicator.receive_json_from(timeout=5)


async def ask(communicator: WebsocketCommunicator, message) -> dict:
    if isinstance(message, str):
        await communicator.send_to(text_data=message)
    elif isinstance(message, bytes):
        await communicator.send_to(bytes_data=message)
    else:
        await communicator.send_json_to(message)
    return await communicator.receive_json_from(timeout=5)


def moves_of(attempt_id: int) -> list:
    return list(Attempt.objects.get(pk=attempt_id).moves)


def run(coroutine):
    return in_own_thread(asyncio.run, coroutine)


def test_a_session_cookie_opens_the_game_and_an_answer_is_the_http_answer():
    alice = browser_player("Alice")
    view = start(alice)
    twin = browser_player("Twin")  # the same asks over HTTP on the same deal
    twin_view = start(twin)
    rank = view["hand"][0][:-1]

    async def scenario():
        communicator = socket(view["id"], ORIGIN, cookie_of(alice))
        hello = await opened(communicator)
        assert hello == {"ready": True, "move": 0}
        answer = await ask(communicator, {"move": 0, "rank": rank})
        stored = await sync_to_async(moves_of)(view["id"])  # in the database when the answer came
        await communicator.disconnect()
        return answer, stored

    answer, stored = run(scenario())
    assert stored == [rank]
    over_http = twin.post(f"/api/attempts/{twin_view['id']}/asks", {"rank": rank, "move": 0}, format="json").json()
    assert answer["events"] and answer["move"] == 1
    for key in ("id", "date"):
        answer.pop(key), over_http.pop(key)
    assert answer == over_http
    # The HTTP view of the same attempt agrees with what the socket said.
    again = alice.get(f"/api/attempts/{view['id']}").json()
    assert again["hand"] == answer["hand"] and again["move"] == 1


def test_a_token_opens_the_game_without_an_origin():
    bob = new_player("Bob")
    view = start(bob)
    token = (b"authorization", bob._credentials["HTTP_AUTHORIZATION"].encode())

    async def scenario():
        communicator = socket(view["id"], token)
        hello = await opened(communicator)
        answer = await ask(communicator, {"move": 0, "rank": view["hand"][0][:-1]})
        await communicator.disconnect()
        return hello, answer

    hello, answer = run(scenario())
    assert hello["ready"] and answer["move"] == 1


@pytest.mark.parametrize(
    "headers, code",
    [
        ((ORIGIN,), "not_authenticated"),
        ((ORIGIN, (b"cookie", b"sessionid=nosuchsession")), "not_authenticated"),
        ((ORIGIN, (b"authorization", b"Token nosuchtoken")), "bad_token"),
    ],
)
def test_without_a_credential_the_socket_is_refused_and_closed(headers, code):
    carol = browser_player("Carol")
    view = start(carol)

    async def scenario():
        communicator = socket(view["id"], *headers)
        connected, _ = await communicator.connect()
        assert connected
        refusal = await communicator.receive_json_from(timeout=5)
        closed = await communicator.receive_output(timeout=5)
        return refusal, closed

    refusal, closed = run(scenario())
    assert refusal["error"] == code
    assert closed["type"] == "websocket.close" and closed["code"] == 4401


def test_a_cookie_without_an_origin_is_refused():
    dan = browser_player("Dan")
    view = start(dan)

    async def scenario():
        communicator = socket(view["id"], cookie_of(dan))
        await communicator.connect()
        return await communicator.receive_json_from(timeout=5)

    assert run(scenario())["error"] == "not_authenticated"


@pytest.mark.parametrize("origin", [b"http://evil.example", b"https://testserver.evil.example", b"null"])
def test_another_sites_origin_is_refused_at_the_handshake(origin):
    erin = browser_player("Erin")
    view = start(erin)

    async def scenario():
        communicator = socket(view["id"], (b"origin", origin), cookie_of(erin))
        connected, code = await communicator.connect()
        return connected, code

    connected, _ = run(scenario())
    assert not connected


@override_settings(CSRF_TRUSTED_ORIGINS=["https://play.example"])
def test_a_trusted_origin_is_taken():
    fay = browser_player("Fay")
    view = start(fay)

    async def scenario():
        communicator = socket(view["id"], (b"origin", b"https://play.example"), cookie_of(fay))
        return await opened(communicator)

    assert run(scenario())["ready"]


def test_another_players_attempt_is_refused_like_the_http_404():
    gus, hal = browser_player("Gus"), browser_player("Hal")
    view = start(gus)
    assert hal.get(f"/api/attempts/{view['id']}").json()["error"] == "not_found"

    async def scenario(attempt_id):
        communicator = socket(attempt_id, ORIGIN, cookie_of(hal))
        await communicator.connect()
        refusal = await communicator.receive_json_from(timeout=5)
        closed = await communicator.receive_output(timeout=5)
        return refusal, closed

    for attempt_id in (view["id"], 10**9, 2**70):  # another's, none, beyond any id: one answer
        refusal, closed = run(scenario(attempt_id))
        assert refusal["error"] == "not_found" and closed["code"] == 4404


def test_a_stale_move_gets_the_stored_view_and_two_tabs_agree():
    ivy = browser_player("Ivy")
    view = start(ivy)
    rank = view["hand"][0][:-1]

    async def scenario():
        first, second = socket(view["id"], ORIGIN, cookie_of(ivy)), socket(view["id"], ORIGIN, cookie_of(ivy))
        await opened(first), await opened(second)
        answer = await ask(first, {"move": 0, "rank": rank})
        stale = await ask(second, {"move": 0, "rank": rank})  # the other tab, one ask behind
        # The second tab caught up: its next ask, numbered from the view it was sent, lands.
        follow = await ask(second, {"move": stale["view"]["move"], "rank": stale["view"]["hand"][0][:-1]})
        await first.disconnect(), await second.disconnect()
        return answer, stale, follow

    answer, stale, follow = run(scenario())
    assert stale["error"] == "stale_move"
    assert stale["view"]["move"] == 1 and stale["view"]["hand"] == answer["hand"]
    assert follow["move"] == 2
    assert len(moves_of(view["id"])) == 2


@pytest.mark.parametrize(
    "message, code",
    [
        ("{not json", "bad_json"),
        (b'{"move": 0, "rank": "A"}', "bad_json"),
        ("[1, 2]", "bad_request"),
        ({"move": 0, "rank": "A", "cheat": True}, "unknown_field"),
        ({"rank": "A"}, "missing_field"),
        ({"move": "0", "rank": "A"}, "wrong_type"),
        ({"move": 0, "rank": "Z"}, "bad_move"),
        ({"move": 0, "rank": "A" * 2000}, "too_large"),
    ],
)
def test_a_malformed_message_gets_its_code_and_changes_nothing(message, code):
    jay = browser_player("Jay")
    view = start(jay)

    async def scenario():
        communicator = socket(view["id"], ORIGIN, cookie_of(jay))
        await opened(communicator)
        refusal = await ask(communicator, message)
        # The socket stays open and the game goes on from where it was.
        after = await ask(communicator, {"move": 0, "rank": view["hand"][0][:-1]})
        await communicator.disconnect()
        return refusal, after

    refusal, after = run(scenario())
    assert refusal["error"] == code and refusal["detail"]
    assert after["move"] == 1 and len(moves_of(view["id"])) == 1


def test_a_rank_not_in_hand_is_refused_and_the_game_goes_on():
    kim = browser_player("Kim")
    view = start(kim)
    missing = next(
        r
        for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
        if not any(card[:-1] == r for card in view["hand"])
    )

    async def scenario():
        communicator = socket(view["id"], ORIGIN, cookie_of(kim))
        await opened(communicator)
        refusal = await ask(communicator, {"move": 0, "rank": missing})
        after = await ask(communicator, {"move": 0, "rank": view["hand"][0][:-1]})
        await communicator.disconnect()
        return refusal, after

    refusal, after = run(scenario())
    assert refusal["error"] == "illegal_ask" and after["move"] == 1


@override_settings(GAME_SOCKET={**settings.GAME_SOCKET, "rate": 0.001, "burst": 2})
def test_asks_beyond_the_sockets_limit_are_rate_limited_with_retry_after():
    leo = browser_player("Leo")
    view = start(leo)

    async def scenario():
        communicator = socket(view["id"], ORIGIN, cookie_of(leo))
        await opened(communicator)
        answers = []
        for _ in range(3):
            last = answers[-1] if answers else view
            answers.append(await ask(communicator, {"move": last["move"], "rank": last["hand"][0][:-1]}))
        await communicator.disconnect()
        return answers

    answers = run(scenario())
    assert [a.get("error") for a in answers] == [None, None, "rate_limited"]
    assert answers[2]["retry_after"] >= 1
    assert len(moves_of(view["id"])) == 2


@override_settings(GAME_SOCKET={**settings.GAME_SOCKET, "per_player": 2})
def test_a_player_holds_a_few_sockets_and_the_next_is_refused_until_one_closes():
    nora = browser_player("Nora")
    view = start(nora)

    async def scenario():
        first, second = (socket(view["id"], ORIGIN, cookie_of(nora)) for _ in range(2))
        third = socket(view["id"], token_of(nora))  # another credential, the same player
        await opened(first)
        await opened(second)
        await third.connect()
        refusal = await third.receive_json_from(timeout=5)
        closed = await third.receive_output(timeout=5)
        await first.disconnect()
        fourth = socket(view["id"], ORIGIN, cookie_of(nora))
        hello = await opened(fourth)
        # The sockets it holds still play the game.
        answer = await ask(second, {"move": 0, "rank": view["hand"][0][:-1]})
        for communicator in (second, fourth):
            await communicator.disconnect()
        return refusal, closed, hello, answer

    refusal, closed, hello, answer = run(scenario())
    assert refusal["error"] == "too_many_sockets" and closed["code"] == 4429
    assert hello["ready"] and answer["move"] == 1 and len(moves_of(view["id"])) == 1


@override_settings(RATE_LIMITS={**settings.RATE_LIMITS, "asks": "1/minute"})
def test_the_players_ask_limit_is_shared_with_the_http_ask():
    mia = browser_player("Mia")
    view = start(mia)
    over_http = mia.post(f"/api/attempts/{view['id']}/asks", {"rank": view["hand"][0][:-1], "move": 0}, format="json")
    assert over_http.status_code == 200

    async def scenario():
        communicator = socket(view["id"], ORIGIN, cookie_of(mia))
        await opened(communicator)
        answer = await ask(communicator, {"move": 1, "rank": over_http.json()["hand"][0][:-1]})
        await communicator.disconnect()
        return answer

    answer = run(scenario())
    assert answer["error"] == "rate_limited" and answer["retry_after"] >= 1
    assert len(moves_of(view["id"])) == 1


def test_after_the_close_a_ranked_ask_on_an_open_socket_is_refused(monkeypatch):
    ned = browser_player("Ned")
    day = days.today() - dt.timedelta(days=1)
    challenge = services.challenge_for_day(day=day)
    reveals_at = timezone.now() + dt.timedelta(hours=1)
    DailyChallenge.objects.filter(pk=challenge.pk).update(reveals_at=reveals_at)
    state = ENGINE.new(seed=challenge.seed)
    attempt = Attempt.objects.create(
        player=Player.objects.get(pk=ned.player["id"]), challenge=challenge, ranked=True, moves=[]
    )
    rank = next(iter(state.hands[0]))

    async def scenario():
        communicator = socket(attempt.pk, ORIGIN, cookie_of(ned))
        await opened(communicator)
        # The socket was opened before the close; the clock now stands past it.
        monkeypatch.setattr("challenges.play.timezone.now", lambda: reveals_at + dt.timedelta(seconds=1))
        refusal = await ask(communicator, {"move": 0, "rank": rank})
        await communicator.disconnect()
        return refusal

    assert run(scenario())["error"] == "day_closed"
    assert moves_of(attempt.pk) == []


@pytest.mark.parametrize("how", ["logout", "password", "token"])
def test_a_log_out_a_password_change_or_a_new_token_closes_the_players_sockets(how):
    assert sockets_closed_by(how, "Olga") == [("signed_out", "websocket.close", 4001)] * 2


def test_a_log_out_closes_the_sockets_while_another_event_loop_of_the_process_listens_too():
    """The browser tests' live server runs a loop of its own on a thread of the test process,
    its listener receiving all along: a socket on another loop (each test's own) still hears
    the log-out. One channels_redis instance receives on one loop at a time; when the
    listeners shared it, every socket tested after a browser test stayed open."""
    other = asyncio.new_event_loop()
    thread = threading.Thread(target=other.run_forever, daemon=True)
    thread.start()
    try:
        closes = asyncio.run_coroutine_threadsafe(sockets.Closes.of_loop(), other).result(15)
        if closes is None or isinstance(closes.layer, InMemoryChannelLayer):
            pytest.skip("the fault is the Redis layer's: run with REDIS_URL (.ci/run)")
        wait_for(lambda: getattr(closes.layer, "receive_count", 0) > 0, timeout=15, interval=0.05)
        assert closes.layer.receive_count == 1, "the other loop's listener is receiving"
        assert sockets_closed_by("logout", "Oona") == [("signed_out", "websocket.close", 4001)] * 2
    finally:
        other.call_soon_threadsafe(other.stop)
        thread.join(5)


def test_a_log_out_closes_the_sockets_after_redis_forgot_the_listener(monkeypatch):
    """Redis restarted empty forgets who listens for log-outs: the process joins again."""
    if not settings.REDIS_URL:
        pytest.skip("the layer is in memory without REDIS_URL")
    import redis.asyncio

    monkeypatch.setattr(sockets, "REJOIN_SECONDS", 0.3)
    group = f"ws::group:{services.SOCKETS_GROUP}"  # channels_redis's key: its prefix, ":group:", the name

    async def forget_the_listener():
        # This loop's listener only: another loop of the process (the browser tests' live
        # server) keeps its place.
        channel = sockets._closes[asyncio.get_running_loop()].channel
        client = redis.asyncio.Redis.from_url(settings.REDIS_URL)
        assert await client.zscore(group, channel) is not None, "the listener had joined"
        await client.zrem(group, channel)
        assert await client.zscore(group, channel) is None
        for _ in range(100):  # joined again
            if await client.zscore(group, channel) is not None:
                break
            await asyncio.sleep(0.05)
        await client.aclose()

    closed = sockets_closed_by("logout", "Rhea", meanwhile=forget_the_listener)
    assert closed == [("signed_out", "websocket.close", 4001)] * 2


def sockets_closed_by(how: str, name: str, meanwhile=None) -> list[tuple]:
    """A player's two sockets (by cookie and by token), then (after ``await meanwhile()``)
    the credential ended ``how``: what each socket said and how it closed."""
    olga = browser_player(name)
    view = start(olga)
    token = (b"authorization", f"Token {olga.player['token']}".encode())

    def end_credential():
        if how == "logout":
            olga.credentials(HTTP_X_CSRFTOKEN="x")  # the test client skips CSRF checks unless enforced
            assert olga.delete("/api/session").status_code == 204
        elif how == "password":
            assert (
                olga.post("/api/players/me/password", {"password": "a long new pass"}, format="json").status_code == 200
            )
        else:
            assert olga.post("/api/players/me/token").status_code == 200

    async def scenario():
        by_cookie = socket(view["id"], ORIGIN, cookie_of(olga))
        by_token = socket(view["id"], token)
        await opened(by_cookie), await opened(by_token)
        if meanwhile is not None:
            await meanwhile()
        await sync_to_async(end_credential)()
        closed = []
        for communicator in (by_cookie, by_token):
            said = await communicator.receive_json_from(timeout=5)
            close = await communicator.receive_output(timeout=5)
            closed.append((said["error"], close["type"], close["code"]))
        return closed

    return run(scenario())


def test_a_reconnect_resumes_from_the_database():
    pam = browser_player("Pam")
    view = start(pam)

    async def scenario():
        first = socket(view["id"], ORIGIN, cookie_of(pam))
        await opened(first)
        answer = await ask(first, {"move": 0, "rank": view["hand"][0][:-1]})
        await first.disconnect()
        second = socket(view["id"], ORIGIN, cookie_of(pam))
        hello = await opened(second)
        follow = await ask(second, {"move": answer["move"], "rank": answer["hand"][0][:-1]})
        await second.disconnect()
        return hello, follow

    hello, follow = run(scenario())
    assert hello["move"] == 1 and follow["move"] == 2
    assert len(moves_of(view["id"])) == 2


def test_a_whole_game_over_the_socket_ends_verifying_with_every_ask_stored():
    quinn = browser_player("Quinn")
    view = start(quinn)

    async def scenario():
        communicator = socket(view["id"], ORIGIN, cookie_of(quinn))
        await opened(communicator)
        current, answered = view, 0
        while current["status"] == "playing":
            current = await ask(communicator, {"move": current["move"], "rank": current["hand"][0][:-1]})
            answered += 1
            # Every acknowledged ask is stored by the time its answer arrives.
            assert len(await sync_to_async(moves_of)(view["id"])) == current["move"] == answered
        await communicator.disconnect()
        return current

    last = run(scenario())
    assert last["over"] and last["status"] in ("verifying", "verified")
    attempt = Attempt.objects.get(pk=view["id"])
    assert attempt.status in ("verifying", "verified") and len(attempt.moves) == last["move"]


def test_a_close_moved_in_the_database_holds_on_a_socket_opened_before_it():
    """The socket read its day's close at the handshake; the write itself checks the close
    as the database has it now (Attempt.write_guard)."""
    uma = browser_player("Uma")
    day = days.today() - dt.timedelta(days=1)
    challenge = services.challenge_for_day(day=day)
    DailyChallenge.objects.filter(pk=challenge.pk).update(reveals_at=timezone.now() + dt.timedelta(hours=1))
    attempt = Attempt.objects.create(
        player=Player.objects.get(pk=uma.player["id"]), challenge=challenge, ranked=True, moves=[]
    )
    rank = next(iter(ENGINE.new(seed=challenge.seed).hands[0]))

    def close_now():
        DailyChallenge.objects.filter(pk=challenge.pk).update(reveals_at=timezone.now() - dt.timedelta(seconds=1))

    async def scenario():
        communicator = socket(attempt.pk, ORIGIN, cookie_of(uma))
        await opened(communicator)
        await sync_to_async(close_now)()
        refusal = await ask(communicator, {"move": 0, "rank": rank})
        again = await ask(communicator, {"move": 0, "rank": rank})
        await communicator.disconnect()
        return refusal, again

    refusal, again = run(scenario())
    assert refusal["error"] == again["error"] == "day_closed"
    assert moves_of(attempt.pk) == []


@override_settings(GAME_SOCKET={**settings.GAME_SOCKET, "idle_seconds": 1})
def test_an_idle_socket_is_closed_with_its_reason():
    val = browser_player("Val")
    view = start(val)

    async def scenario():
        communicator = socket(view["id"], ORIGIN, cookie_of(val))
        await opened(communicator)
        said = await communicator.receive_json_from(timeout=10)  # no ask for a while
        closed = await communicator.receive_output(timeout=10)
        return said, closed

    said, closed = run(scenario())
    assert said["error"] == "idle" and closed["type"] == "websocket.close" and closed["code"] == 4408


def _missing_rank(hand: list[str]) -> str:
    return next(
        r
        for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
        if f"{r}" not in {c[:-1] for c in hand}
    )


def _verifying(view: dict) -> None:
    Attempt.objects.filter(pk=view["id"]).update(status=Attempt.Status.VERIFYING)


def _closed(view: dict) -> None:
    # A ranked game of a day whose seed is now public.
    challenge = Attempt.objects.get(pk=view["id"]).challenge
    DailyChallenge.objects.filter(pk=challenge.pk).update(reveals_at=timezone.now() - dt.timedelta(seconds=1))


def _unavailable(monkeypatch) -> None:
    """The database lost under the ask's write, whichever writer runs it (Django's
    connection, or on Postgres the socket's libpq runner)."""

    async def lost(self, statement, params):
        raise OperationalError("the server closed the connection")

    async def lost_here(self, statement, params):
        raise psycopg.OperationalError("the server closed the connection")

    monkeypatch.setattr(Cursor, "changed", lost)
    monkeypatch.setattr(Runner, "changed", lost_here)


# Every refusal an ask can meet, each made the same way over both transports: (its code,
# what is done to the game before the socket opens, the message).
REFUSALS = [
    ("bad_json", None, "{not json"),
    ("bad_request", None, "[1, 2]"),
    ("unknown_field", None, {"move": 0, "rank": "A", "cheat": True}),
    ("missing_field", None, {"rank": "A"}),
    ("wrong_type", None, {"move": "0", "rank": "A"}),
    ("bad_move", None, {"move": 0, "rank": "Z"}),
    ("illegal_ask", None, "missing"),
    ("stale_move", None, {"move": 3, "rank": "A"}),
    ("game_over", _verifying, {"move": 0, "rank": "A"}),
    ("day_closed", _closed, {"move": 0, "rank": "A"}),
    ("not_found", "another", {"move": 0, "rank": "A"}),
    ("rate_limited", "limited", {"move": 0, "rank": "A"}),
    ("unavailable", "lost", "held"),
]


@pytest.mark.parametrize("code, before, message", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_both_transports_answer_every_refusal_with_the_same_bytes(code, before, message, monkeypatch):
    """The HTTP refusal's body, byte for byte, is the socket's answer; the socket's adds
    after it only what the HTTP answer says elsewhere (``retry_after``, its Retry-After
    header) or what a socket has no other way to learn (``view``, after ``stale_move``)."""
    pia = browser_player("Pia")
    view = start(pia)
    if message == "missing":
        message = {"move": 0, "rank": _missing_rank(view["hand"])}
    elif message == "held":
        message = {"move": 0, "rank": view["hand"][0][:-1]}
    if callable(before):
        before(view)
    attempt_id = view["id"]
    if before == "another":
        attempt_id = start(browser_player("Quy"))["id"]
    text = message if isinstance(message, str) else json.dumps(message)
    if before == "limited":
        settings_ = override_settings(RATE_LIMITS={**settings.RATE_LIMITS, "asks": "1/minute"})
        settings_.enable()
        services.ask_lease(player=Player.objects.get(pk=pia.player["id"]), most=1)  # the one ask of the window
    try:
        if before == "lost":
            _unavailable(monkeypatch)
        http = pia.post(f"/api/attempts/{attempt_id}/asks", text, content_type="application/json")

        async def scenario():
            communicator = socket(attempt_id, ORIGIN, cookie_of(pia))
            connected, _ = await communicator.connect()
            if code != "not_found":
                assert connected
                await communicator.receive_json_from(timeout=5)  # ready
                await communicator.send_to(text_data=text)
            answer = await communicator.receive_output(timeout=5)
            await communicator.disconnect()
            return answer["text"]

        answer = run(scenario())
    finally:
        if before == "limited":
            settings_.disable()
    assert http.status_code >= 400 and json.loads(http.content)["error"] == code
    if code in ("rate_limited", "stale_move"):
        assert answer.encode().startswith(http.content[:-1] + b",")
    else:
        assert answer.encode() == http.content
    assert moves_of(view["id"]) == []
