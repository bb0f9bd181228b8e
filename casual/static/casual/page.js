// A casual page opens (or catches up) with the stored game and what it last showed of it.
import { casualSession } from "./api.js";
import { recall } from "./pace.js";

export function casualPage(game, { draw, setTally, show, none, fail }) {
  const session = casualSession(game);
  async function resync(home = null) {  // ``home``: a stale move's answer brings it
    if (!home) home = await session.start();
    setTally(home.tally);
    if (home.current) await show(home.current, recall(game, home.current.id, home.current.moves));
    else await none();
  }
  async function start() {
    draw();
    try {
      await resync();
    } catch (error) {
      await fail(error);
    }
  }
  return { session, resync, start };
}
