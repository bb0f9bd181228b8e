// Kitten fishing page: wires input to the server (api.js), keeps state (state.js) and
// draws it (render.js). The server plays every flip; this file only paces the events.
import * as api from "../casual/api.js";
import * as S from "./state.js";
const { gettext, ngettext } = window;
import { cardLabel, elements, endTexts, fmt, render, flyBack, flipIn, slideTaken, finishAll } from "./render.js";

const root = document.getElementById("kitten");
const GAME = root.dataset.game;
const els = elements(root);
const state = S.createState();

// Durations (ms): data attributes, overridable with window.KITTEN_TIMING (tests).
const timing = {};
for (const name of ["deal", "flip", "highlight", "slide", "opponent", "auto"]) {
  timing[name] = Number(root.dataset[`${name}Ms`]) || 0;
}
Object.assign(timing, window.KITTEN_TIMING || {});

const draw = () => render(state, els);

// --- waits ---------------------------------------------------------------------------
// Animation waits end early when the animation is finished by a tap or key; plain waits
// (Kitten thinking, Auto's pause) end early only when the game is interrupted.
let fast = false;
const skippers = new Set();
const cancels = new Set();

function wait(ms, set) {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); set.delete(done); resolve(); };
    const timer = setTimeout(done, ms);
    set.add(done);
  });
}
const animWait = (ms) => (fast ? Promise.resolve() : wait(ms, skippers));
const plainWait = (ms) => wait(ms, cancels);

function finishAnimation() {
  fast = true;
  finishAll();
  for (const done of [...skippers]) done();
}

function interrupt() {
  state.gen += 1;
  finishAnimation();
  for (const done of [...cancels]) done();
}

async function animation(body) {
  state.animating = true;
  fast = false;
  draw();
  try {
    await body();
  } finally {
    state.animating = false;
    fast = false;
  }
}

// --- messages ------------------------------------------------------------------------
function eventMessage(event) {
  const cap = event.capture;
  const you = event.seat === 0;
  if (!cap) return fmt(you ? gettext("You flipped %(card)s") : gettext("Kitten flipped %(card)s"), { card: cardLabel(event.card) });
  const n = cap.taken.length;
  const msg = cap.kind === "jack"
    ? (you ? ngettext("Jack sweep! You take %(n)s card", "Jack sweep! You take %(n)s cards", n)
      : ngettext("Jack sweep! Kitten takes %(n)s card", "Jack sweep! Kitten takes %(n)s cards", n))
    : (you ? ngettext("Fished! You take %(n)s card", "Fished! You take %(n)s cards", n)
      : ngettext("Fished! Kitten takes %(n)s card", "Fished! Kitten takes %(n)s cards", n));
  return fmt(msg, { n });
}

// --- playing events from the server --------------------------------------------------
async function animateFlip(event, gen) {
  await animation(async () => {
    S.showFlip(state, event);
    draw();
    await Promise.all([flipIn(els, fast ? 0 : timing.flip), animWait(timing.flip)]);
    if (event.capture && gen === state.gen) {
      S.highlightCapture(state, event);
      S.setStatus(state, eventMessage(event));
      draw();
      await animWait(timing.highlight);
      const start = event.capture.kind === "fish" ? event.capture.match_index : 0;
      if (!fast && gen === state.gen) {
        await Promise.all([slideTaken(els, start, event.seat, timing.slide), animWait(timing.slide)]);
      }
    }
  });
  if (gen !== state.gen) return;
  S.showAfter(state, event);
  if (!event.capture) S.setStatus(state, eventMessage(event));
  draw();
}

async function playEvents(events, gen) {
  for (const event of events) {
    if (gen !== state.gen) return false;
    if (event.type !== "flip") continue;
    if (event.seat === 1) {
      state.phase = "opponent";
      state.shown.turn = "opponent";
      draw();
      await plainWait(timing.opponent);
      if (gen !== state.gen) return false;
    }
    await animateFlip(event, gen);
  }
  return gen === state.gen;
}

function settle(game) {
  S.setGame(state, game);
  S.showView(state, game.view);
  state.phase = game.status === "playing" ? "idle" : "over";
  state.hint = state.phase === "idle" && game.number === 1 && game.moves === 0;
  draw();
  if (state.phase === "over") {
    const { title, reason } = endTexts(game.view.outcome);
    S.setStatus(state, `${title} ${reason}`);
    draw();
    els.end.focus({ preventScroll: false });
  } else {
    scheduleAuto();
  }
}

async function scheduleAuto() {
  const gen = state.gen;
  if (!state.auto || state.phase !== "idle") return;
  await plainWait(timing.auto);
  if (gen === state.gen && state.auto && state.phase === "idle" && !state.animating) flip();
}

// --- server calls --------------------------------------------------------------------
let pending = Promise.resolve();

async function resync() {
  const home = await api.casualHome(GAME);
  state.tally = home.tally;
  if (home.current) settle(home.current);
  else await newGame();
}

function failed(error) {
  if (error instanceof api.ApiError && (error.status === 409 || error.status === 404)) {
    interrupt();
    return resync();
  }
  S.setStatus(state, gettext("Could not reach the server. Try again."));
  state.phase = state.game && state.game.status === "playing" ? "idle" : state.phase;
  draw();
  return undefined;
}

async function flip() {
  const game = state.game;
  if (!game || game.status !== "playing") return;
  const gen = state.gen;
  state.phase = "busy";
  state.hint = false;
  draw();
  let response;
  pending = api.casualMove(GAME, game.id, "flip", game.moves);
  try {
    response = await pending;
  } catch (error) {
    await failed(error);
    return;
  }
  if (gen !== state.gen) return;
  state.game = response;  // the tally and the end panel wait for settle()
  if (await playEvents(response.events, gen)) settle(response);
}

async function deal(first, gen) {
  state.dealing = true;
  state.phase = "dealing";
  S.showEmptyDeal(state, first);
  S.setStatus(state, gettext("Dealing…"));
  await animation(async () => {
    for (let i = 0; i < 52 && gen === state.gen; i++) {
      S.dealOne(state, i);
      draw();
      if (!fast) flyBack(els, i % 2, Math.min(300, timing.deal / 4));
      await animWait(timing.deal / 52);
    }
  });
  state.dealing = false;
  if (gen === state.gen) {
    state.shown.piles = [26, 26];
    S.setStatus(state, "");
    draw();
  }
}

async function newGame() {
  interrupt();
  const gen = state.gen;
  state.phase = "busy";
  let game;
  try {
    game = await api.casualCreate(GAME);
  } catch (error) {
    await failed(error);
    return;
  }
  if (gen !== state.gen) return;
  S.setGame(state, game);
  await deal(game.view.first, gen);
  if (gen !== state.gen) return;
  if (game.view.first === "opponent") S.setStatus(state, gettext("In this game, the opponent flips first"));
  draw();
  if (await playEvents(game.events, gen)) {
    settle(game);
    if (game.view.first === "opponent" && !game.events.some((e) => e.capture)) {
      S.setStatus(state, gettext("In this game, the opponent flips first"));
      draw();
    }
  }
}

async function seeResult() {
  const game = state.game;
  if (!game || game.status !== "playing") return;
  if (!(await confirmDialog(gettext("See the result now? The remaining cards are flipped at once.")))) return;
  interrupt();
  await pending.catch(() => undefined);
  const gen = state.gen;
  state.phase = "busy";
  draw();
  try {
    const response = await api.casualFinish(GAME, state.game.id, state.game.moves);
    if (gen === state.gen) settle(response);
  } catch (error) {
    await failed(error);
  }
}

async function askNewGame() {
  const playing = state.game && state.game.status === "playing";
  if (playing && !(await confirmDialog(gettext("Start a new game? This game will be abandoned.")))) return;
  await newGame();
}

// --- confirmation dialog -------------------------------------------------------------
function confirmDialog(text) {
  return new Promise((resolve) => {
    els.dialogText.textContent = text;
    els.dialog.returnValue = "";
    els.dialog.addEventListener("close", () => resolve(els.dialog.returnValue === "ok"), { once: true });
    els.dialog.showModal();
    els.dialog.querySelector("#kt-confirm-ok").focus();
  });
}

// --- input ---------------------------------------------------------------------------
function flipRequest() {
  if (state.animating) { finishAnimation(); return; }
  if (state.phase === "opponent") {
    S.setStatus(state, gettext("Wait for the opponent"));
    draw();
    return;
  }
  if (state.phase === "idle") flip();
}

// During an animation any tap or key in the game only finishes it (capture phase, so
// the button under the finger does nothing else).
root.addEventListener("click", (e) => {
  if (!state.animating || els.dialog.open) return;
  e.preventDefault();
  e.stopPropagation();
  finishAnimation();
}, true);

document.addEventListener("keydown", (e) => {
  if (els.dialog.open || e.ctrlKey || e.metaKey || e.altKey) return;
  if (state.animating) {
    if (["Tab", "Shift", "Control", "Alt", "Meta"].includes(e.key)) return;
    e.preventDefault();
    e.stopPropagation();
    finishAnimation();
    return;
  }
  if (e.key !== " " && e.key !== "Enter") return;
  const target = e.target;
  const own = target === document.body || target === els.piles[0] || target === els.flip
    || target === els.board || target === root;
  if (!own) return; // Enter/Space on another control activates that control
  e.preventDefault();
  if (!e.repeat) flipRequest();
}, true);

els.piles[0].addEventListener("click", flipRequest);
els.flip.addEventListener("click", flipRequest);
els.auto.addEventListener("click", () => {
  state.auto = !state.auto;
  draw();
  scheduleAuto();
});
els.result.addEventListener("click", seeResult);
els.newGame.addEventListener("click", askNewGame);
els.replay.addEventListener("click", newGame);

if (document.fullscreenEnabled) {
  els.fullscreen.hidden = false;
  els.fullscreen.addEventListener("click", () => {
    if (document.fullscreenElement) document.exitFullscreen();
    else document.documentElement.requestFullscreen().catch(() => undefined);
  });
  document.addEventListener("fullscreenchange", () => {
    els.fullscreen.setAttribute("aria-pressed", String(Boolean(document.fullscreenElement)));
  });
}

// --- start: resume the server's game (autosave) or deal a new one ---------------------
async function start() {
  draw();
  try {
    if (root.dataset.player !== "yes") await api.createGuest();
    await resync();
  } catch (error) {
    await failed(error);
  }
}
start();
