"""The OpenAPI schema's shared parts (docs/openapi.yaml, /api/schema, /api/docs): the token
scheme, the error object and its usual responses, the path and query parameters, and the
responses of the daily API, which returns selector dicts (their shape is declared here once;
rendering every view through a serializer would cost the ask its CPU). A game's view, the
same shape for every stored game, is declared beside the APIs that return it, on ``GameView``.

Request bodies are not here: each is the Input serializer its view checks it with
(config/inputs.py), beside the view. The casual API's schema is on its own views.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers

# --- authentication ----------------------------------------------------------------


# The browser's session cookie is DRF's SessionAuthentication: drf-spectacular's own scheme.


class PlayerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "challenges.auth_api.PlayerTokenAuthentication"
    name = "playerToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <token>`, the token returned once by `POST /api/players`.",
        }


# --- errors ------------------------------------------------------------------------


class Error(serializers.Serializer):
    error = serializers.CharField(help_text="A stable code, e.g. `illegal_ask`, `stale_move`, `rate_limited`.")
    detail = serializers.CharField(help_text="A sentence for people.")


def error(description: str) -> OpenApiResponse:
    return OpenApiResponse(Error, description=description)


BAD_BODY = error(
    "`bad_json`, `bad_text` (a string holds a lone surrogate), `bad_request` (not a JSON object), `missing_field`, "
    "`wrong_type`"
)
NOT_AUTHENTICATED = error("`not_authenticated` (no player) or `bad_token`")
RATE_LIMITED = error("`rate_limited`; `Retry-After` says when to try again")
TOO_LARGE = error("`too_large`: the body is over 16 KiB")


def errors(*pairs) -> dict:
    return {status: response for status, response in pairs}


# --- path and query parameters -----------------------------------------------------

DATE = OpenApiParameter(
    "date",
    str,
    OpenApiParameter.PATH,
    pattern=r"^(today|[0-9]{4}-[0-9]{2}-[0-9]{2})$",
    description="`YYYY-MM-DD`, or `today` (the server's day, CHALLENGE_TIMEZONE). A day "
    "that does not exist, comes before the first challenge or has not started "
    "is 404 `not_found`.",
)
ATTEMPT_ID = OpenApiParameter("attempt_id", int, OpenApiParameter.PATH, description="The attempt's id.")
OFFSET = OpenApiParameter(
    "offset",
    {"type": "integer", "minimum": 0, "maximum": 100000000},
    OpenApiParameter.QUERY,
    description="Rows to skip (default 0).",
)
LIMIT = OpenApiParameter(
    "limit",
    {"type": "integer", "minimum": 1, "maximum": 200},
    OpenApiParameter.QUERY,
    description="Rows to return, 1–200 (default 50).",
)

# --- players -----------------------------------------------------------------------


class Player(serializers.Serializer):
    """A player: what a log-in, a rename or a code log-in returns."""

    id = serializers.IntegerField()
    name = serializers.CharField()


class PlayerCreated(Player):
    """A new player, with its API token."""

    token = serializers.CharField(help_text="Shown once; send it as `Authorization: Token <token>`.")


class Me(Player):
    """The caller's player."""

    has_password = serializers.BooleanField()


class Ok(serializers.Serializer):
    ok = serializers.BooleanField()


class NewToken(serializers.Serializer):
    token = serializers.CharField(help_text="Shown once; the player's previous token is refused from now on.")


class MyAttempt(serializers.Serializer):
    id = serializers.IntegerField()
    date = serializers.DateField()
    ranked = serializers.BooleanField()
    status = serializers.ChoiceField(["playing", "verifying", "verified", "rejected"])
    asks = serializers.IntegerField()
    score = serializers.IntegerField(allow_null=True)


class MyAttempts(serializers.Serializer):
    attempts = MyAttempt(many=True)


# --- challenges --------------------------------------------------------------------


class Challenge(serializers.Serializer):
    date = serializers.DateField()
    game = serializers.ChoiceField(["peche"])
    commitment = serializers.CharField(help_text="SHA-256 of the seed, hex; published when the day opens.")
    rules_version = serializers.IntegerField()
    closes_at = serializers.DateTimeField(help_text="Midnight: no new ranked game of this day starts after it.")
    reveals_at = serializers.DateTimeField(
        help_text="The close plus a short grace: ranked games still running may take asks until then; "
        "then the seed is published and no ranked ask of the day is accepted."
    )
    seed = serializers.CharField(required=False, help_text="Only from `reveals_at` on.")


# --- attempts ----------------------------------------------------------------------


class HistoryEntry(serializers.Serializer):
    seat = serializers.IntegerField(help_text="0: the player, 1: the opponent.")
    target = serializers.IntegerField(help_text="The seat asked.")
    rank = serializers.CharField()
    given = serializers.IntegerField(help_text="How many cards the asked seat gave: 1, or 0 (it held none).")
    fished = serializers.BooleanField(help_text="Go fish: the asker drew from the lake.")
    caught = serializers.BooleanField(
        help_text="Go fish, and the card drawn was of the rank asked for (it paired at once, in view of the table)."
    )


class Outcome(serializers.Serializer):
    """A finished game's result, with the same fields in every game."""

    winners = serializers.ListField(
        child=serializers.IntegerField(), help_text="The seats that won; both seats for a draw (0: the player)."
    )
    counts = serializers.ListField(child=serializers.IntegerField(), help_text="Pairs per seat.")
    asks = serializers.ListField(child=serializers.IntegerField(), help_text="Asks per seat.")
    moves = serializers.IntegerField(help_text="Asks of both seats.")
    reason = serializers.CharField(help_text="Why the game ended: `pairs` (all 26 laid).")
    score = serializers.IntegerField(allow_null=True, help_text="1000 + 30 × (player pairs − opponent pairs).")


class VerifiedResult(serializers.Serializer):
    score = serializers.IntegerField()
    player_pairs = serializers.IntegerField()
    opponent_pairs = serializers.IntegerField()
    asks = serializers.IntegerField()
    rank = serializers.IntegerField(allow_null=True, help_text="Null for practice, a held or a disqualified result.")
    held = serializers.BooleanField(
        help_text="Held until reviewed: the fair-play detector flagged the game; the score is provisional and it "
        "has no rank until a reviewer clears it."
    )
    disqualified = serializers.BooleanField()
    reason = serializers.CharField(allow_null=True, help_text="Why a reviewer disqualified it; null otherwise.")
    provisional = serializers.BooleanField(
        help_text="A newcomer's result: ranked (the rank is true) but not on the public list yet (docs/fairplay.md)."
    )


class Event(serializers.Serializer):
    """One thing that happened, in the same shape in every game."""

    type = serializers.ChoiceField(["ask", "draw", "pair", "pass", "end"])
    seat = serializers.IntegerField(required=False, help_text="Who asks, draws, pairs or passes.")
    target = serializers.IntegerField(required=False, help_text="Ask: the seat asked.")
    rank = serializers.CharField(required=False)
    given = serializers.IntegerField(required=False, help_text="Ask: how many cards the seat asked gave (0: go fish).")
    cards = serializers.ListField(child=serializers.CharField(), required=False, help_text="Ask: the cards given.")
    card = serializers.CharField(required=False, help_text="Draw: only on the player's own draws.")
    reason = serializers.ChoiceField(["fish", "empty_hand"], required=False, help_text="Draw: why.")
    outcome = Outcome(required=False, help_text="End: the result.")


# A stored game as the player sees it, daily or casual, in one shape (challenges/play.py
# ``GameView``): these fields, the fields of the game's own view beside them, then those of
# its kind (the daily's ``AttemptOut`` in challenges/api.py, the casual games' in
# casual/api.py, declared beside the views that return them).
class GameView(serializers.Serializer):
    """A game as its player sees it: the same fields in every game, the game's own view of
    the player's seat beside them, then the fields of its kind."""

    id = serializers.IntegerField()
    game = serializers.CharField(help_text="The game: `peche` (the daily game), `kitten`, `gofish`.")
    # Each kind of game names its own statuses (a ChoiceField in the view beside its API).
    status: serializers.Field = serializers.CharField()
    move = serializers.IntegerField(help_text="Moves made so far: send it back as the next move's `move`.")


# --- leaderboard -------------------------------------------------------------------


class LeaderboardEntry(serializers.Serializer):
    rank = serializers.IntegerField()
    name = serializers.CharField()
    score = serializers.IntegerField()
    asks = serializers.IntegerField()
    player_pairs = serializers.IntegerField()
    opponent_pairs = serializers.IntegerField()


class Leaderboard(serializers.Serializer):
    date = serializers.DateField()
    total = serializers.IntegerField(help_text="How many results rank that day, provisional ones included.")
    listed = serializers.IntegerField(
        help_text="How many of them are listed (those of established players): what `offset` pages through."
    )
    offset = serializers.IntegerField()
    limit = serializers.IntegerField()
    entries = LeaderboardEntry(many=True)
    newcomers = inline_serializer(
        "LeaderboardNewcomer",
        {
            "name": serializers.CharField(),
            "score": serializers.IntegerField(),
            "asks": serializers.IntegerField(),
            "player_pairs": serializers.IntegerField(),
            "opponent_pairs": serializers.IntegerField(),
        },
        many=True,
        help_text="The day's newcomers (provisional results: ranked, not listed until their players have played "
        "enough days), apart and unnumbered, best first: at most 50 of them, the same on every page (`total` − "
        "`listed` says how many there are). Held and disqualified results are never here.",
    )


class LeaderboardMe(LeaderboardEntry):
    date = serializers.DateField()
    rank = serializers.IntegerField(allow_null=True, help_text="Null while held or once disqualified.")
    players = serializers.IntegerField(
        help_text="How many players rank that day (the leaderboard's `total`). Held and disqualified results "
        "count for no one; a deleted player's results stay ranked."
    )
    top_percent = serializers.IntegerField(
        allow_null=True,
        help_text="The smallest whole share of the day's ranked players, from the top, that holds the caller's "
        "rank, in percent, rounded up: ceil(100 × rank / players), 1 to 100 (the first of 1000 is in the top 1, "
        "the last of any day in the top 100). Ranks are strict (ties are broken by fewer asks, then the earlier "
        'finish). The site\'s pages say "first" of rank 1 rather than a share. Null while held or once '
        "disqualified. `percentile` says the same rank from below.",
    )
    percentile = serializers.FloatField(
        allow_null=True,
        help_text="The share of the day's ranked players ranked strictly below the caller, in percent with one "
        "decimal, rounded down: floor(1000 × (players − rank) / players) / 10, 0 to 99.9 (0 for a lone player "
        "or the last). The same rank as `top_percent`, counted from the other end: `top_percent` is the share "
        "from the top that holds the rank, `percentile` the share strictly below it, and always "
        "100 − top_percent = floor(percentile) (the first of 3: top_percent 34, percentile 66.6). New clients "
        "should read `top_percent`, as the pages do. Null while held or once disqualified.",
    )
    streak = serializers.IntegerField(
        help_text="Consecutive days, ending with this day, on which the caller has a counted result (ranked, "
        "neither held nor disqualified); 0 when this day's does not count."
    )
    best_streak = serializers.IntegerField(help_text="The longest such run up to and including this day.")
    held = serializers.BooleanField(
        help_text="Held until reviewed: the fair-play detector flagged the game and no reviewer has cleared it "
        "yet. Its score is provisional and it counts for no one (no rank, top share or streak) until cleared."
    )
    disqualified = serializers.BooleanField()
    reason = serializers.CharField(allow_null=True, help_text="Why a reviewer disqualified it; null otherwise.")
    provisional = serializers.BooleanField(
        help_text="A newcomer's result: it ranks (the rank is true) but the public list leaves it out until the "
        "player has a counted result on enough of the days before (docs/fairplay.md)."
    )


class Histogram(serializers.Serializer):
    date = serializers.DateField()
    bins = inline_serializer(
        "HistogramBin", {"score": serializers.IntegerField(), "count": serializers.IntegerField()}, many=True
    )


class ArchiveLine(serializers.Serializer):
    """One line of a closed day's archive (JSON Lines: one such object per line)."""

    game = serializers.ChoiceField(["peche"])
    seed = serializers.CharField(help_text="The day's seed (docs/rules.md §1); SHA-256 of it is the commitment.")
    moves = serializers.ListField(child=serializers.CharField(), help_text="The player's asks, in order.")
    date = serializers.DateField()
    rank = serializers.IntegerField(help_text="1-based, in the leaderboard's order.")
    player = serializers.CharField(help_text="The player's name.")
    score = serializers.IntegerField()
    asks = serializers.IntegerField(help_text="The player's asks (the replay's `player_asks`).")
    player_pairs = serializers.IntegerField()
    opponent_pairs = serializers.IntegerField()
    attempt = serializers.IntegerField(help_text="The attempt's id (its public replay: /replays/<attempt>/).")
    finished_at = serializers.DateTimeField(help_text="The last ask: the third tie-break.")


class PositionNext(serializers.Serializer):
    rank = serializers.CharField(help_text="The next ask.")
    players = serializers.IntegerField(help_text="The counted games that asked it there.")
    share = serializers.FloatField(help_text="`players` over the position's `players`, 0 to 1 (to 0.0001).")
    mean_score = serializers.FloatField(help_text="The mean final score of those games (to 0.1).")


class PositionEngine(serializers.Serializer):
    values = serializers.DictField(
        child=serializers.FloatField(),
        help_text="Each rank in hand: the expected final pair difference if asked there (as an analysis' `values`).",
    )
    best = serializers.CharField(help_text="The analysis engine's ask there.")


class Position(serializers.Serializer):
    """A position of a closed day's deal, named by the player's asks that reach it."""

    players = serializers.IntegerField(
        help_text="The day's counted games that reached it: the games the archive lists (ranked, neither held nor "
        "disqualified, no newcomer's provisional result); 0 for a position nobody reached."
    )
    next = PositionNext(many=True, help_text="Each ask made from it, the most asked first; empty at a game's end.")
    engine = PositionEngine(
        allow_null=True,
        help_text="The analysis engine's view of the position, read from the stored analysis of a game that asked "
        "from it; null while no analysed game is known to (the day's games are analysed after the close).",
    )


MOVES = OpenApiParameter(
    "moves",
    str,
    OpenApiParameter.QUERY,
    pattern=r"^((A|[2-9]|10|J|Q|K)(,(A|[2-9]|10|J|Q|K))*)?$",
    description="The player's asks from the deal, ranks separated by commas (`7,Q`), at most 68; absent or empty: "
    "the deal itself, before the first ask.",
)


ASK_EXAMPLE = OpenApiExample("ask", value={"rank": "Q", "move": 3}, request_only=True)


def bad_token_everywhere(result, generator, request, public):
    """drf-spectacular postprocessing: every operation answers 401 `bad_token` to an
    Authorization header that names no live token (a rotated or deleted player's), public
    ones included, because authentication runs before the view. Operations that describe
    their own 401 keep it."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            responses = operation.get("responses") if isinstance(operation, dict) else None
            if responses is not None and "401" not in responses:
                responses["401"] = {
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                    "description": "`bad_token`: the Authorization header names no live token",
                }
    return result
