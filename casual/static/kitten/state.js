// Kitten's plain state and its mutators fn(state, …). No DOM, no rules: what is shown comes
// from the server; a movement is a value (``motion``) that render() plays once.
import { setField } from "../frontend/mutators.js";

export function createState() {
  return {
    game: null,  // the server's last response (view, moves, tally, status)
    shown: { piles: [0, 0], table: [], moves: 0, turn: null, highlight: [], first: null },
    phase: "loading",  // loading | dealing | idle | busy | opponent | over
    animating: false,  // a deal or flip/capture animation is running (input only finishes it)
    dealing: false,
    motion: null,  // {kind: deal | flip | slide, seat, start, ms}: the movement to play
    auto: false,
    wantFlip: false,  // Flip was clicked during the deal or Kitten's flip: made once it is the player's turn
    pace: "normal",  // casual/pace.js PACES
    status: "",
    hint: false,
    tally: { win: 0, loss: 0, draw: 0 },
    fullscreen: null,  // null without full screen, else whether the page is in it
    gen: 0,  // bumped by New game / See result: stale async flows stop
  };
}

// The page moves on (New game, See result, a stale game): what was under way stops.
export function interrupt(state) {
  state.gen += 1;
  state.animating = false;
  state.motion = null;
}

// A response; the tally and the end panel wait for settle().
export const receive = setField("game");

export function setGame(state, game) {
  state.game = game;
  if (game && game.tally) state.tally = game.tally;
}

export const setTally = setField("tally");

export function showView(state, view) {
  state.shown = {
    piles: [...view.piles], table: [...view.table], moves: view.moves,
    turn: view.turn, highlight: [], first: view.first,
  };
}

// The stored game, once its events are played out.
export function settle(state, game, overStatus) {
  setGame(state, game);
  showView(state, game.view);
  state.phase = game.status === "playing" ? "idle" : "over";
  state.hint = state.phase === "idle" && game.number === 1 && game.moves === 0;
  if (state.phase === "over") {
    state.status = overStatus;
    state.wantFlip = false;
  }
}

export const setPhase = setField("phase");

// A flip sent: the hint has done its job.
export function asking(state) {
  state.phase = "busy";
  state.hint = false;
  state.wantFlip = false;
}

// A request failed: the game is still where it was.
export function failed(state, status) {
  state.status = status;
  if (state.game && state.game.status === "playing") state.phase = "idle";
}

export function beginDeal(state, first, status) {
  state.dealing = true;
  state.animating = true;
  state.phase = "dealing";
  state.shown = { piles: [0, 0], table: [], moves: 0, turn: null, highlight: [], first };
  state.status = status;
}

export function dealOne(state, index, ms) {
  // Dealt one at a time, the player first (docs/rules.md §3: deck[0, 2, …] is the player's).
  state.shown.piles[index % 2] += 1;
  state.motion = { kind: "deal", seat: index % 2, ms };
}

// ``complete``: the deal was not interrupted, every card is in its pile.
export function endDeal(state, complete) {
  state.dealing = false;
  state.animating = false;
  state.motion = null;
  if (complete) {
    state.shown.piles = [26, 26];
    state.status = "";
  }
}

export function opponentThinks(state) {
  state.phase = "opponent";
  state.shown.turn = "opponent";
}

export function showFlip(state, event, ms) {
  state.animating = true;
  state.shown.table = [...state.shown.table, event.card];
  state.shown.piles[event.seat] = Math.max(0, state.shown.piles[event.seat] - 1);
  state.shown.moves = event.move;
  state.shown.turn = event.seat === 0 ? "player" : "opponent";
  state.shown.highlight = [];
  state.motion = { kind: "flip", ms };
}

export function highlightCapture(state, event, status) {
  const last = state.shown.table.length - 1;
  const cap = event.capture;
  state.shown.highlight = cap.kind === "fish" ? [cap.match_index, last] : [last];
  state.status = status;
}

// The taken row slides away: from the matched card (a fish), or all (a jack).
export function slideTaken(state, event, ms) {
  const start = event.capture.kind === "fish" ? event.capture.match_index : 0;
  state.motion = { kind: "slide", seat: event.seat, start, ms };
}

// The table after the flip; ``status`` null when a capture said it.
export function showAfter(state, event, status) {
  state.animating = false;
  state.motion = null;
  state.shown.piles = [...event.piles];
  state.shown.table = [...event.table];
  state.shown.moves = event.move;
  state.shown.turn = event.seat === 0 ? "opponent" : "player";
  state.shown.highlight = [];
  if (status !== null) state.status = status;
}

export const setStatus = setField("status");
export const setAuto = setField("auto");
export const setWantFlip = setField("wantFlip");
export const setPace = setField("pace");
export const setFullscreen = setField("fullscreen");
