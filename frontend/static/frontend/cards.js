// Cards as every game page writes them (the daily game, its replays, Kitten, Go Fish):
// a card is a rank and a suit letter ("10H"); the suit is shown as its symbol, the rank
// letter in the page's language. No DOM, no rules.
/* global pgettext */

export const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
// The deck's rank order, in which a hand's ranks are shown.
export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

export const rankOf = (card) => card.slice(0, -1);
export const suitOf = (card) => card.slice(-1);
export const withoutRank = (cards, rank) => cards.filter((card) => rankOf(card) !== rank);

// The letters of the court cards and the ace follow the language (V for valet, B for
// Bube); each page's catalogue holds them under the context "rank".
export function rankLabel(rank) {
  switch (rank) {
    case "A": return pgettext("rank", "A");
    case "J": return pgettext("rank", "J");
    case "Q": return pgettext("rank", "Q");
    case "K": return pgettext("rank", "K");
    default: return rank;
  }
}

// ``label`` writes the rank: the language's letter, or another page's choice (Kitten
// writes J♦ in every language, as its rules do).
export const cardLabel = (card, label = rankLabel) => label(rankOf(card)) + SUITS[suitOf(card)];
