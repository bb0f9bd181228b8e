// The spoiler-free share of a finished daily game: the date, the score, one square per
// ask of the player in order, then rank and percentile and the link. No card, no rank of
// the deal is named: a friend who has not played today learns nothing of the deal.
/* global gettext */
import { fmt, percentText } from "./dom.js";

export const SQUARES = { given: "🟩", caught: "🟦", fish: "⬜" };
const PER_LINE = 10;

/** One square per ask of the player (seat 0): 🟩 the opponent gave the rank, 🟦 a go fish
 * that drew the rank asked for, ⬜ any other go fish. */
export function askSquares(history) {
  return history.filter((h) => h.seat === 0)
    .map((h) => (h.given ? SQUARES.given : h.caught ? SQUARES.caught : SQUARES.fish));
}

/** The share text: ``stats`` is the day's /me answer once known (rank, players, percentile). */
export function shareText({ date, score, history, stats, url }) {
  const squares = askSquares(history);
  const rows = [];
  for (let i = 0; i < squares.length; i += PER_LINE) rows.push(squares.slice(i, i + PER_LINE).join(""));
  const lines = [fmt(gettext("Pêche %(date)s: %(score)s points"), { date, score }), ...rows];
  if (stats && stats.rank) {
    let standing = fmt(gettext("Rank %(rank)s of %(players)s"), { rank: stats.rank, players: stats.players });
    if (stats.percentile !== null && stats.percentile !== undefined) {
      standing += " · " + fmt(gettext("better than %(percent)s % of players"), { percent: percentText(stats.percentile) });
    }
    lines.push(standing);
  }
  lines.push(url);
  return lines.join("\n");
}
