// Go Fish's plain state and its mutators fn(state, …). No DOM, no HTTP, no rules: hands,
// legal moves, books and results come from the server; during a playback the previous
// view stays on screen and each event updates the counts it names.
import { RANKS, rankOf, withoutRank } from "../frontend/cards.js";
import { setField } from "../frontend/mutators.js";

export function createState(config) {
  return {
    setup: config.setup,  // {min_players, max_players, hand_sizes: {players: default}}
    game: null,  // the server's last response (the truth)
    pending: null,  // the next response while its events are played out
    shown: null,  // {hand, hand_sizes, books, pond_size, turn} on screen
    shownHistory: 0,  // ask-history entries revealed so far
    announcements: [],  // every announced event, in order
    phase: "loading",  // loading | setup | idle | busy | playback | over
    setupOpen: false,
    target: null,  // the chosen seat to ask
    focusRank: 0,  // index of the focused rank in the hand
    tally: { win: 0, loss: 0, draw: 0 },
    error: null,
    pace: "normal",  // casual/pace.js PACES
  };
}

const copyView = (v) => ({
  hand: [...v.hand],
  hand_sizes: [...v.hand_sizes],
  books: v.books.map((b) => [...b]),
  pond_size: v.pond_size,
  turn: v.to_move,
});

// The ranks seat 0 may ask for and the seats it may ask, from the server's legal moves.
export function legalTargets(state) {
  const moves = state.phase === "idle" && state.game ? state.game.view.legal_moves : [];
  return [...new Set(moves.map((m) => m.target))];
}

// The hand's rank groups, in the deck's rank order.
export function handRanks(state) {
  const held = new Set((state.shown ? state.shown.hand : []).map(rankOf));
  return RANKS.filter((rank) => held.has(rank));
}

// A complete response from the server, shown as it is (load, reload, end of playback).
export function setGame(state, game) {
  state.game = game;
  state.pending = null;
  state.shown = copyView(game.view);
  state.shownHistory = game.view.ask_history.length;
  if (game.tally) state.tally = game.tally;
  state.phase = game.view.over ? "over" : "idle";
  const targets = legalTargets(state);
  if (!targets.includes(state.target)) state.target = targets.length ? targets[0] : null;
  state.focusRank = Math.max(0, Math.min(state.focusRank, handRanks(state).length - 1));
}

export function beginPlayback(state, next) {
  state.pending = next;
  state.phase = "playback";
}

export function visibleHistory(state) {
  const source = state.pending || state.game;
  return source ? source.view.ask_history.slice(0, state.shownHistory) : [];
}

// One event revealed.
export function revealEvent(state, event) {
  const s = state.shown;
  switch (event.type) {
    case "ask":
      state.shownHistory += 1;
      s.turn = event.seat;
      s.hand_sizes[event.seat] += event.given;
      s.hand_sizes[event.target] -= event.given;
      if (event.target === 0) s.hand = withoutRank(s.hand, event.rank);
      if (event.seat === 0) s.hand = [...s.hand, ...event.cards];
      break;
    case "draw":
      s.turn = event.seat;
      s.pond_size -= 1;
      s.hand_sizes[event.seat] += 1;
      if (event.seat === 0 && event.card) s.hand = [...s.hand, event.card];
      break;
    case "book":
      s.books[event.seat] = [...s.books[event.seat], event.rank];
      s.hand_sizes[event.seat] -= 4;
      if (event.seat === 0) s.hand = withoutRank(s.hand, event.rank);
      break;
    case "pass":
      s.turn = event.seat;
      break;
    default:
      break;
  }
  state.announcements.push(event);
}

export function announce(state, event) {
  state.announcements.push(event);
}

export function clearAnnouncements(state) {
  state.announcements = [];
}

export const setPhase = setField("phase");
export const openSetup = setField("setupOpen");
export const setTally = setField("tally");
export const setError = setField("error");
export const setPace = setField("pace");

export function chooseTarget(state, seat) {
  if (legalTargets(state).includes(seat)) state.target = seat;
}

// Arrow keys among the seats that may be asked (wrapping).
export function moveTarget(state, delta) {
  const targets = legalTargets(state);
  if (!targets.length) return;
  const i = targets.indexOf(state.target);
  state.target = targets[(Math.max(i, 0) + delta + targets.length) % targets.length];
}

export function moveRank(state, delta) {
  const n = handRanks(state).length;
  if (n) state.focusRank = (state.focusRank + delta + n) % n;
}

export const setFocusRank = setField("focusRank");
