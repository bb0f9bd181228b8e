// Entry module of the daily page: loads the player, the challenge and the attempt,
// sends asks, plays the returned events out one by one, polls the verification.
/* global gettext */
import { getJSON, postJSON } from "./api.js";
import * as S from "./state.js";
import { mount, render } from "./render.js";

const root = document.getElementById("daily");
const config = {
  date: root.dataset.date,
  stepMs: Number(window.PECHE_STEP_MS ?? root.dataset.stepMs ?? 400),
  pollMs: Number(window.PECHE_POLL_MS ?? root.dataset.pollMs ?? 1000),
};
const state = S.createState(config);
const draw = () => render(root, state);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const MESSAGES = {
  bad_name: () => gettext("That name cannot be used. Try letters and digits."),
  name_taken: () => gettext("This name is already taken."),
  network: () => gettext("The server cannot be reached. Try again."),
};
function fail(err) {
  const message = MESSAGES[err.code];
  S.setError(state, message ? message() : gettext("Something went wrong.") + " (" + (err.code || err) + ")");
  S.setBusy(state, false);
  draw();
}

async function loadAttempt() {
  const view = await postJSON(`/api/challenges/${config.date}/attempt`);
  S.setView(state, view);
  draw();
  pollVerification();
}

async function start() {
  try {
    const [challenge, today] = await Promise.all([
      getJSON(`/api/challenges/${config.date}`),
      config.date === "today" ? null : getJSON("/api/challenges/today"),
    ]);
    S.setChallenge(state, challenge);
    S.setNextDeal(state, (today || challenge).closes_at);
    // The page says who is logged in: asking /api/players/me would log a 401 for guests.
    const player = JSON.parse(document.getElementById("player-data").textContent);
    S.setPlayer(state, player);
    if (!player) {
      draw();
      return;
    }
    await loadAttempt();
  } catch (err) {
    fail(err);
  }
}

async function onName(name) {
  if (!name || state.busy) return;
  S.setBusy(state, true);
  S.setError(state, null);
  try {
    S.setPlayer(state, await postJSON("/api/players", { name }));
    S.setBusy(state, false);
    await loadAttempt();
  } catch (err) {
    fail(err);
  }
}

async function onAsk(rank) {
  const v = state.view;
  if (state.busy || !v || v.over || v.turn !== "player") return;
  S.setBusy(state, true);
  S.setError(state, null);
  draw();
  let next;
  try {
    next = await postJSON(`/api/attempts/${v.id}/asks`, { rank, move: v.move });
  } catch (err) {
    // day_closed: the close notice says it, with the way on as practice.
    if (err.code === "day_closed") S.setBusy(state, false); else fail(err);
    if (err.code === "stale_move" || err.code === "game_over" || err.code === "day_closed") {
      S.setView(state, await getJSON(`/api/attempts/${v.id}`));
      draw();
    }
    return;
  }
  S.beginPlayback(state, next);
  for (const [i, event] of next.events.entries()) {
    S.revealEvent(state, event);
    draw();
    // Step by step: the player's own result first, then each of the opponent's moves.
    if (i < next.events.length - 1 && config.stepMs > 0) await sleep(config.stepMs);
  }
  S.endPlayback(state, next);
  draw();
  pollVerification();
}

let polling = false;
async function pollVerification() {
  if (polling) return;
  polling = true;
  try {
    while (state.view && state.view.over && state.view.status === "verifying") {
      await sleep(config.pollMs);
      S.setView(state, await getJSON(`/api/attempts/${state.view.id}`));
      draw();
    }
  } catch (err) {
    fail(err);
  } finally {
    polling = false;
  }
}

async function onShare(text) {
  try {
    if (navigator.share) {
      await navigator.share({ text });
      S.setShared(state, "shared");
    } else {
      await navigator.clipboard.writeText(text);
      S.setShared(state, "copied");
    }
  } catch (err) {
    if (err && err.name === "AbortError") return;
    S.setShared(state, "select");  // last resort: the text is selected for a manual copy
  }
  draw();
}

async function onAgain() {
  S.setView(state, await postJSON(`/api/challenges/${config.date}/attempt`));
  state.announcements.length = 0;
  draw();
}

mount(root, {
  onName,
  onAsk,
  onShare,
  onAgain,
  onFocus: (i) => S.setFocus(state, i),
  onMove: (delta) => {
    S.moveFocus(state, delta);
    draw();
  },
});
// Counting down: the next deal once over, the close in a ranked game's last minutes
// (and one more draw when that count ends, to say the game no longer counts).
let counting = false;
setInterval(() => {
  S.tick(state, Date.now());
  const v = state.view;
  const counts = Boolean(v && (v.over || S.closing(state)));
  if (v && !state.busy && (counts || counting)) draw();
  counting = counts;
}, 1000);
start();
