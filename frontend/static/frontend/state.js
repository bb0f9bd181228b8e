// The daily page's plain state and its mutators fn(state, …). No DOM, no HTTP,
// no game rules: hands, legal ranks and results all come from the server's view.

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
    tally: null,                // counters shown during playback
    announcements: [],          // every announced event, in order
    focus: 0,                   // index of the focused card in the hand
    busy: false,                // a request or a playback is running
    error: null,                // a message key for the error line
    now: Date.now(),
    shared: null,               // "shared" | "copied" after the share button
  };
}

export function setPlayer(state, player) {
  state.player = player;
  state.needsName = !player;
}

export function setChallenge(state, challenge) {
  state.challenge = challenge;
}

function tallyOf(view) {
  return {
    player_pairs: view.player_pairs.length,
    opponent_pairs: view.opponent_pairs.length,
    lake_size: view.lake_size,
    asks: view.asks,
    opponent_asks: view.opponent_asks,
  };
}

// A complete view from the server: shown as it is (page load, reload, after playback).
export function setView(state, view) {
  state.view = view;
  state.pending = null;
  state.shownHistory = view.history.length;
  state.tally = tallyOf(view);
  state.focus = Math.max(0, Math.min(state.focus, view.hand.length - 1));
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

export function setNextDeal(state, closesAt) {
  state.nextDeal = closesAt;
}

// One event revealed: counters follow the events, history entries appear as asked.
export function revealEvent(state, event) {
  const t = state.tally;
  if (event.type === "ask") {
    state.shownHistory += 1;
    if (event.seat === 0) t.asks += 1; else t.opponent_asks += 1;
  } else if (event.type === "draw") {
    t.lake_size -= 1;
  } else if (event.type === "pair") {
    if (event.seat === 0) t.player_pairs += 1; else t.opponent_pairs += 1;
  }
  state.announcements.push(event);
}

export function endPlayback(state, view) {
  setView(state, view);
  state.busy = false;
}

export function setBusy(state, busy) {
  state.busy = busy;
}

export function setError(state, error) {
  state.error = error;
}

export function moveFocus(state, delta) {
  const n = state.view ? state.view.hand.length : 0;
  if (n) state.focus = (state.focus + delta + n) % n;
}

export function setFocus(state, index) {
  state.focus = index;
}

export function tick(state, now) {
  state.now = now;
}

export function setShared(state, how) {
  state.shared = how;
}

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
