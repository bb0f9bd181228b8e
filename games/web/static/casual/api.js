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
export const casualMove = (game, id, move, expected) =>
  postJSON(`/api/casual/${game}/games/${id}/moves`, { move, expected });
export const casualFinish = (game, id, expected) =>
  postJSON(`/api/casual/${game}/games/${id}/finish`, { expected });
