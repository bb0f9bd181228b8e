// A stored game takes a move, on every game page: the move goes with the number of
// moves the page has seen; when another tab moved the game on (or it is gone) the page
// catches up with the stored game instead of failing. wait.js says a 429's wait.
import { ApiError } from "./api.js";
import "./wait.js";

// play() resolves {game, stale}: ``stale`` is the refusal that ``reload`` caught up from.
export function createSession({ start, send, reload, stale }) {
  return {
    start,
    async play(game, move) {
      try {
        return { game: await send(game, move), stale: null };
      } catch (err) {
        if (!(err instanceof ApiError) || !stale(err)) throw err;
        return { game: await reload(game), stale: err };
      }
    },
  };
}
