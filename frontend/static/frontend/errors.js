// Every error code the API can answer (docs/openapi.yaml's error responses, and
// config/errors.py's STATUS and DRF codes), as a sentence for people: what happened and
// what to do. A page's own table says it in the page's context first; this one is what
// every page falls back on, so that no refusal reads "Something went wrong"
// (tests/test_error_sentences.py holds it to the API's list).
/* global gettext, interpolate */

// Codes the player cannot cause by hand: a page out of date with the server sent it.
const malformed = () => gettext("The page sent a request the server cannot read: reload the page, then try again.");

export const ERRORS = {
  analysis_budget: () => gettext("Today's analyses are all taken: this game can be analysed later."),
  bad_code: () => gettext("This code is unknown, expired or already used. Show a new one on your other device."),
  bad_date: () => gettext("This is not a day of the game: write it as YYYY-MM-DD, from the first day to today."),
  bad_input: () => gettext("The game does not take these options: choose from the form's choices."),
  bad_json: malformed,
  bad_login: () => gettext("Unknown name or wrong password."),
  bad_moves: malformed,
  bad_move: () => gettext("That is not a move of this game."),
  bad_name: () => gettext("That name cannot be used. Try letters and digits."),
  bad_options: () => gettext("The game does not take these options: choose from the form's choices."),
  bad_param: malformed,
  bad_password: () => gettext("This password is too weak."),
  bad_request: malformed,
  bad_target: () => gettext("Ask another player, one who still holds cards."),
  bad_text: malformed,
  bad_token: () => gettext("Your sign-in has ended (you logged out, or changed it on another device): reload the page and sign in again."),
  bad_week: () => gettext("This is not a week: write it as YYYY-Www, e.g. 2026-W49."),
  day_closed: () => gettext("This day is over: its game can no longer be played."),
  day_open: () => gettext("This day is still open: the replays and the analysis open when it closes."),
  forbidden: () => gettext("This page is too old to send that: reload it, then try again."),
  game_over: () => gettext("This game is already over."),
  has_decisions: () => gettext("This game still has choices for you to make: play them yourself."),
  illegal_ask: () => gettext("You do not hold that rank."),
  invalid: malformed,
  league_full: () => gettext("This league is full (200 members)."),
  method_not_allowed: malformed,
  missing_field: malformed,
  name_taken: () => gettext("This name is already taken."),
  not_a_session: () => gettext("This sign-in uses a token, not a browser session: there is no session to end."),
  not_acceptable: malformed,
  not_authenticated: () => gettext("You are not signed in (any more): reload the page, or sign in again."),
  not_found: () => gettext("This cannot be found (any more): reload the page."),
  not_open: () => gettext("This day has not started yet."),
  not_owner: () => gettext("Only the league's owner can do this."),
  too_many_moves: malformed,
  rate_limited: (err) => (err.retryAfter
    ? interpolate(gettext("Too many requests: try again in %(seconds)s seconds."), { seconds: err.retryAfter }, true)
    : gettext("Too many requests: try again in a moment.")),
  reserved_name: () => gettext("This name reads as the site's own (its staff or its name): choose another."),
  stale_move: () => gettext("This game has moved on in another tab or window: reload the page."),
  too_large: () => gettext("What was sent is too large."),
  too_many_leagues: () => gettext("You are in 20 leagues already: leave one first."),
  unavailable: () => gettext("The server is busy or being updated: try again in a moment."),
  unknown_field: malformed,
  unsupported_media_type: malformed,
  wrong_seat: () => gettext("It is not your turn."),
  wrong_type: malformed,
};

/** The sentence of an API error (an ApiError: ``code``, ``status``), or null for a code
 * that is not the API's (e.g. "network", which each page says its own way). */
export function errorSentence(err) {
  const sentence = err && Object.hasOwn(ERRORS, err.code) ? ERRORS[err.code] : null;
  return sentence ? sentence(err) : null;
}
