// Every HTTP call of the casual-game pages, on top of the site's one HTTP module
// (frontend/api.js: JSON in and out, ApiError with .code and .status). No DOM, no rules.
import { ApiError, getJSON, postJSON } from "../frontend/api.js";
import { createSession } from "../frontend/session.js";

export { ApiError };

// No account needed: the server keeps a browser's games in its session (no player, no name).
export const casualHome = (game) => getJSON(`/api/casual/${game}`);
export const casualCreate = (game, options) => postJSON(`/api/casual/${game}/games`, options || {});
// `play` is the engine's move; `move` is the number of moves made (the view's `move`),
// as in the daily API: a stale number is a 409 `stale_move`.
export const casualMove = (game, id, play, move) =>
  postJSON(`/api/casual/${game}/games/${id}/moves`, { play, move });
export const casualFinish = (game, id, move) =>
  postJSON(`/api/casual/${game}/games/${id}/finish`, { move });

// A stale move (409) or a game gone (404): the page catches up with its current game.
export const isStale = (err) => err instanceof ApiError && (err.status === 409 || err.status === 404);
// ``start``: the browser's current game (or none) and its tally.
export const casualSession = (game) => createSession({
  start: () => casualHome(game),
  send: (current, play) => casualMove(game, current.id, play, current.moves),
  reload: () => casualHome(game),
  stale: isStale,
});
