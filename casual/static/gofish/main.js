// Go Fish's controller: input to the server, state through its mutators, render.js draws.
// The server plays the simulated seats; this file paces their events.
import * as api from "../casual/api.js";
import * as S from "./state.js";
import { PACES, loadPace, remember, savePace } from "../casual/pace.js";
import { casualPage } from "../casual/page.js";
import { mount, render } from "./render.js";
import { createPlayback, finishOnInput } from "../frontend/playback.js";

const { pgettext } = window;
const root = document.getElementById("gofish");
const $ = (sel) => root.querySelector(sel);
const GAME = root.dataset.game;
const config = {
  setup: JSON.parse(document.getElementById("gf-setup-data").textContent),
  stepMs: Number(window.GOFISH_STEP_MS ?? root.dataset.stepMs ?? 700),
};
const state = S.createState(config);
S.setPace(state, loadPace(GAME));
const draw = () => render(root, state);

// The others' turn at the player's pace; a key, a tap or Skip shows the rest at once.
const playback = createPlayback();
finishOnInput(root, playback, { active: () => state.phase === "playback", controls: "#gf-skip, #gf-pace, #gf-new, a" });

// What the log showed after the server's move ``moves``: a reload shows it again.
const rememberLog = (game, log = state.announcements) => remember(GAME, game.id, game.moves, { log });

async function fail(error) {
  const said = await import("../frontend/errors.js").then((m) => m.errorSentence(error), () => null);  // rare
  S.setError(state, error.code === "network" ? pgettext("gofish", "Could not reach the server. Try again.")
    : said || pgettext("gofish", "Something went wrong.") + " (" + (error.code || error) + ")");
  if (state.phase === "busy") S.setPhase(state, state.game && !state.game.view.over ? "idle" : "over");
  if (state.asking && state.asking.given === null) S.setAsking(state, null);  // never asked
  draw();
}

function show(game, log) {
  S.clearAnnouncements(state);
  for (const event of log) S.announce(state, event);
  S.setGame(state, game);
  S.openSetup(state, false);
  draw();
}

// The stored game (on load, after a stale move) with its last log, else the setup.
const page = casualPage(GAME, {
  draw,
  setTally: (tally) => S.setTally(state, tally),
  // Not remembered (another browser, storage off): the asks are in the view.
  show: (current, shown) => show(current, shown ? shown.log : current.view.ask_history.map((a) => ({ type: "ask", ...a }))),
  none: () => {
    S.clearAnnouncements(state);
    S.setPhase(state, "setup");
    openSetup(true);
  },
  fail,
});

async function playOut(response) {
  S.setPhase(state, "playback");
  rememberLog(response, [...state.announcements, ...response.events]);
  draw();
  // Each event after a pause at the player's pace; its cards move for most of it.
  const step = () => config.stepMs * PACES[state.pace];
  await playback.play(response.events, async (event, i) => {
    if (i > 0 && event.type !== "end") await playback.pause(step());
    S.revealEvent(state, event, playback.motion(Math.min(0.8 * step(), 900)));
    draw();
  });
  S.setGame(state, response);
  draw();
}

let playing = Promise.resolve();  // the running playback, for a control to wait for its end

async function onAsk(rank) {
  if (state.phase !== "idle" || state.target === null) return;
  const game = state.game;
  S.beginAsk(state, rank);
  draw();
  try {
    const played = await page.session.play(game, { seat: 0, target: state.target, rank });
    if (played.stale) return await page.resync(played.game);
    playing = playOut(played.game);
  } catch (error) {
    return fail(error);
  }
  await playing;
}

async function onStart(options) {
  if (state.phase === "busy" || state.phase === "playback") return;
  // A deal the deck cannot make is refused here, beside the field: no request.
  S.checkDeal(state, options.players, options.hand_size);
  if (state.deckCheck) {
    draw();
    return $("#gf-hand-size").focus();
  }
  const previous = state.phase;
  S.setPhase(state, "busy");
  S.setError(state, null);
  draw();
  try {
    const game = await api.casualCreate(GAME, options);
    // The deal (and books laid at once) announced as the table saw them.
    show(game, game.events.filter((e) => e.type !== "ask"));
    rememberLog(game);
  } catch (error) {
    S.setPhase(state, previous);
    fail(error);
  }
}

let typed = false;  // the player typed a hand size in this setup

// The hand size follows the players until the player types one; the deck's check, both.
function onOptions(players, typing) {
  const field = $("#gf-hand-size");
  typed ||= typing;
  if (!typed) field.value = config.setup.hand_sizes[players];
  S.checkDeal(state, players, field.value === "" ? null : Number(field.value));
  draw();
}

function openSetup(open) {
  if (open) {
    typed = false;
    if (state.game) $("#gf-players").value = state.game.view.players;
    onOptions(Number($("#gf-players").value), false);
  }
  S.openSetup(state, open);
  draw();
}

mount(root, {
  onStart,
  onOptions,
  onAsk,
  // New game at once while the others play: their stored turn is finished first.
  onSetup: async (open) => {
    if (state.phase === "playback") {
      playback.finish();
      await playing;
    }
    if (state.phase !== "busy") openSetup(open);
  },
  onSkip: () => playback.finish(),
  onPace: (pace) => {
    if (!Object.hasOwn(PACES, pace)) return;
    S.setPace(state, pace);
    savePace(GAME, pace);
    draw();
  },
  onTarget: (seat, viaKeyboard) => {
    S.chooseTarget(state, seat);
    draw();
    if (viaKeyboard) $(`#gf-hand [data-index="${state.focusRank}"]`)?.focus();
  },
  onMoveTarget: (delta) => {
    S.moveTarget(state, delta);
    draw();
  },
  onFocusRank: (index) => S.setFocusRank(state, index),
  onMoveRank: (delta) => {
    S.moveRank(state, delta);
    draw();
  },
});

page.start();
