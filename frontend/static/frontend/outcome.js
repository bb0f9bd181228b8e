// A finished game's outcome (games/rules/events.py Outcome, the same fields in every game):
// `winners` are the seats that won, several of them sharing the win (a draw).

/** "win", "loss" or "draw" (a shared win) for `seat`. */
export function sideOf(outcome, seat = 0) {
  if (!outcome.winners.includes(seat)) return "loss";
  return outcome.winners.length === 1 ? "win" : "draw";
}
