"""Thin API views: a body checked by its Input serializer (config/inputs.py), a service or
selector called, a view returned."""

from __future__ import annotations

import re
import secrets

from django.conf import settings
from django.contrib.auth import login, logout, update_session_auth_hash
from django.db import transaction
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from config import openapi as doc
from config.cache import FAILED as REDIS_FAILED
from config.errors import ApiError
from config.inputs import Input, Text, parsed
from config.rates import hit
from config.throttling import LoginThrottle, PlayerCreateThrottle, login_failed, login_name_refused
from games.rules.base import DomainError

from . import analysis_jobs, ask_api, selectors, services
from .ask_api import AskIn
from .auth import PLAYER_BACKEND, current_player
from .models import Attempt


def require_player(request):
    player = current_player(request)
    if player is None:
        raise ApiError("not_authenticated", "create a player first (POST /api/players)")
    return player


def by_session(request) -> bool:
    """Authenticated by the browser's session cookie (not by a token)."""
    return isinstance(request.successful_authenticator, SessionAuthentication)


def sessions_unavailable() -> ApiError:
    """Ending a session needs Redis to drop its cached copy (config/sessions.py); meanwhile
    nothing is ended and the client tries again."""
    return ApiError("unavailable", "sessions cannot be ended right now; try again shortly")


BROWSER_COOKIE = "browser"
BROWSER_SHAPE = re.compile(r"^[A-Za-z0-9_-]{24}$")


def device_cookie(request) -> str:
    """The browser's device cookie (a new random one if it has none): a long-lived mark that
    outlives log-ins, so that the players one browser creates and plays are tied together
    for reviewers (leaderboard/linking.py). Stored only as a keyed hash."""
    browser = request.COOKIES.get(BROWSER_COOKIE, "")
    return browser if BROWSER_SHAPE.match(browser) else secrets.token_urlsafe(18)


def keep_device_cookie(response, browser: str) -> None:
    response.set_cookie(
        BROWSER_COOKIE,
        browser,
        max_age=400 * 86400,
        httponly=True,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
    )


def client_address(request) -> str:
    """The address as the rate limits see it (behind trusted proxies only: config/security.py)."""
    return BaseThrottle().get_ident(request) or ""


# --- request bodies: each is its check and its schema -----------------------------------


class PlayerCreateIn(Input):
    """A new player's name."""

    name = Text(help_text="2–24 characters: letters, digits, spaces and . ' -; unique ignoring case.")


class PasswordIn(Input):
    """The player's new password."""

    password = Text(help_text="At least 8 characters, not a common password.")


class LoginIn(Input):
    """A player's name and password."""

    name = Text()
    password = Text()


# --- what the attempts' endpoints return (challenges/selectors.py ``attempt_view``) ---------


@extend_schema_serializer(component_name="AttemptView")
class AttemptOut(doc.GameView):
    """A daily game as its player sees it: the fields of every game's view, Pêche's view of
    the player's seat, and the day's own fields."""

    status = serializers.ChoiceField(["playing", "verifying", "verified", "rejected"])
    move = serializers.IntegerField(help_text="Asks made so far: send it back as the next ask's `move`.")
    hand = serializers.ListField(child=serializers.CharField(), help_text="The player's own cards, e.g. `10H`.")
    player_pairs = serializers.ListField(child=serializers.CharField())
    opponent_pairs = serializers.ListField(child=serializers.CharField())
    opponent_hand_size = serializers.IntegerField()
    lake_size = serializers.IntegerField()
    asks = serializers.IntegerField()
    opponent_asks = serializers.IntegerField()
    history = doc.HistoryEntry(many=True)
    turn = serializers.ChoiceField(["player", "opponent"], allow_null=True)
    over = serializers.BooleanField()
    outcome = doc.Outcome(allow_null=True)
    date = serializers.DateField()
    ranked = serializers.BooleanField(help_text="False for practice on a past day.")
    reject_reason = serializers.CharField(required=False, help_text="Only when `rejected`.")
    result = doc.VerifiedResult(required=False, help_text="Only when `verified`.")
    asks_until = serializers.DateTimeField(
        required=False, help_text="Ranked games only: the day's `reveals_at`, the last moment an ask is accepted."
    )
    day_closed = serializers.BooleanField(
        required=False,
        help_text="Ranked games only: true once `asks_until` has passed (an "
        "unfinished game then never ranks; it may go on as practice "
        "by starting that day's attempt).",
    )


@extend_schema_serializer(component_name="AttemptAfterAsk")
class AttemptAfterAskOut(AttemptOut):
    events = doc.Event(many=True, help_text="Everything since the ask, the opponent's turn included.")


class PlayersView(APIView):
    throttle_classes = [PlayerCreateThrottle]

    @extend_schema(
        operation_id="player_create",
        tags=["players"],
        request=PlayerCreateIn,
        responses={
            201: doc.PlayerCreated,
            **doc.errors(
                (
                    400,
                    doc.error(
                        "`bad_name`, `reserved_name` (reads as the site's own: admin, moderator, Pêche…), or a "
                        "malformed body (`bad_json`, `bad_text`, `missing_field`, `wrong_type`)"
                    ),
                ),
                (409, doc.error("`name_taken`")),
                (413, doc.TOO_LARGE),
                (429, doc.RATE_LIMITED),
            ),
        },
        description="A named guest player. Also logs the browser session in. Rate-limited per client IP.",
    )
    def post(self, request):
        body = parsed(PlayerCreateIn, request)
        browser = device_cookie(request)
        try:
            # One step: if the browser's previous player's session cannot be ended (Redis
            # down, its breaker open), the new player is not kept either, and the answer is
            # a 503 to try again, not a 500 that left a name taken.
            with transaction.atomic():
                player, token = services.player_create(
                    name=body["name"], client=client_address(request), browser=browser
                )
                login(request._request, player.user, backend=PLAYER_BACKEND)
        except REDIS_FAILED:
            raise sessions_unavailable() from None
        response = Response({"id": player.pk, "name": player.name, "token": token}, status=status.HTTP_201_CREATED)
        keep_device_cookie(response, browser)
        return response


class MeView(APIView):
    @extend_schema(operation_id="player_me", tags=["players"], responses={200: doc.Me, 401: doc.NOT_AUTHENTICATED})
    def get(self, request):
        player = require_player(request)
        return Response({"id": player.pk, "name": player.name, "has_password": player.user.has_usable_password()})


class PasswordView(APIView):
    @extend_schema(
        operation_id="player_set_password",
        tags=["players"],
        request=PasswordIn,
        responses={
            200: doc.Ok,
            **doc.errors(
                (400, doc.error("`bad_password`, or a malformed body")),
                (401, doc.NOT_AUTHENTICATED),
                (413, doc.TOO_LARGE),
            ),
        },
        description="Set a password, so the player can log in again by name (`POST /api/session`).",
    )
    def post(self, request):
        player = require_player(request)
        body = parsed(PasswordIn, request)
        services.player_set_password(player=player, password=body["password"])
        if by_session(request):
            # This session goes on under a new key; every other session of the player holds
            # the old password's hash, and Django refuses it on its next request.
            update_session_auth_hash(request._request, player.user)
        return Response({"ok": True})


class LoginView(APIView):
    throttle_classes = [LoginThrottle]

    @extend_schema(
        operation_id="session_login",
        tags=["players"],
        request=LoginIn,
        responses={
            200: doc.Player,
            **doc.errors(
                (400, doc.BAD_BODY), (401, doc.error("`bad_login`")), (413, doc.TOO_LARGE), (429, doc.RATE_LIMITED)
            ),
        },
        description="Log the browser session in by name and password.",
    )
    def post(self, request):
        body = parsed(LoginIn, request)
        # Per address (LoginThrottle) and per address and name; never per name alone
        # (config/throttling.py): guessers must not lock a player out.
        wait = login_name_refused("logins", request, body["name"])
        if wait is not None:
            raise exceptions.Throttled(wait)
        try:
            player = services.player_authenticate(name=body["name"], password=body["password"])
        except DomainError as refused:
            if refused.code == "bad_login":
                login_failed("logins", request, body["name"])
            raise
        try:
            login(request._request, player.user, backend=PLAYER_BACKEND)
        except REDIS_FAILED:  # ending the session of another player the browser had
            raise sessions_unavailable() from None
        return Response({"id": player.pk, "name": player.name})

    def get_throttles(self):
        return super().get_throttles() if self.request.method == "POST" else []

    @extend_schema(
        operation_id="session_logout",
        tags=["players"],
        request=None,
        responses={
            204: None,
            **doc.errors(
                (
                    400,
                    doc.error(
                        "`not_a_session`: the request came with a token; a token is ended by "
                        "rotating it (`POST /api/players/me/token`)"
                    ),
                ),
                (403, doc.error("`forbidden`: the CSRF token is missing")),
                (503, doc.error("`unavailable`: the session could not be ended now (nothing changed); try again")),
            ),
        },
        description="Log the browser out: its session ends in every web process at once. Also 204 "
        "when the browser was not logged in. A player without a password cannot log in "
        "again as that player.",
    )
    def delete(self, request):
        if request.auth is not None:
            raise ApiError(
                "not_a_session",
                "this request is authenticated by a token, not a session: "
                "rotate the token with POST /api/players/me/token",
            )
        # A browser not logged in still has a session (its casual games): no other site may end it.
        SessionAuthentication().enforce_csrf(request)
        player = current_player(request)
        try:
            logout(request._request)
        except REDIS_FAILED:
            raise sessions_unavailable() from None
        if player is not None:
            # Its game sockets were opened with this session: they close too (and reopen only
            # with a credential that still holds).
            services.player_sockets_close(player_id=player.pk, reason="logout")
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenView(APIView):
    @extend_schema(
        operation_id="player_rotate_token",
        tags=["players"],
        request=None,
        responses={200: doc.NewToken, 401: doc.NOT_AUTHENTICATED},
        description="A new API token for the player, shown once; the previous token is refused at once "
        "by every web process. Browser sessions are not affected.",
    )
    def post(self, request):
        player = require_player(request)
        return Response({"token": services.player_rotate_token(player=player)})


class ChallengeView(APIView):
    @extend_schema(
        operation_id="challenge_get",
        tags=["challenges"],
        parameters=[doc.DATE],
        responses={
            200: doc.Challenge,
            **doc.errors((400, doc.error("`bad_date`")), (404, doc.error("`not_found`: the day has not started"))),
        },
        description="The day's deal: its commitment while open, its seed too once closed.",
    )
    def get(self, request, date: str):
        return Response(selectors.challenge_public(selectors.challenge_read(date_text=date)))


class AttemptStartView(APIView):
    @extend_schema(
        operation_id="attempt_start",
        tags=["attempts"],
        parameters=[doc.DATE],
        request=None,
        responses={
            201: AttemptOut,
            200: AttemptOut,
            **doc.errors(
                (400, doc.error("`bad_date`")),
                (401, doc.NOT_AUTHENTICATED),
                (404, doc.error("`not_found` / `not_open`: the day has not started")),
            ),
        },
        description="Today: the caller's one ranked attempt (201 created, 200 if it exists). "
        "A past day: unranked practice, resuming an unfinished one (or going on from the caller's "
        "ranked game of that day that the close cut short).",
    )
    def post(self, request, date: str):
        player = require_player(request)
        challenge = services.challenge_on(date_text=date)
        browser = device_cookie(request)
        attempt, created = services.attempt_start(
            player=player, challenge=challenge, browser=browser, client=client_address(request)
        )
        response = Response(
            selectors.attempt_view(attempt), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )
        keep_device_cookie(response, browser)
        return response


def own_attempt(request, attempt_id: int) -> Attempt:
    attempt = selectors.own_attempt(attempt_id=attempt_id, player=require_player(request))
    if attempt is None:
        raise ApiError("not_found", "no such attempt")
    return attempt


class AttemptView(APIView):
    @extend_schema(
        operation_id="attempt_get",
        tags=["attempts"],
        parameters=[doc.ATTEMPT_ID],
        responses={
            200: AttemptOut,
            401: doc.NOT_AUTHENTICATED,
            404: doc.error("`not_found`, also for another player's attempt"),
        },
    )
    def get(self, request, attempt_id: int):
        return Response(selectors.attempt_view(own_attempt(request, attempt_id)))


class AskView(APIView):
    """The HTTP adapter of the ask (ask_api.py, beside the game's socket): the player, one
    ask of their limit, then the pipeline's answer."""

    @extend_schema(
        operation_id="attempt_ask",
        tags=["attempts"],
        parameters=[doc.ATTEMPT_ID],
        request=AskIn,
        examples=[doc.ASK_EXAMPLE],
        responses={
            200: AttemptAfterAskOut,
            **doc.errors(
                (400, doc.error("`illegal_ask` (rank not in hand), `bad_move`, `unknown_field`, or a malformed body")),
                (401, doc.NOT_AUTHENTICATED),
                (404, doc.error("`not_found`")),
                (
                    409,
                    doc.error(
                        "`stale_move` (`move` is not the number of asks made; nothing changed), "
                        "`game_over`, or `day_closed` (a ranked game of a day whose seed is now public)"
                    ),
                ),
                (413, doc.TOO_LARGE),
                (429, doc.RATE_LIMITED),
            ),
        },
        description="One ask. The game may end with it: the attempt is then `verifying` until a "
        "worker's replay has verified it. Rate-limited per player.",
    )
    def post(self, request, attempt_id: int):
        player = require_player(request)
        return Response(ask_api.over_http(player=player, attempt_id=attempt_id, data=request.data))


@extend_schema_serializer(component_name="AskAnalysis")
class AskAnalysisOut(serializers.Serializer):
    index = serializers.IntegerField(help_text="The ask, from 0.")
    rank = serializers.CharField(help_text="The rank asked.")
    best = serializers.CharField(help_text="The analysis engine's ask at that table.")
    values = serializers.DictField(
        child=serializers.FloatField(),
        help_text="Each rank in hand: the expected final pair difference (player − opponent) if asked then "
        "and played on well, over the deals consistent with what the table showed.",
    )
    loss = serializers.FloatField(help_text="`values[best] − values[rank]`, in expected pairs (≥ 0).")
    # The API's name for it; DRF's metaclass takes declared fields out of the class, so
    # Field.label is not shadowed at run time (the stubs cannot know).
    label = serializers.ChoiceField(  # type: ignore[assignment]
        ["inaccuracy", "mistake", "blunder"],
        allow_null=True,
        help_text="From the loss: inaccuracy ≥ 0.3, mistake ≥ 0.7, blunder ≥ 1.5 expected pairs (`thresholds`); "
        "an ask that left a sure pair in hand is at least an inaccuracy.",
    )
    chances = serializers.DictField(
        child=serializers.FloatField(), help_text="Each rank in hand: the public chance that the opponent held one."
    )
    reason = serializers.CharField(
        allow_null=True,
        help_text="What the table showed against the ask: `sure_pair` (a sure pair left in hand), `impossible` "
        "(a rank the opponent could not hold) or `weak` (a rank likelier by 25 points was in hand); null if nothing.",
    )


@extend_schema_serializer(component_name="GameAnalysis")
class AnalysisOut(serializers.Serializer):
    par = serializers.IntegerField(allow_null=True, help_text="The day's par: the analysis engine's score on the deal.")
    accuracy = serializers.FloatField(help_text="%: the mean over the asks that were a choice of 100·exp(−loss).")
    luck = serializers.FloatField(
        help_text="The result (pair difference) less what the engine expected from the player's choices, in pairs."
    )
    thresholds = serializers.DictField(child=serializers.FloatField(), help_text="The labels' losses, in pairs.")
    asks = AskAnalysisOut(many=True)


@extend_schema_serializer(component_name="AnalysisPending")
class AnalysisPendingOut(serializers.Serializer):
    status = serializers.CharField(help_text="`pending`.")
    code = serializers.CharField(help_text="`analysis_pending`: a worker is working it out.")
    retry_after = serializers.IntegerField(help_text="Seconds: ask again then (also the `Retry-After` header).")


ANALYSIS_RETRY_SECONDS = 2


class AnalysisView(APIView):
    """A game's analysis: GET reads it (202 while it is not worked out, and a GET never
    starts the work: GETs read); POST asks for it, once, and answers as GET does."""

    ERRORS = doc.errors(
        (404, doc.error("`not_found`: no game the caller may see replayed")),
        (409, doc.error("`day_open`: the caller's own game, whose day has not closed yet")),
    )
    POST_ERRORS = doc.errors(
        (404, doc.error("`not_found`: no game the caller may see replayed")),
        (409, doc.error("`day_open`: the caller's own game, whose day has not closed yet")),
        (
            429,
            doc.error(
                "`rate_limited`: too many games not analysed yet asked for from this address; "
                "`analysis_budget`: the analyses readers may have worked out today, from every address "
                "together, are spent (the caller's own game excepted). `Retry-After` says when to ask again"
            ),
        ),
    )

    @extend_schema(
        operation_id="attempt_analysis",
        tags=["attempts"],
        parameters=[doc.ATTEMPT_ID],
        responses={200: AnalysisOut, 202: AnalysisPendingOut, **ERRORS},
        description="A ranked game analysed, for a game the caller may see replayed (its own, or any once "
        "the day's seed is public), after the day's close only. 202 `analysis_pending` while it is not "
        "worked out: ask for it with POST, then read it again after `Retry-After`.",
    )
    def get(self, request, attempt_id: int):
        return self._answer(self._analysable(request, attempt_id))

    @extend_schema(
        operation_id="attempt_analysis_request",
        tags=["attempts"],
        parameters=[doc.ATTEMPT_ID],
        request=None,
        responses={200: AnalysisOut, 202: AnalysisPendingOut, **POST_ERRORS},
        description="Ask for a game's analysis (the same games as GET): worked out by an `analysis` worker "
        "and kept, 202 `analysis_pending` meanwhile; asking again while it is worked out changes nothing. "
        "Games not analysed yet are asked for at most `RATE_LIMITS['analyses']` times per client address "
        "(429 `rate_limited` with `Retry-After` beyond), and at most `RATE_LIMITS['analyses_day']` games are "
        "handed to the workers from every address together (429 `analysis_budget` with `Retry-After` beyond, "
        "nothing queued; the caller's own game is never refused for it). A game handed over already costs "
        "neither again; one analysed already is answered whatever the counts.",
    )
    def post(self, request, attempt_id: int):
        attempt = self._analysable(request, attempt_id)
        if selectors.attempt_analysis(attempt=attempt) is None:
            # A game not analysed yet costs an analysis worker about a second of CPU: a
            # script asking for every public game of the day would hold the queue.
            wait = hit("analyses", f"ip:{client_address(request)}")
            if wait is not None:
                raise exceptions.Throttled(wait)
            player = current_player(request)
            analysis_jobs.analysis_wanted(
                attempt_id=attempt.pk, own=player is not None and player.pk == attempt.player_id
            )
        return self._answer(attempt)

    @staticmethod
    def _analysable(request, attempt_id: int):
        state, attempt = selectors.analysable(attempt_id=attempt_id, user=request.user, player=current_player(request))
        if state == "day_open":
            raise ApiError("day_open", "the analysis opens when the day closes")
        if attempt is None:
            raise ApiError("not_found", "no such game to analyse")
        return attempt

    @staticmethod
    def _answer(attempt):
        data = selectors.attempt_analysis(attempt=attempt)  # without a broker a POST worked it out just now
        if data is None:
            return Response(
                {"status": "pending", "code": "analysis_pending", "retry_after": ANALYSIS_RETRY_SECONDS},
                status=status.HTTP_202_ACCEPTED,
                headers={"Retry-After": str(ANALYSIS_RETRY_SECONDS)},
            )
        return Response(data)


class MyAttemptsView(APIView):
    @extend_schema(
        operation_id="player_attempts", tags=["players"], responses={200: doc.MyAttempts, 401: doc.NOT_AUTHENTICATED}
    )
    def get(self, request):
        return Response({"attempts": selectors.player_attempts(player=require_player(request))})
