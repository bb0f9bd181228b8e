// The words of the daily table, shared by the daily game and the public replays: rank words
// in each language's grammar, the words of events, and the buckets of pairs.
/* global gettext, pgettext */

import { cardLabel, rankLabel } from "./cards.js";
import { fmt } from "./dom.js";
import { layRanks } from "./felt.js";

// The table's pieces themselves (felt.js) are every table page's.
export { cardFace, fly, renderBacks } from "./felt.js";

// A rank inside a sentence, in the language's own grammar: "an ace", "un as", "einen
// Buben"; and after "a pair of": "aces", "d'as" (French elides), "Buben".
const RANK_WORDS = {
  A: () => [pgettext("one card of rank", "an ace"), pgettext("pair of", "aces")],
  2: () => [pgettext("one card of rank", "a two"), pgettext("pair of", "twos")],
  3: () => [pgettext("one card of rank", "a three"), pgettext("pair of", "threes")],
  4: () => [pgettext("one card of rank", "a four"), pgettext("pair of", "fours")],
  5: () => [pgettext("one card of rank", "a five"), pgettext("pair of", "fives")],
  6: () => [pgettext("one card of rank", "a six"), pgettext("pair of", "sixes")],
  7: () => [pgettext("one card of rank", "a seven"), pgettext("pair of", "sevens")],
  8: () => [pgettext("one card of rank", "an eight"), pgettext("pair of", "eights")],
  9: () => [pgettext("one card of rank", "a nine"), pgettext("pair of", "nines")],
  10: () => [pgettext("one card of rank", "a ten"), pgettext("pair of", "tens")],
  J: () => [pgettext("one card of rank", "a jack"), pgettext("pair of", "jacks")],
  Q: () => [pgettext("one card of rank", "a queen"), pgettext("pair of", "queens")],
  K: () => [pgettext("one card of rank", "a king"), pgettext("pair of", "kings")],
};
export const aRank = (rank) => RANK_WORDS[rank]()[0];
export const ranksOf = (rank) => RANK_WORDS[rank]()[1];

// The words of one event, as announced in the live region. Events rebuilt from the
// history after a reload (``replayed``) no longer know which card was fished.
export function eventText(e) {
  switch (e.type) {
    case "ask":
      if (e.seat === 0) {
        return e.given ? fmt(gettext("You ask for %(a_rank)s: the opponent gives you theirs."), { a_rank: aRank(e.rank) })
          : fmt(gettext("You ask for %(a_rank)s: the opponent has none."), { a_rank: aRank(e.rank) });
      }
      return e.given ? fmt(gettext("The opponent asks for %(a_rank)s: you give yours."), { a_rank: aRank(e.rank) })
        : fmt(gettext("The opponent asks for %(a_rank)s: you have none."), { a_rank: aRank(e.rank) });
    case "draw":
      if (e.seat === 0) {
        if (e.replayed) return gettext("You go fishing.");
        return e.reason === "fish" ? fmt(gettext("You go fishing and draw %(card)s."), { card: cardLabel(e.card) })
          : fmt(gettext("Your hand is empty: you draw %(card)s."), { card: cardLabel(e.card) });
      }
      return e.reason === "fish" ? gettext("The opponent goes fishing.")
        : gettext("The opponent's hand is empty: it draws a card.");
    case "pair":
      return e.seat === 0 ? fmt(gettext("You lay down a pair of %(ranks)s."), { ranks: ranksOf(e.rank) })
        : fmt(gettext("The opponent lays down a pair of %(ranks)s."), { ranks: ranksOf(e.rank) });
    case "pass":
      return e.seat === 0 ? gettext("You pass.") : gettext("The opponent passes.");
    case "end":
      return fmt(gettext("Game over: %(mine)s pairs to %(theirs)s."),
        { mine: e.outcome.counts[0], theirs: e.outcome.counts[1] });
    default:
      return "";
  }
}

export function historyText(entry) {
  const who = entry.seat === 0 ? gettext("You") : gettext("Opponent");
  const what = entry.given ? gettext("given") : entry.fished ? gettext("went fishing") : gettext("none");
  return fmt(gettext("%(who)s: %(rank)s — %(what)s"), { who, rank: rankLabel(entry.rank), what });
}

// A bucket: the pairs one side has laid on the table, by rank, in the order laid.
export const renderBucket = (node, ranks) => layRanks(node, ranks,
  (rank) => fmt(gettext("a pair of %(ranks)s"), { ranks: ranksOf(rank) }));
