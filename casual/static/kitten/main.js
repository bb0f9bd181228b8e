// Kitten's controller: input to the server, state through its mutators, render.js draws
// and moves. The server plays every flip; this file only paces the events.
import * as api from "../casual/api.js";
import * as S from "./state.js";
import { PACES, loadPace, remember, savePace } from "../casual/pace.js";
import { casualPage } from "../casual/page.js";
import { createPlayback, finishOnInput } from "../frontend/playback.js";
import { cardLabel, confirm, elements, endTexts, fmt, render } from "./render.js";

// This game's own catalogue (context "kitten"): the site's say these words in another register.
const { npgettext, pgettext } = window;

const root = document.getElementById("kitten");
const GAME = root.dataset.game;
const els = elements(root);
const state = S.createState();

// Durations (ms) at the normal pace (data attributes; window.KITTEN_TIMING in tests),
// scaled by the player's pace.
const base = {};
for (const name of ["deal", "flip", "highlight", "slide", "opponent", "auto"]) {
  base[name] = Number(root.dataset[`${name}Ms`]) || 0;
}
Object.assign(base, window.KITTEN_TIMING || {});
S.setPace(state, loadPace(GAME));
const timing = new Proxy(base, { get: (t, name) => t[name] * PACES[state.pace] });

const draw = () => render(state, els);

// A tap or key finishes the running animation only (the seeds' rule); Kitten's thinking
// and Auto's pause (playback.think) end only on an interrupt.
const playback = createPlayback();

function interrupt() {
  S.interrupt(state);
  playback.stop();
}

// --- messages
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

// --- playing events from the server
// One flip: Kitten thinks first; the card turns; a capture shows its cards, then they slide.
async function playFlip(event, gen) {
  if (event.seat === 1) {
    S.opponentThinks(state);
    draw();
    await playback.think(state.wantFlip ? 0 : timing.opponent);
    if (gen !== state.gen) return;
  }
  S.showFlip(state, event, playback.motion(timing.flip));
  draw();
  await playback.pause(timing.flip);
  if (event.capture && gen === state.gen) {
    S.highlightCapture(state, event, eventMessage(event));
    draw();
    await playback.pause(timing.highlight);
    if (gen === state.gen) {
      S.slideTaken(state, event, playback.motion(timing.slide));
      draw();
      await playback.pause(timing.slide);
    }
  }
  if (gen !== state.gen) return;
  S.showAfter(state, event, event.capture ? null : eventMessage(event));
  draw();
}

// True once every flip was played (none interrupted).
async function playEvents(events, gen) {
  const flips = events.filter((event) => event.type === "flip");
  return (await playback.play(flips, (event) => playFlip(event, gen), { finishes: "step" })) && gen === state.gen;
}

// Idle again: the flip asked for meanwhile is made, else Auto goes on.
function settle(game) {
  S.settle(state, game, game.status === "playing" ? null : endTexts(game.view.outcome).status);
  draw();
  if (state.phase !== "idle") return;
  if (state.wantFlip) flip();
  else scheduleAuto();
}

async function scheduleAuto() {
  const gen = state.gen;
  if (!state.auto || state.phase !== "idle") return;
  await playback.think(timing.auto);
  // At the pace "instant" the server plays the rest in one request: a game of 500 flips
  // ends at once instead of after 500 round trips (the animation is that of the end).
  if (gen === state.gen && state.auto && state.phase === "idle" && !state.animating) {
    if (state.pace === "instant") toTheEnd();
    else flip();
  }
}

// --- server calls
let pending = Promise.resolve();

// The stored game (on load, after a stale move) with the status it last showed, else a new one.
const page = casualPage(GAME, {
  draw,
  setTally: (tally) => S.setTally(state, tally),
  show: (current, shown) => {
    S.setStatus(state, shown ? shown.status : "");
    settle(current);
  },
  none: () => newGame(),
  fail: (error) => failed(error),
});
const { session, resync } = page;

async function failed(error) {
  if (api.isStale(error)) {
    interrupt();
    return resync();
  }
  // The API's refusals in its words (errors.js, loaded when one comes); else the connection.
  const said = await import("../frontend/errors.js").then((m) => m.errorSentence(error), () => null);
  S.failed(state, said || pgettext("kitten", "Could not reach the server. Try again."));
  draw();
  return undefined;
}

// One request of the page: its game (``send`` resolves to it, or to nothing after catching
// up with a stale move) is remembered as shown, then returned unless an action started
// meanwhile (``gen``); nothing when the request failed (said on the page) or was overtaken.
async function request(send, gen) {
  let game;
  try {
    game = await send();
  } catch (error) {
    await failed(error);
    return undefined;
  }
  if (!game) return undefined;
  rememberShown(game);
  return gen === state.gen ? game : undefined;
}

async function flip() {
  const game = state.game;
  if (!game || game.status !== "playing") return;
  const gen = state.gen;
  S.asking(state);
  draw();
  pending = session.play(game, "flip");
  const response = await request(async () => {
    const played = await pending;
    if (!played.stale) return played.game;
    interrupt();
    await resync(played.game);
    return undefined;
  }, gen);
  if (!response) return;
  S.receive(state, response);
  if (await playEvents(response.events, gen)) settle(response);
}

// The 52 cards fly to the piles one by one; a tap, a key or Skip deals the rest at once.
async function deal(first, gen) {
  S.beginDeal(state, first, pgettext("kitten", "Dealing…"));
  draw();
  const cards = Array.from({ length: 52 }, (_, i) => i);
  const complete = await playback.play(cards, async (i) => {
    S.dealOne(state, i, playback.motion(Math.min(300, timing.deal / 4)));
    draw();
    await playback.pause(timing.deal / 52);
  });
  S.endDeal(state, complete && gen === state.gen);
  draw();
}

async function newGame() {
  interrupt();
  const gen = state.gen;
  S.setPhase(state, "loading");  // the end panel goes at once; a click on Flip is kept
  draw();
  const game = await request(() => api.casualCreate(GAME), gen);
  if (!game) return;
  S.setGame(state, game);
  await deal(game.view.first, gen);
  if (gen !== state.gen) return;
  if (game.view.first === "opponent") S.setStatus(state, opponentFirst());
  draw();
  if (await playEvents(game.events, gen)) {
    S.setStatus(state, finalStatus(game));
    settle(game);
  }
}

async function seeResult() {
  const game = state.game;
  if (!game || game.status !== "playing") return;
  if (await confirm(els, pgettext("kitten", "See the result now? The remaining cards are flipped at once."))) await toTheEnd();
}

// The server flips the remaining cards (See result, Auto at the pace "instant").
async function toTheEnd() {
  interrupt();
  await pending.catch(() => undefined);
  const gen = state.gen;
  S.setPhase(state, "busy");
  draw();
  const response = await request(() => api.casualFinish(GAME, state.game.id, state.game.moves), gen);
  if (response) settle(response);
}

async function askNewGame() {
  const playing = state.game && state.game.status === "playing";
  if (playing && !(await confirm(els, pgettext("kitten", "Start a new game? This game will be abandoned.")))) return;
  S.setWantFlip(state, false);  // a click meant for the old game
  await newGame();
}

// --- input
// Flip is a control: a click during the deal (or before it), or during Kitten's flip,
// finishes what is shown and the flip is made as soon as it is the player's turn — the
// first click is never lost. The pile and the keys only finish an animation (the seeds).
function flipRequest(ev) {
  if (ev && ev.currentTarget === els.flip
      && (state.phase === "loading" || state.phase === "dealing" || (state.animating && state.shown.turn === "opponent"))) {
    S.setWantFlip(state, true);
    return;
  }
  if (state.phase === "opponent") {
    S.setStatus(state, pgettext("kitten", "Wait for the opponent"));
    draw();
    return;
  }
  if (state.phase === "idle") flip();
}

// The seed's rule: during an animation a tap or key only finishes it (no card is flipped
// too many); a control also does what it says. The pile is the table's own.
const CONTROL = ".kt-controls button, #kt-skip, .kt-end button, .kt-pace select";
const isControl = (target) => target instanceof Element && Boolean(target.closest(CONTROL));

finishOnInput(root, playback, { active: () => state.animating && !els.dialog.open, controls: CONTROL });

// Space or Enter on the table flips (during an animation they only finish it).
document.addEventListener("keydown", (e) => {
  if (e.defaultPrevented || state.animating || els.dialog.open || e.ctrlKey || e.metaKey || e.altKey) return;
  // Enter/Space (and the select's own keys) reach the control: it acts on them.
  if (isControl(e.target)) return;
  if (e.key !== " " && e.key !== "Enter") return;
  const target = e.target;
  const own = target === document.body || target === els.piles[0] || target === els.flip
    || target === els.board || target === root;
  if (!own) return; // Enter/Space on another element (a link) activates it
  e.preventDefault();
  if (!e.repeat) flipRequest();
}, true);

const control = (button, action) => button.addEventListener("click", action);

els.piles[0].addEventListener("click", flipRequest);
els.flip.addEventListener("click", flipRequest);
control(els.skip, () => undefined);   // finishing the deal is what Skip does
control(els.auto, () => {
  S.setAuto(state, !state.auto);
  draw();
  scheduleAuto();
});
control(els.result, seeResult);
control(els.newGame, askNewGame);
control(els.replay, () => {
  newGame();
  els.flip.focus();  // the end panel is gone: Enter or Space flips in the new game
});
els.pace.addEventListener("change", () => {
  if (Object.hasOwn(PACES, els.pace.value)) S.setPace(state, els.pace.value);
  savePace(GAME, state.pace);
  draw();
});

if (document.fullscreenEnabled) {
  S.setFullscreen(state, Boolean(document.fullscreenElement));
  control(els.fullscreen, () => {
    if (document.fullscreenElement) document.exitFullscreen();
    else document.documentElement.requestFullscreen().catch(() => undefined);
  });
  document.addEventListener("fullscreenchange", () => {
    S.setFullscreen(state, Boolean(document.fullscreenElement));
    draw();
  });
}

// --- start: resume the stored game or deal a new one
page.start();
