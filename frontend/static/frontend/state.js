// The daily page's plain state and its mutators fn(state, …). No DOM, no HTTP,
// no game rules: hands, legal ranks and results all come from the server's view.
import { withoutRank } from "./cards.js";
import { setField } from "./mutators.js";

export function createState(config) {
  return {
    date: config.date,          // "today" or YYYY-MM-DD
    player: null,               // {id, name} once known
    needsName: false,
    challenge: null,            // {date, commitment, closes_at, seed?}
    view: null,                 // the server's attempt view (the truth)
    pending: null,              // the next view while its events are played out
    nextDeal: null,             // closes_at of today's challenge (the countdown)
    shownHistory: 0,            // history entries revealed so far (step-by-step playback)
    onTable: null,              // the table as shown: it follows the events one by one
    announcements: [],          // every announced event, in order (rebuilt from the history on load)
    moving: null,               // the event whose cards are moving on the table
    motionMs: 0,                // how long they move (none once hurried, or with reduced motion)
    notice: null,               // a message that is not an error (e.g. another tab moved on)
    focus: 0,                   // index of the focused card in the hand
    busy: false,                // a request or a playback is running
    error: null,                // a message key for the error line
    now: Date.now(),
    shared: null,               // "shared" | "copied" after the share button
    rulesCard: false,           // the first visit's rules card is up
    ready: false,               // today's ranked game waits for the player's Start
    stats: null,                // the day's /api/leaderboard/<date>/me once verified
    bins: null,                 // the day's histogram bins, with stats
  };
}

export function setPlayer(state, player) {
  state.player = player;
  state.needsName = !player;
}

export const setRulesCard = setField("rulesCard");
export const setReady = setField("ready");

/** Where the finished ranked game stands: the /me answer and the day's histogram. */
export function setStats(state, stats, bins) {
  state.stats = stats;
  state.bins = bins;
}

export const setChallenge = setField("challenge");

// What the table shows. Between two views it follows the events one by one (cards
// given, fished, paired); each new view from the server replaces it whole.
function onTableOf(view) {
  return {
    player_pairs: [...view.player_pairs],
    opponent_pairs: [...view.opponent_pairs],
    hand: [...view.hand],
    opponent_hand_size: view.opponent_hand_size,
    lake_size: view.lake_size,
    asks: view.asks,
    opponent_asks: view.opponent_asks,
  };
}

// What a reload can still say of the game: the asks and fishing of the history (the
// cards fished are no longer known), so the log reads as it did.
function announcementsOf(view) {
  const said = [];
  for (const h of view.history) {
    said.push({ type: "ask", seat: h.seat, rank: h.rank, given: h.given, replayed: true });
    if (h.fished) said.push({ type: "draw", seat: h.seat, reason: "fish", replayed: true });
  }
  return said;
}

// A complete view from the server: shown as it is (page load, reload, after playback).
export function setView(state, view) {
  const first = !state.view || state.view.id !== view.id;
  state.view = view;
  state.pending = null;
  state.shownHistory = view.history.length;
  state.onTable = onTableOf(view);
  state.focus = Math.max(0, Math.min(state.focus, view.hand.length - 1));
  if (first) state.announcements = announcementsOf(view);
}

// Start the playback of an ask's events: the previous view stays on screen while the
// events are revealed one by one; the new view replaces it at the end.
export function beginPlayback(state, nextView) {
  state.pending = nextView;
  state.busy = true;
}

// The history on screen: the next view's, cut to the entries revealed so far.
export function visibleHistory(state) {
  const source = state.pending || state.view;
  return source ? source.history.slice(0, state.shownHistory) : [];
}

export const setNextDeal = setField("nextDeal");  // the challenge's closes_at

// One event revealed: the table follows it (no rule is decided here: the events say
// what moved; the next view from the server is the truth).
export function revealEvent(state, event, motionMs = 0) {
  const t = state.onTable;
  const mine = event.seat === 0;
  if (event.type === "ask") {
    state.shownHistory += 1;
    if (mine) t.asks += 1; else t.opponent_asks += 1;
    if (event.given && mine) t.opponent_hand_size -= 1;
    if (event.given && !mine) {
      t.hand = withoutRank(t.hand, event.rank);
      t.opponent_hand_size += 1;
    }
  } else if (event.type === "draw") {
    t.lake_size -= 1;
    if (mine) t.hand.push(event.card); else t.opponent_hand_size += 1;
  } else if (event.type === "pair") {
    if (mine) {
      t.player_pairs.push(event.rank);
      t.hand = withoutRank(t.hand, event.rank);
    } else {
      t.opponent_pairs.push(event.rank);
      t.opponent_hand_size -= 2;
    }
  }
  state.announcements.push(event);
  state.moving = event;
  state.motionMs = motionMs;
}

export function endPlayback(state, view) {
  setView(state, view);
  state.busy = false;
  state.moving = null;
  state.motionMs = 0;
}

export const setBusy = setField("busy");
export const setError = setField("error");

export function moveFocus(state, delta) {
  const n = state.view ? state.view.hand.length : 0;
  if (n) state.focus = (state.focus + delta + n) % n;
}

export const setFocus = setField("focus");
export const tick = setField("now");
export const setShared = setField("shared");

// A ranked game may take asks until the day closes plus its grace (the view's
// asks_until); in its last minutes the page counts down, then says it no longer counts.
const CLOSE_WARNING_MS = 15 * 60 * 1000;

export function dayClosed(state) {
  const v = state.view;
  return Boolean(v && v.ranked && !v.over && v.asks_until
    && (v.day_closed || Date.parse(v.asks_until) <= state.now));
}

export function closing(state) {
  const v = state.view;
  return Boolean(v && v.ranked && !v.over && v.asks_until && !dayClosed(state)
    && Date.parse(v.asks_until) - state.now <= CLOSE_WARNING_MS);
}

export const setNotice = setField("notice");
