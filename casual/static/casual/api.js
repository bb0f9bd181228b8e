// Every HTTP call of the casual-game pages, on top of the site's one HTTP module
// (frontend/api.js: JSON in and out, ApiError with .code and .status). No DOM, no rules.
import { ApiError, getJSON, postJSON } from "../frontend/api.js";
import { createSession } from "../frontend/session.js";

export { ApiError };

// A game comes flat, as every stored game (challenges/play.py GameView); the pages
// read the engine's part as `view`, the moves made as `moves`, `events` always a list.
const OWN = ["id", "status", "move", "result", "number", "tally", "events"];
export function pageGame(g) {
  if (!g) return g;
  const view = { ...g };
  for (const k of OWN) delete view[k];
  return { ...g, moves: g.move, view, events: g.events || [] };
}
const post = async (url, body) => pageGame(await postJSON(url, body));

// No account needed: the server keeps a browser's games in its session (no player, no name).
export const casualHome = (game) => getJSON(`/api/casual/${game}`).then((h) => ({ ...h, current: pageGame(h.current) }));
export const casualCreate = (game, options) => post(`/api/casual/${game}/games`, options || {});
// `play` is the engine's move; `move` is the number of moves made (the view's `move`),
// as in the daily API: a stale number is a 409 `stale_move`.
export const casualMove = (game, id, play, move) => post(`/api/casual/${game}/games/${id}/moves`, { play, move });
export const casualFinish = (game, id, move) => post(`/api/casual/${game}/games/${id}/finish`, { move });

// A stale move (409) or a game gone (404): the page catches up with its current game.
export const isStale = (err) => err instanceof ApiError && (err.status === 409 || err.status === 404);
// ``start``: the browser's current game (or none) and its tally.
export const casualSession = (game) => createSession({
  start: () => casualHome(game),
  send: (current, play) => casualMove(game, current.id, play, current.moves),
  reload: () => casualHome(game),
  stale: isStale,
});
