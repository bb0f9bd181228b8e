// Go Fish's controller: input to the server, state through its mutators, render.js draws.
// The server plays every simulated seat; this file only paces the events.
import * as api from "../casual/api.js";
import * as S from "./state.js";
import { PACES, loadPace, remember, savePace } from "../casual/pace.js";
import { casualPage } from "../casual/page.js";
import { mount, render } from "./render.js";
import { createPlayback, finishOnInput } from "../frontend/playback.js";

const { pgettext } = window;
const root = document.getElementById("gofish");
const GAME = root.dataset.game;
const config = {
  setup: JSON.parse(document.getElementById("gf-setup-data").textContent),
  stepMs: Number(window.GOFISH_STEP_MS ?? root.dataset.stepMs ?? 700),
};
const state = S.createState(config);
S.setPace(state, loadPace(GAME));
const draw = () => render(root, state);

// The other seats' turn at the player's pace; a key, a tap on the table, Skip or any
// control that needs the table shows the rest of it at once.
const playback = createPlayback();
finishOnInput(root, playback, { active: () => state.phase === "playback", controls: "#gf-skip, #gf-pace, #gf-new, a" });

// The log as shown after the server's move ``moves``: a reload shows it again.
const rememberLog = (game) => remember(GAME, game.id, game.moves, { log: state.announcements });

const MESSAGES = {
  bad_input: () => pgettext("gofish", "These options cannot be played: check the number of players and the hand size."),
  network: () => pgettext("gofish", "Could not reach the server. Try again."),
};

function fail(error) {
  const message = MESSAGES[error.code];
  S.setError(state, message ? message() : pgettext("gofish", "Something went wrong.") + " (" + (error.code || error) + ")");
  if (state.phase === "busy") S.setPhase(state, state.game && !state.game.view.over ? "idle" : "over");
  draw();
}

function show(game) {
  S.setGame(state, game);
  S.openSetup(state, false);
  draw();
}

// The stored game (on load, after a stale move) with the log it last showed, else the setup.
const page = casualPage(GAME, {
  draw,
  setTally: (tally) => S.setTally(state, tally),
  show: (current, shown) => {
    S.clearAnnouncements(state);
    // Not remembered (another browser, storage off): the asks are in the view.
    for (const event of shown ? shown.log : current.view.ask_history.map((a) => ({ type: "ask", ...a }))) {
      S.announce(state, event);
    }
    show(current);
  },
  none: () => {
    S.clearAnnouncements(state);
    S.setPhase(state, "setup");
    openSetup(true);
  },
  fail,
});
const { session, resync } = page;

async function playOut(response) {
  S.beginPlayback(state, response);
  remember(GAME, response.id, response.moves, { log: [...state.announcements, ...response.events] });
  draw();
  // Each event of the simulated seats after a pause at the player's pace.
  await playback.play(response.events, async (event, i) => {
    if (i > 0 && event.type !== "end") await playback.pause(config.stepMs * PACES[state.pace]);
    S.revealEvent(state, event);
    draw();
  });
  S.setGame(state, response);
  draw();
}

// The running playback, for a control to wait for its end.
let playing = Promise.resolve();

async function onAsk(rank) {
  const game = state.game;
  if (state.phase !== "idle" || state.target === null) return;
  S.setPhase(state, "busy");
  S.setError(state, null);
  draw();
  let played;
  try {
    played = await session.play(game, { seat: 0, target: state.target, rank });
    if (played.stale) {
      await resync(played.game);
      return;
    }
  } catch (error) {
    fail(error);
    return;
  }
  playing = playOut(played.game);
  await playing;
}

async function onStart(options) {
  if (state.phase === "busy" || state.phase === "playback") return;
  const previous = state.phase;
  S.setPhase(state, "busy");
  S.setError(state, null);
  draw();
  let game;
  try {
    game = await api.casualCreate(GAME, options);
  } catch (error) {
    S.setPhase(state, previous);
    fail(error);
    return;
  }
  S.clearAnnouncements(state);
  S.openSetup(state, false);
  show(game);
  // The deal (and books laid at once) announced as the table saw them.
  for (const event of game.events) if (event.type !== "ask") S.announce(state, event);
  rememberLog(game);
  draw();
}

function openSetup(open) {
  if (open) {
    const select = root.querySelector("#gf-players");
    const current = state.game ? state.game.view : null;
    if (current) select.value = String(current.players);
    onPlayers(Number(select.value));
  }
  S.openSetup(state, open);
  draw();
}

// The hand size follows the number of players until the player changes it.
function onPlayers(players) {
  root.querySelector("#gf-hand-size").value = String(config.setup.hand_sizes[String(players)]);
  draw();
}

mount(root, {
  onStart,
  onPlayers,
  onAsk,
  // New game acts on the first click even while the others play: their turn is
  // finished at once (it is stored already), then the setup replaces the table.
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
    if (viaKeyboard) {
      const button = root.querySelector(`#gf-hand button[data-index="${state.focusRank}"]`);
      if (button) button.focus();
    }
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
