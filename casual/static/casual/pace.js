// What the casual-game pages remember in the browser (no DOM, no rules): the player's
// pace, and what the page last showed of a game (status line, log) so that a reload
// shows it again. The server stores the game itself; this is only its presentation.

// Multipliers of each page's own durations; "instant" plays every event at once.
export const PACES = { slow: 1.8, normal: 1, fast: 0.3, instant: 0 };
export const DEFAULT_PACE = "normal";

const key = (game, what) => `casual:${game}:${what}`;

// localStorage can be missing or refuse writes (private windows, quota): the page then
// simply forgets, it never fails.
function read(name) {
  try {
    return JSON.parse(window.localStorage.getItem(name));
  } catch (_) {
    return null;
  }
}

function write(name, value) {
  try {
    window.localStorage.setItem(name, JSON.stringify(value));
  } catch (_) { /* forgotten: see read() */ }
}

export function loadPace(game) {
  const pace = read(key(game, "pace"));
  return Object.hasOwn(PACES, pace) ? pace : DEFAULT_PACE;
}

export function savePace(game, pace) {
  if (Object.hasOwn(PACES, pace)) write(key(game, "pace"), pace);
}

/** What the page showed after the server's move ``moves`` of game ``id``. */
export function remember(game, id, moves, shown) {
  write(key(game, "shown"), { id, moves, shown });
}

/** The remembered presentation of game ``id`` at ``moves``, or null (another game, or
 * the game moved on elsewhere since). */
export function recall(game, id, moves) {
  const saved = read(key(game, "shown"));
  return saved && saved.id === id && saved.moves === moves ? saved.shown : null;
}
