// Every HTTP call of the casual-game pages, on top of the site's one HTTP module
// (frontend/api.js: JSON in and out, ApiError with .code and .status). No DOM, no rules.
import { ApiError, getJSON, postJSON } from "../frontend/api.js";

export { ApiError };

// No account needed: the server keeps a browser's games in its session (no player, no name).
export const casualHome = (game) => getJSON(`/api/casual/${game}`);
export const casualCreate = (game, options) => postJSON(`/api/casual/${game}/games`, options || {});
export const casualMove = (game, id, move, expected) =>
  postJSON(`/api/casual/${game}/games/${id}/moves`, { move, expected });
export const casualFinish = (game, id, expected) =>
  postJSON(`/api/casual/${game}/games/${id}/finish`, { expected });
