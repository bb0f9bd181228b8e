// Kitten fishing page: wires input to the server (api.js), keeps state (state.js) and
// draws it (render.js). The server plays every flip; this file only paces the events.
import * as api from "../casual/api.js";
import * as S from "./state.js";
import { PACES, loadPace, recall, remember, savePace } from "../casual/pace.js";
import { cardLabel, elements, endTexts, fmt, render, flyBack, flipIn, slideTaken, finishAll } from "./render.js";

// Every message from this game's own catalogue (context "kitten"): the site's other
// catalogues hold the same English words in another register.
const { npgettext, pgettext } = window;

const root = document.getElementById("kitten");
const GAME = root.dataset.game;
const els = elements(root);
const state = S.createState();

// Durations (ms) at the normal pace: data attributes, overridable with
// window.KITTEN_TIMING (tests). The player's pace scales them all.
const base = {};
for (const name of ["deal", "flip", "highlight", "slide", "opponent", "auto"]) {
  base[name] = Number(root.dataset[`${name}Ms`]) || 0;
}
Object.assign(base, window.KITTEN_TIMING || {});
state.pace = loadPace(GAME);
const timing = new Proxy(base, { get: (t, name) => t[name] * PACES[state.pace] });

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
  if (!cap) {
    return fmt(you ? pgettext("kitten", "You flipped %(card)s") : pgettext("kitten", "Kitten flipped %(card)s"),
      { card: cardLabel(event.card) });
  }
  const n = cap.taken.length;
  const msg = cap.kind === "jack"
    ? (you ? npgettext("kitten", "Jack sweep! You take %(n)s card", "Jack sweep! You take %(n)s cards", n)
      : npgettext("kitten", "Jack sweep! Kitten takes %(n)s card", "Jack sweep! Kitten takes %(n)s cards", n))
    : (you ? npgettext("kitten", "Fished! You take %(n)s card", "Fished! You take %(n)s cards", n)
      : npgettext("kitten", "Fished! Kitten takes %(n)s card", "Fished! Kitten takes %(n)s cards", n));
  return fmt(msg, { n });
}

const opponentFirst = () => pgettext("kitten", "In this game, the opponent flips first");

// The status line once a response has been played out: the end, else its last flip
// (a new game opened by Kitten says so unless that flip took cards). Remembered with
// the response, so that a reload — even in the middle of the animation — shows it.
function finalStatus(game) {
  if (game.status !== "playing") return endTexts(game.view.outcome).status;
  const flips = game.events.filter((e) => e.type === "flip");
  const last = flips[flips.length - 1];
  if (game.moves <= 1 && game.view.first === "opponent" && !(last && last.capture)) return opponentFirst();
  return last ? eventMessage(last) : "";
}

function rememberShown(game) {
  remember(GAME, game.id, game.moves, { status: finalStatus(game) });
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
    S.setStatus(state, endTexts(game.view.outcome).status);
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
  if (home.current) {
    const shown = recall(GAME, home.current.id, home.current.moves);
    S.setStatus(state, shown ? shown.status : "");
    settle(home.current);
  } else {
    await newGame();
  }
}

function failed(error) {
  if (error instanceof api.ApiError && (error.status === 409 || error.status === 404)) {
    interrupt();
    return resync();
  }
  S.setStatus(state, pgettext("kitten", "Could not reach the server. Try again."));
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
  rememberShown(response);
  if (gen !== state.gen) return;
  state.game = response;  // the tally and the end panel wait for settle()
  if (await playEvents(response.events, gen)) settle(response);
}

async function deal(first, gen) {
  state.dealing = true;
  state.phase = "dealing";
  S.showEmptyDeal(state, first);
  S.setStatus(state, pgettext("kitten", "Dealing…"));
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
  rememberShown(game);
  if (gen !== state.gen) return;
  S.setGame(state, game);
  await deal(game.view.first, gen);
  if (gen !== state.gen) return;
  if (game.view.first === "opponent") S.setStatus(state, opponentFirst());
  draw();
  if (await playEvents(game.events, gen)) {
    settle(game);
    S.setStatus(state, finalStatus(game));
    draw();
  }
}

async function seeResult() {
  const game = state.game;
  if (!game || game.status !== "playing") return;
  if (!(await confirmDialog(pgettext("kitten", "See the result now? The remaining cards are flipped at once.")))) return;
  interrupt();
  await pending.catch(() => undefined);
  const gen = state.gen;
  state.phase = "busy";
  draw();
  try {
    const response = await api.casualFinish(GAME, state.game.id, state.game.moves);
    rememberShown(response);
    if (gen === state.gen) settle(response);
  } catch (error) {
    await failed(error);
  }
}

async function askNewGame() {
  const playing = state.game && state.game.status === "playing";
  if (playing && !(await confirmDialog(pgettext("kitten", "Start a new game? This game will be abandoned.")))) return;
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
    S.setStatus(state, pgettext("kitten", "Wait for the opponent"));
    draw();
    return;
  }
  if (state.phase === "idle") flip();
}

// The seed's rule: during an animation a tap or key on the table only finishes it (no
// card is flipped too many); a control button always does what it says at once, and
// finishes the animation as well. Flip and the pile are the table's own "flip" input.
const CONTROL = ".kt-controls button:not(#kt-flip), #kt-skip, .kt-end button, .kt-pace select";
const isControl = (target) => target instanceof Element && Boolean(target.closest(CONTROL));

root.addEventListener("click", (e) => {
  if (!state.animating || els.dialog.open || isControl(e.target)) return;
  e.preventDefault();
  e.stopPropagation();
  finishAnimation();
}, true);

document.addEventListener("keydown", (e) => {
  if (els.dialog.open || e.ctrlKey || e.metaKey || e.altKey) return;
  if (["Tab", "Shift", "Control", "Alt", "Meta"].includes(e.key)) return;
  if (isControl(e.target)) {
    // Enter/Space (and the select's own keys) reach the control: it acts on them.
    if (state.animating) finishAnimation();
    return;
  }
  if (state.animating) {
    e.preventDefault();
    e.stopPropagation();
    finishAnimation();
    return;
  }
  if (e.key !== " " && e.key !== "Enter") return;
  const target = e.target;
  const own = target === document.body || target === els.piles[0] || target === els.flip
    || target === els.board || target === root;
  if (!own) return; // Enter/Space on another element (a link) activates it
  e.preventDefault();
  if (!e.repeat) flipRequest();
}, true);

// Every control first finishes what is moving, then acts.
function control(button, action) {
  button.addEventListener("click", (e) => {
    if (state.animating) finishAnimation();
    action(e);
  });
}

els.piles[0].addEventListener("click", flipRequest);
els.flip.addEventListener("click", flipRequest);
control(els.skip, () => undefined);   // finishing the deal is what Skip does
control(els.auto, () => {
  state.auto = !state.auto;
  draw();
  scheduleAuto();
});
control(els.result, seeResult);
control(els.newGame, askNewGame);
control(els.replay, newGame);
els.pace.value = state.pace;
els.pace.addEventListener("change", () => {
  state.pace = els.pace.value in PACES ? els.pace.value : state.pace;
  savePace(GAME, state.pace);
});

if (document.fullscreenEnabled) {
  els.fullscreen.hidden = false;
  control(els.fullscreen, () => {
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
    await resync();
  } catch (error) {
    await failed(error);
  }
}
start();
