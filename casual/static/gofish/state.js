// Go Fish's plain state and its mutators fn(state, …). No DOM, no HTTP, no rules: the
// server's view is the truth; during a playback each event updates what is shown.
import { RANKS, SUITS, rankOf, withoutRank } from "../frontend/cards.js";
import { setField } from "../frontend/mutators.js";

// phase: loading | setup | idle | busy | playback | over. shown: the table on screen.
// asking: the last ask (given null while the server answers); moving: the event whose
// cards cross the table for motionMs; deckCheck: why the setup cannot be dealt.
export const createState = (config) => ({
  setup: config.setup, game: null, shown: null, announcements: [], phase: "loading", setupOpen: false, target: null,
  focusRank: 0, tally: { win: 0, loss: 0, draw: 0 }, error: null, pace: "normal", asking: null, moving: null, motionMs: 0,
  deckCheck: null,
});

const DECK = RANKS.length * Object.keys(SUITS).length;

// ``cards`` null: not a whole number from 1.
export function checkDeal(state, players, cards) {
  const most = Math.floor(DECK / players);
  if (!(Number.isInteger(cards) && cards >= 1)) cards = null;
  state.deckCheck = cards && cards <= most ? null : { players, cards, needed: players * cards, most, deck: DECK };
}

export function legalTargets(state) {
  const moves = state.phase === "idle" && state.game ? state.game.view.legal_moves : [];
  return [...new Set(moves.map((m) => m.target))];
}

// The hand's ranks in the deck's order.
export function handRanks(state) {
  const held = new Set((state.shown ? state.shown.hand : []).map(rankOf));
  return RANKS.filter((rank) => held.has(rank));
}

// A response from the server shown as it is (load, reload, end of a playback).
export function setGame(state, game) {
  const v = game.view;
  state.game = game;
  state.asking = v.ask_history.at(-1) || null;
  state.shown = { hand: [...v.hand], hand_sizes: [...v.hand_sizes], books: v.books.map((b) => [...b]),
    pond_size: v.pond_size, turn: v.to_move };
  if (game.tally) state.tally = game.tally;
  state.phase = v.over ? "over" : "idle";
  const targets = legalTargets(state);
  if (!targets.includes(state.target)) state.target = targets.length ? targets[0] : null;
  state.focusRank = Math.max(0, Math.min(state.focusRank, handRanks(state).length - 1));
}

export function revealEvent(state, e, motionMs = 0) {
  const s = state.shown;
  Object.assign(state, { moving: e, motionMs });
  if (["ask", "draw", "pass"].includes(e.type)) s.turn = e.seat;
  if (e.type === "ask") {
    state.asking = e;
    s.hand_sizes[e.seat] += e.given;
    s.hand_sizes[e.target] -= e.given;
    if (e.target === 0) s.hand = withoutRank(s.hand, e.rank);
    if (e.seat === 0) s.hand = [...s.hand, ...e.cards];
  } else if (e.type === "draw") {
    s.pond_size -= 1;
    s.hand_sizes[e.seat] += 1;
    if (e.seat === 0 && e.card) s.hand = [...s.hand, e.card];
  } else if (e.type === "book") {
    s.books[e.seat] = [...s.books[e.seat], e.rank];
    s.hand_sizes[e.seat] -= 4;
    if (e.seat === 0) s.hand = withoutRank(s.hand, e.rank);
  }
  state.announcements.push(e);
}

export const announce = (state, event) => state.announcements.push(event);
export const clearAnnouncements = (state) => { state.announcements = []; };
export const setPhase = setField("phase");
export const openSetup = setField("setupOpen");
export const setTally = setField("tally");
export const setError = setField("error");
export const setPace = setField("pace");
export const setAsking = setField("asking");
export const setFocusRank = setField("focusRank");

// The player's ask, on the table while the server answers.
export function beginAsk(state, rank) {
  Object.assign(state, { asking: { seat: 0, target: state.target, rank, given: null }, phase: "busy", error: null });
}

export function chooseTarget(state, seat) {
  if (legalTargets(state).includes(seat)) state.target = seat;
}

// The arrows among the seats that may be asked, and among the ranks (wrapping).
export function moveTarget(state, delta) {
  const targets = legalTargets(state);
  const n = targets.length;
  if (n) state.target = targets[(Math.max(targets.indexOf(state.target), 0) + delta + n) % n];
}

export function moveRank(state, delta) {
  const n = handRanks(state).length;
  if (n) state.focusRank = (state.focusRank + delta + n) % n;
}
