// Entry module of the daily page: loads the player, the challenge and the attempt,
// sends asks (over the game's WebSocket, or HTTP when it is not open: socket.js), plays
// the returned events out one by one, polls the verification.
/* global gettext */
import { getJSON, postJSON } from "./api.js";
import { createSession } from "./session.js";
import { createAskChannel } from "./socket.js";
import { setField } from "./mutators.js";
import * as S from "./state.js";
import { mount, render } from "./render.js";
import { createPlayback, finishOnInput } from "./playback.js";
import { DEFAULT_PACE, PACES, loadPace, savePace } from "../casual/pace.js";

const root = document.getElementById("daily");
// The pause between two events at the normal pace; the player's pace multiplies it (the
// casual games' paces: slow, normal, fast, instant), a test's PECHE_STEP_MS replaces it.
const baseStepMs = Number(root.dataset.stepMs ?? 400);
const config = {
  date: root.dataset.date,
  stepMs: 0,
  pollMs: Number(window.PECHE_POLL_MS ?? root.dataset.pollMs ?? 1000),
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const playback = createPlayback();
let flightMs = 0;
function setPace(pace) {
  config.stepMs = window.PECHE_STEP_MS ?? baseStepMs * (PACES[pace] ?? PACES[DEFAULT_PACE]);
  // A card flies for most of the pause between two events, within what the eye follows.
  flightMs = config.stepMs ? Math.min(700, Math.max(120, config.stepMs * 0.8)) : 0;
}
const pace = loadPace("daily");
setPace(pace);
const state = S.createState(config);
const draw = () => render(root, state);

// The first visit shows what the game is before anything is asked; dismissed once,
// remembered in this browser (nothing is stored if the browser refuses).
const RULES_SEEN = "peche:rules-seen";
function rulesSeen() {
  try {
    return window.localStorage.getItem(RULES_SEEN) === "1";
  } catch (_) {
    return false;
  }
}
function onRulesOk() {
  try {
    window.localStorage.setItem(RULES_SEEN, "1");
  } catch (_) { /* shown again next time: no harm */ }
  S.setRulesCard(state, false);
  draw();
}

// The errors the page says its own way; every other code of the API in errors.js's words,
// loaded only when one comes (the page's weight is the game's).
const MESSAGES = {
  network: () => gettext("The server cannot be reached. Try again."),
  not_authenticated: () => gettext("You are no longer signed in: reload the page to play."),
  not_found: () => gettext("This game cannot be found: reload the page."),
  illegal_ask: () => gettext("You no longer hold that rank: the game has moved on."),
  bad_move: () => gettext("That is not a rank of your hand."),
};
async function fail(err) {
  const own = MESSAGES[err.code];
  let said = own && own(err);
  if (!said) said = await import("./errors.js").then((m) => m.errorSentence(err), () => null);
  if (!said) console.warn("unexpected error", err.code, err.message);
  S.setError(state, said || (err.status >= 500
    ? gettext("The server had a problem. Try again in a moment.") : gettext("Something went wrong. Reload the page.")));
  S.setBusy(state, false);
  draw();
}

// Another tab (or a retry) moved this game on, or the day closed: the page catches up
// with the server's view and says so in words (or not at all).
const CATCH_UP = {
  stale_move: () => gettext("This game moved on in another tab: here it is as it stands now."),
  game_over: () => gettext("This game is already over."),
  illegal_ask: () => null,
  day_closed: () => null,
};
const reload = (v) => getJSON(`/api/attempts/${v.id}`);
const asks = createAskChannel({
  http: (v, rank) => postJSON(`/api/attempts/${v.id}/asks`, { rank, move: v.move }),
  reload,
});
const session = createSession({
  start: () => postJSON(`/api/challenges/${config.date}/attempt`),
  send: (v, rank) => asks.ask(v, rank),
  reload,
  stale: (err) => Object.hasOwn(CATCH_UP, err.code),
});

// ``open``: today's ranked game starts on Start (or the name), a started one is read.
async function loadAttempt(open = session.start) {
  const view = await open();
  S.setReady(state, false);
  S.setView(state, view);
  asks.follow(view);
  draw();
  pollVerification();
  loadStats();
}

// A verified ranked game: where it stands today (rank of how many, top share, streak)
// and the day's histogram. Asked once per page; a failure only leaves them out.
let statsAsked = false;
async function loadStats() {
  const v = state.view;
  if (statsAsked || !v || !v.ranked || v.status !== "verified" || !v.result) return;
  statsAsked = true;
  try {
    const [stats, histogram] = await Promise.all([
      getJSON(`/api/leaderboard/${v.date}/me`),
      getJSON(`/api/leaderboard/${v.date}/histogram`),
    ]);
    S.setStats(state, stats, histogram.bins);
  } catch (err) {
    console.warn("no standing for this game", err.code);
    return;
  }
  if (!state.busy) draw();
  loadAnalysis();
  // Your place in each of your leagues today (the end panel's list; none: no list).
  getJSON(`/api/leagues/places/${v.date}`).then((answer) => {
    setLeaguePlaces(state, answer.places);
    if (!state.busy) draw();
  }, (err) => console.warn("no league places", err.code));
}
const setLeaguePlaces = setField("leaguePlaces");

// A closed day's ranked game: its accuracy and the day's par (202 while a worker works it out).
let analysisAsked = false;
async function loadAnalysis(v = state.view) {
  if (analysisAsked || !v?.ranked || !v.result || !(Date.parse(state.challenge?.reveals_at) <= Date.now())) return;
  analysisAsked = true;
  for (let i = 0; i < 20; i += 1) {
    const url = `/api/attempts/${v.id}/analysis`; // asked for once, then read while it is worked out
    const found = await (i === 0 ? postJSON(url) : getJSON(url)).catch(() => null);
    if (found?.asks) setAnalysis(state, found);
    if (!found || found.asks) return state.busy || draw();
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
}
const setAnalysis = setField("analysis");

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
    S.setRulesCard(state, !rulesSeen());
    if (!player) {
      draw();
      return;
    }
    const started = root.dataset.attempt;
    if (config.date !== "today") await loadAttempt();
    else if (started) await loadAttempt(() => getJSON(`/api/attempts/${started}`));
    else {
      // Looking is not playing: the day's one ranked game waits for the Start button.
      S.setReady(state, true);
      draw();
    }
  } catch (err) {
    fail(err);
  }
}

async function onStart() {
  if (state.busy) return;
  S.setBusy(state, true);
  S.setError(state, null);
  draw();
  try {
    const view = await session.start();
    S.setBusy(state, false);
    await loadAttempt(() => view);
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
  let played;
  try {
    played = await session.play(v, rank);
  } catch (err) {
    return fail(err);
  }
  const next = played.game;
  asks.follow(next);
  if (played.stale) {
    S.setView(state, next);
    S.setBusy(state, false);
    S.setNotice(state, CATCH_UP[played.stale.code]());
    draw();
    return;
  }
  S.setNotice(state, null);
  S.beginPlayback(state, next);
  // Step by step: the player's own result first, then each of the opponent's moves
  // (a key or a tap shows the rest at once).
  await playback.play(next.events, async (event, i) => {
    S.revealEvent(state, event, playback.motion(flightMs));
    draw();
    if (i < next.events.length - 1) await playback.pause(config.stepMs);
  });
  S.endPlayback(state, next);
  draw();
  pollVerification();
  loadStats();
}

// A key or a tap while the cards move finishes the motion and the playback; it never asks.
// A tap anywhere on the page counts: the whole page is the table here.
finishOnInput(document, playback, { active: () => Boolean(state.busy && state.pending) });

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
    loadStats();
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
  try {
    S.setView(state, await session.start());
  } catch (err) {
    return fail(err);
  }
  asks.follow(state.view);
  draw();
}

mount(root, {
  pace,
  onPace: (chosen) => {
    savePace("daily", chosen);
    setPace(chosen);
  },
  onRulesOk,
  onName,
  onStart,
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
  if (v && v.over && state.stats) loadAnalysis();  // the day closes with the end panel open
  const counts = Boolean(v && (v.over || S.closing(state)));
  if (v && !state.busy && (counts || counting)) draw();
  counting = counts;
}, 1000);
start();
