// The spoiler-free share of a finished daily game: the date, the score, one square per
// ask of the player in order, then rank, top share and the link. No card, no rank of
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

/** A ranked game's standing, said as the win it is: rank 1 is "first" (a lone player's top
 * 100 % would undersell it), else the API's top_percent; nothing when that is 100 (the rank
 * says it). ``short``: the share's words. */
export function standingWords(stats, short = false) {
  if (!stats || !stats.rank || stats.top_percent == null || (stats.rank > 1 && stats.top_percent >= 100)) return "";
  if (stats.rank === 1) return short ? "" : gettext("First of today's players.");
  const values = { percent: percentText(stats.top_percent) };
  return short ? fmt(gettext("top %(percent)s %"), values)
    : fmt(gettext("In the top %(percent)s % of today's players."), values);
}

/** The share text: ``stats`` is the day's /me answer once known (rank, players, top_percent). */
export function shareText({ date, score, history, stats, url }) {
  const squares = askSquares(history);
  const rows = [];
  for (let i = 0; i < squares.length; i += PER_LINE) rows.push(squares.slice(i, i + PER_LINE).join(""));
  const lines = [fmt(gettext("Pêche %(date)s: %(score)s points"), { date, score }), ...rows];
  if (stats && stats.rank) {
    const share = standingWords(stats, true);
    lines.push(fmt(gettext("Rank %(rank)s of %(players)s"), { rank: stats.rank, players: stats.players })
      + (share ? " · " + share : ""));
  }
  lines.push(url);
  return lines.join("\n");
}
