// The page's plain state and its mutators. No DOM, no rules: what is shown comes from
// the server's view and events (piles, table, captures), replayed at animation pace.

export function createState() {
  return {
    game: null,          // the server's last response (view, moves, tally, status)
    shown: { piles: [0, 0], table: [], moves: 0, turn: null, highlight: [], first: null },
    phase: "loading",    // loading | dealing | idle | busy | opponent | over
    animating: false,    // a deal or flip/capture animation is running (input only finishes it)
    dealing: false,
    auto: false,
    pace: "normal",      // the player's pace (casual/pace.js PACES), remembered
    status: "",
    hint: false,
    tally: { win: 0, loss: 0, draw: 0 },
    gen: 0,              // bumped by New game / See result: stale async flows stop
  };
}

export function setGame(state, game) {
  state.game = game;
  if (game && game.tally) state.tally = game.tally;
}

export function showView(state, view) {
  state.shown = {
    piles: [...view.piles], table: [...view.table], moves: view.moves,
    turn: view.turn, highlight: [], first: view.first,
  };
}

export function showEmptyDeal(state, first) {
  state.shown = { piles: [0, 0], table: [], moves: 0, turn: null, highlight: [], first };
}

export function dealOne(state, index) {
  // Dealt one at a time, the player first (RULES.md §3: deck[0, 2, …] is the player's).
  state.shown.piles[index % 2] += 1;
}

export function showFlip(state, event) {
  state.shown.table = [...state.shown.table, event.card];
  state.shown.piles[event.seat] = Math.max(0, state.shown.piles[event.seat] - 1);
  state.shown.moves = event.move;
  state.shown.turn = event.seat === 0 ? "player" : "opponent";
  state.shown.highlight = [];
}

export function highlightCapture(state, event) {
  const last = state.shown.table.length - 1;
  const cap = event.capture;
  state.shown.highlight = cap.kind === "fish" ? [cap.match_index, last] : [last];
}

export function showAfter(state, event) {
  state.shown.piles = [...event.piles];
  state.shown.table = [...event.table];
  state.shown.moves = event.move;
  state.shown.turn = event.seat === 0 ? "opponent" : "player";
  state.shown.highlight = [];
}

export function setStatus(state, text) {
  state.status = text;
}
