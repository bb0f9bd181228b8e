// Every HTTP call of the casual-game pages, on top of the site's one HTTP module
// (frontend/api.js: JSON in and out, ApiError with .code and .status). No DOM, no rules.
import { ApiError, getJSON, postJSON } from "../frontend/api.js";
// Every casual page shows the site's rate-limit notice: a 429 is waited out and retried
// by frontend/api.js, and this says so (the only DOM this module brings, by import).
import "../frontend/wait.js";

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
