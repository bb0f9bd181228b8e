// What a refusal of the leagues' API means to the player, in their language.
/* global gettext */
import { errorSentence } from "../frontend/errors.js";

const MESSAGES = {
  bad_name: () => gettext("That name cannot be used: 1 to 40 letters, digits, spaces and . ' -, in one script."),
  name_taken: () => gettext("You already have a league with this name, or one that looks like it."),
  not_found: () => gettext("No league has this code: it is mistyped, or the owner has made a new one."),
  league_full: () => gettext("This league is full (200 members)."),
  too_many_leagues: () => gettext("You are in 20 leagues already: leave one first."),
  not_owner: () => gettext("Only the league's owner can do this."),
  rate_limited: () => gettext("Too many tries: wait a while, then try again."),
};

// Player names' refusals, for the join page's name prompt (the daily page's words).
const NAME_MESSAGES = {
  bad_name: () => gettext("That name cannot be used. Try letters and digits."),
  name_taken: () => gettext("This name is already taken."),
};

export function problem(err, forName = false) {
  const known = (forName && NAME_MESSAGES[err.code]) || MESSAGES[err.code];
  return known ? known() : errorSentence(err) || gettext("Something went wrong.") + " (" + err.code + ")";
}
