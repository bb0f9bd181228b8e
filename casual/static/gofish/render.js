// Go Fish's only DOM module: render(state) draws the table with felt.js's pieces; mount()
// wires the DOM to main.js's handlers.
import { SUITS, cardLabel, rankLabel, rankOf, suitOf } from "../frontend/cards.js";
import { $, el, fmt, onArrows, onFocusIndex, renderGrowing } from "../frontend/dom.js";
import { cardFace, fly, layRanks, renderBacks } from "../frontend/felt.js";
import { handRanks, legalTargets } from "./state.js";

const { npgettext, pgettext } = window;
const P = (text, values) => fmt(pgettext("gofish", text), values);
const N = (one, many, n, values) => fmt(npgettext("gofish", one, many, n), { n, ...values });

// Seat 0 is the player; the simulated opponents have names (not translated).
const OPPONENTS = ["Ada", "Bo", "Cleo", "Dan", "Eve"];
export const seatName = (seat) => (seat ? OPPONENTS[seat - 1] : P("You"));

// A rank as asked for in a sentence ("sevens", « des 7 » …).
export const rankName = (rank) => ({ A: P("aces"), J: P("jacks"), Q: P("queens"), K: P("kings") })[rank]
  || P("%(number)ss", { number: rank });

// One ask, in the words of the table.
export function askText(e) {
  const v = { asker: seatName(e.seat), target: seatName(e.target), rank: rankName(e.rank) };
  const [given, none] = e.seat === 0
    ? ["You ask %(target)s for %(rank)s: %(target)s gives you %(n)s.", "You ask %(target)s for %(rank)s: “Go fish!”"]
    : e.target === 0 ? ["%(asker)s asks you for %(rank)s: you give %(n)s.", "%(asker)s asks you for %(rank)s: “Go fish!”"]
      : ["%(asker)s asks %(target)s for %(rank)s: %(target)s gives %(n)s.", "%(asker)s asks %(target)s for %(rank)s: “Go fish!”"];
  return e.given ? N(given, given, e.given, v) : P(none, v);
}

export function winnersText(winners) {
  const names = winners.map(seatName).join(", ");
  return winners.length === 1 && winners[0] === 0 ? P("You win!")
    : winners.includes(0) ? P("Shared win: %(names)s", { names }) : N("%(names)s wins", "%(names)s win", winners.length, { names });
}

// The words of one event, as the live region says them ("" for a hand dealt to another seat).
export function eventText(e) {
  const name = seatName(e.seat);
  const me = e.seat === 0;
  switch (e.type) {
    case "deal": return me ? N("Cards dealt: %(n)s each.", "Cards dealt: %(n)s each.", e.count) : "";
    case "ask": return askText(e);
    case "draw": return P(me ? { fish: "You fish %(card)s from the pond.", empty_hand: "Your hand is empty: you draw %(card)s." }[e.reason]
      || "Nobody else holds cards: you draw %(card)s." : { fish: "%(name)s fishes a card from the pond.",
      empty_hand: "%(name)s has no cards and draws one from the pond." }[e.reason] || "Nobody else holds cards: %(name)s draws one.",
    { name, card: me && cardLabel(e.card) });
    case "book": return P(me ? "You lay down a book of %(rank)s." : "%(name)s lays down a book of %(rank)s.", { name, rank: rankName(e.rank) });
    case "pass": return P(me ? "Your hand and the pond are empty: you pass." : "%(name)s passes: empty hand, empty pond.", { name });
    case "end": return P("Game over") + " — " + winnersText(e.outcome.winners);
    default: return "";
  }
}

export function mount(root, h) {
  const on = (sel, type, fn) => $(root, sel).addEventListener(type, fn);
  const players = () => Number($(root, "#gf-players").value);
  on("#gf-setup-form", "submit", (ev) => {
    ev.preventDefault();
    const size = $(root, "#gf-hand-size").value;
    h.onStart({ players: players(), hand_size: size === "" ? null : Number(size) });
  });
  on("#gf-hand-size", "input", () => h.onOptions(players(), true));
  on("#gf-players", "change", () => h.onOptions(players(), false));
  on("#gf-setup-cancel", "click", () => h.onSetup(false));
  on("#gf-new", "click", () => h.onSetup(true));
  on("#gf-again", "click", () => h.onSetup(true));
  on("#gf-skip", "click", h.onSkip);
  on("#gf-pace", "change", (ev) => h.onPace(ev.target.value));
  // The seat or rank a click or key is on, unless it may not be chosen now.
  const pick = (ev, key) => {
    const button = ev.target.closest(`[data-${key}]`);
    return button && button.getAttribute("aria-disabled") !== "true" ? button.dataset[key] : null;
  };
  const seats = $(root, "#gf-others");
  const hand = $(root, "#gf-hand");
  seats.addEventListener("click", (ev) => pick(ev, "seat") && h.onTarget(Number(pick(ev, "seat"))));
  onArrows(seats, h.onMoveTarget, (ev) => {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    ev.preventDefault();  // Enter chooses and goes on to the ranks; no click as well
    if (pick(ev, "seat")) h.onTarget(Number(pick(ev, "seat")), true);
  });
  hand.addEventListener("click", (ev) => pick(ev, "rank") && h.onAsk(pick(ev, "rank")));
  onFocusIndex(hand, "[data-rank]", h.onFocusRank);
  onArrows(hand, h.onMoveRank);
}

function renderSetup(root, state) {
  const box = $(root, "#gf-setup");
  const opening = box.hidden && state.setupOpen;
  box.hidden = !state.setupOpen;
  $(root, "#gf-setup-cancel").hidden = !(state.game && !state.game.view.over);
  const players = Number($(root, "#gf-players").value);
  $(root, "#gf-opponents").textContent = P("Your opponents: %(names)s", { names: OPPONENTS.slice(0, players - 1).join(", ") });
  // Why the deck cannot deal it, beside the hand size as it is typed (no request is sent).
  const c = state.deckCheck;
  $(root, "#gf-hand-size").setAttribute("aria-invalid", Boolean(c));
  $(root, "#gf-deck-check").textContent = !c ? "" : c.cards
    ? P("%(players)s players × %(cards)s cards = %(needed)s: the deck has %(deck)s cards. At most %(most)s cards each.", c)
    : P("Each hand needs at least 1 card.");
  if (opening) $(root, "#gf-players").focus();
}

// What the last ask said at the table: the asker's question, then the answer of the seat asked.
function saying(a, seat) {
  if (!a) return "";
  if (a.seat === seat) return P("%(target)s, %(rank)s?", { target: seatName(a.target), rank: rankName(a.rank) });
  if (a.target !== seat || a.given === null) return "";
  return a.given ? N("Gives %(n)s", "Gives %(n)s", a.given) : P("Go fish!");
}

// A seat of the template: what it said, its hand as card backs and counted, its books.
function renderSeat(root, state, seat, targets) {
  const { shown, phase, asking } = state;
  const tile = $(root, `[data-seat="${seat}"]`);
  const [, say, backs, cards, books] = tile.children;
  const n = shown.hand_sizes[seat];
  const legal = targets.includes(seat);
  // The gold ring: whose turn it is; at the end, the winners.
  const ringed = phase === "over" ? state.game.view.outcome.winners.includes(seat) : shown.turn === seat;
  tile.className = "gf-seat" + (ringed ? " gf-active" : "")
    + (asking && asking.target === seat && ["busy", "playback"].includes(phase) ? " gf-asked" : "");
  if (seat) {
    tile.setAttribute("aria-checked", state.target === seat && legal);
    tile.setAttribute("aria-disabled", !legal);
    tile.tabIndex = seat === (state.target ?? 1) ? 0 : -1;
  }
  say.textContent = saying(asking, seat);
  renderBacks(backs, seat ? n : 0, n);
  backs.style.setProperty("--n", Math.max(n, 2));  // how close they stand (gofish.css)
  cards.textContent = N("%(n)s card", "%(n)s cards", n);
  cards.dataset.cards = n;
  books.textContent = N("%(n)s book", "%(n)s books", shown.books[seat].length);
  const laid = $(root, `[data-books-of="${seat}"]`);
  if (seat) laid.ariaLabel = P("Books of %(name)s", { name: seatName(seat) });
  layRanks(laid, shown.books[seat], rankName, 4, "pair book");
}

function renderSeats(root, state, targets) {
  for (let seat = 0; seat <= OPPONENTS.length; seat++) {
    const here = seat < state.game.view.players;
    if (seat) $(root, `[data-seat="${seat}"]`).parentNode.hidden = !here;
    if (here) renderSeat(root, state, seat, targets);
  }
  // The arrows move the chosen seat: the focus goes with it.
  if ($(root, "#gf-others").contains(document.activeElement)) $(root, `[data-seat="${state.target}"]`)?.focus();
  // The pond as a pile: its thickness, a back for four cards.
  renderBacks($(root, "#gf-pond-pile"), Math.ceil(state.shown.pond_size / 4), 13);
  $(root, "#gf-pond").textContent = state.shown.pond_size;
}

function renderHand(root, state, targets) {
  const hand = $(root, "#gf-hand");
  const active = document.activeElement;
  // The hand takes the focus back from nowhere: the body, a re-rendered rank, or a
  // control just hidden (the setup form's Deal button).
  const hadFocus = !active || active === document.body || hand.contains(active) || active.closest("[hidden]");
  const legal = state.phase === "idle" ? state.game.view.legal_moves.filter((m) => m.target === state.target).map((m) => m.rank) : [];
  const buttons = handRanks(state).map((rank, i) => {
    const cards = state.shown.hand.filter((c) => rankOf(c) === rank);
    // Named by the faces shown, rank then suit (label-in-name), then what Enter does.
    const visible = cards.map((c) => rankLabel(rank) + " " + SUITS[suitOf(c)]).join(" ");
    return el("button", {
      type: "button", class: "gf-rank", "data-rank": rank, "data-index": i, tabindex: i === state.focusRank ? 0 : -1,
      "aria-disabled": !legal.includes(rank) && "true", "aria-label": targets.includes(state.target)
        ? P("%(cards)s: ask %(name)s for %(rank)s", { name: seatName(state.target), rank: rankName(rank), cards: visible }) : visible,
    }, ...cards.flatMap((c, j) => {
      const face = cardFace(c);
      face.classList.add("gf-card");
      face.dataset.card = c;
      return [j ? " " : null, face];
    }));
  });
  hand.replaceChildren(...buttons);
  if (hadFocus && buttons.length && state.phase === "idle") buttons[state.focusRank].focus({ preventScroll: true });
}

// The event's cards cross the table: given ones to the asker, a card from the pond (face up
// to you only), a book to where books are laid.
let moved = null;
function animateMove(root, state) {
  const e = state.moving;
  if (!e || e === moved) return;
  moved = e;
  const hand = (seat) => $(root, seat ? `#gf-others [data-seat="${seat}"] .backs` : "#gf-hand");
  const go = (from, to, faces) => faces.forEach((face, i) => fly(from, to, face, state.motionMs, i * state.motionMs / 6));
  if (e.type === "ask") go(hand(e.target), hand(e.seat), e.cards);
  if (e.type === "draw") go($(root, "#gf-pond-pile"), hand(e.seat), [e.seat ? null : e.card]);
  if (e.type === "book") go(hand(e.seat), $(root, `[data-books-of="${e.seat}"]`), Array(4).fill(e.rank));
}

function renderEnd(root, state) {
  const panel = $(root, "#gf-end");
  const outcome = state.phase === "over" && !state.setupOpen && state.game.view.outcome;
  const opening = panel.hidden && outcome;
  panel.hidden = !outcome;
  if (!outcome) return;
  const title = $(root, "#gf-end-title");
  title.textContent = winnersText(outcome.winners);
  title.dataset.winners = outcome.winners;
  const { books, hand_sizes: left } = state.shown;
  $(root, "#gf-end-seats").replaceChildren(...books.map((b, s) => el("li", { text: P("%(name)s: %(books)s, %(cards)s left",
    { name: seatName(s), books: N("%(n)s book", "%(n)s books", b.length), cards: N("%(n)s card", "%(n)s cards", left[s]) }) })));
  if (opening) panel.focus();
}

export function render(root, state) {
  const { phase, game, shown } = state;
  Object.assign(root.dataset, { phase, gameId: game ? game.id : "", serverMoves: game ? game.moves : "" });
  for (const [k, v] of Object.entries(state.tally)) $(root, `#gf-tally [data-tally="${k}"]`).textContent = v;
  const error = $(root, "#gf-error");
  error.textContent = state.error || "";
  error.hidden = !state.error;
  renderSetup(root, state);
  $(root, "#gf-game").hidden = !shown || state.setupOpen;
  if (shown && !state.setupOpen) {
    const targets = legalTargets(state);
    const turn = $(root, "#gf-turn");
    turn.textContent = phase === "over" ? P("Game over") : phase === "idle" ? P("Your turn: choose whom to ask, then a rank.")
      : phase === "busy" ? P("Asking…") : shown.turn === 0 ? P("Your turn") : P("%(name)s is playing…", { name: seatName(shown.turn) });
    turn.dataset.turn = phase === "idle" ? "player" : phase;
    $(root, "#gf-skip").disabled = phase !== "playback";
    $(root, "#gf-pace").value = state.pace;
    renderSeats(root, state, targets);
    // Over: the end panel has its own New game.
    $(root, ".gf-hand-box").hidden = $(root, ".gf-controls").hidden = phase === "over";
    renderHand(root, state, targets);
    // Every event in words; it only grows (a screen reader hears the new lines).
    renderGrowing($(root, "#gf-log"), state.announcements.filter(eventText), (e) => el("p", {
      "data-type": e.type, "data-seat": e.seat, "data-target": e.target, "data-rank": e.rank, "data-given": e.given,
      text: eventText(e),
    }));
    animateMove(root, state);
  }
  renderEnd(root, state);
}
