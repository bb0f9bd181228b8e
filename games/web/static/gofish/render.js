// The only module of the Go Fish page that touches the DOM: render(state) draws
// everything from the plain state; mount() wires DOM events to the entry module's handlers.
import { cardLabel, rankLabel, rankOf, suitOf } from "../frontend/cards.js";
import { $, el, fmt, onArrows, onFocusIndex, renderGrowing } from "../frontend/dom.js";
import { handRanks, legalTargets, visibleHistory } from "./state.js";

const { npgettext, pgettext } = window;

// Seat 0 is the player; the simulated opponents have names (not translated).
const OPPONENTS = ["Ada", "Bo", "Cleo", "Dan", "Eve"];
export const seatName = (seat) => (seat === 0 ? pgettext("gofish", "You") : OPPONENTS[seat - 1]);

// A rank as asked for in a sentence ("sevens", « des 7 » …).
export function rankName(rank) {
  switch (rank) {
    case "A": return pgettext("gofish", "aces");
    case "J": return pgettext("gofish", "jacks");
    case "Q": return pgettext("gofish", "queens");
    case "K": return pgettext("gofish", "kings");
    default: return fmt(pgettext("gofish", "%(number)ss"), { number: rank });
  }
}

// One ask, in the words of the table (history line and announcement).
export function askText(e) {
  const v = { asker: seatName(e.seat), target: seatName(e.target), rank: rankName(e.rank), n: e.given };
  if (e.seat === 0) {
    return fmt(e.given ? npgettext("gofish", "You ask %(target)s for %(rank)s: %(target)s gives you %(n)s.",
      "You ask %(target)s for %(rank)s: %(target)s gives you %(n)s.", e.given)
      : pgettext("gofish", "You ask %(target)s for %(rank)s: “Go fish!”"), v);
  }
  if (e.target === 0) {
    return fmt(e.given ? npgettext("gofish", "%(asker)s asks you for %(rank)s: you give %(n)s.",
      "%(asker)s asks you for %(rank)s: you give %(n)s.", e.given)
      : pgettext("gofish", "%(asker)s asks you for %(rank)s: “Go fish!”"), v);
  }
  return fmt(e.given ? npgettext("gofish", "%(asker)s asks %(target)s for %(rank)s: %(target)s gives %(n)s.",
    "%(asker)s asks %(target)s for %(rank)s: %(target)s gives %(n)s.", e.given)
    : pgettext("gofish", "%(asker)s asks %(target)s for %(rank)s: “Go fish!”"), v);
}

export function winnersText(winners) {
  if (winners.length === 1 && winners[0] === 0) return pgettext("gofish", "You win!");
  const names = winners.map(seatName).join(", ");
  if (winners.includes(0)) return fmt(pgettext("gofish", "Shared win: %(names)s"), { names });
  return fmt(npgettext("gofish", "%(names)s wins", "%(names)s win", winners.length), { names });
}

// The words of one event, as announced in the live region.
export function eventText(e) {
  const name = seatName(e.seat);
  switch (e.type) {
    case "deal":
      return e.seat === 0 ? fmt(npgettext("gofish", "Cards dealt: %(n)s each.", "Cards dealt: %(n)s each.", e.count), { n: e.count }) : "";
    case "ask":
      return askText(e);
    case "draw":
      if (e.seat === 0) {
        const card = cardLabel(e.card);
        return e.reason === "fish" ? fmt(pgettext("gofish", "You fish %(card)s from the pond."), { card })
          : e.reason === "empty_hand" ? fmt(pgettext("gofish", "Your hand is empty: you draw %(card)s."), { card })
            : fmt(pgettext("gofish", "Nobody else holds cards: you draw %(card)s."), { card });
      }
      return e.reason === "fish" ? fmt(pgettext("gofish", "%(name)s fishes a card from the pond."), { name })
        : e.reason === "empty_hand" ? fmt(pgettext("gofish", "%(name)s has no cards and draws one from the pond."), { name })
          : fmt(pgettext("gofish", "Nobody else holds cards: %(name)s draws one."), { name });
    case "book":
      return e.seat === 0 ? fmt(pgettext("gofish", "You lay down a book of %(rank)s."), { rank: rankName(e.rank) })
        : fmt(pgettext("gofish", "%(name)s lays down a book of %(rank)s."), { name, rank: rankName(e.rank) });
    case "pass":
      return e.seat === 0 ? pgettext("gofish", "Your hand and the pond are empty: you pass.")
        : fmt(pgettext("gofish", "%(name)s passes: empty hand, empty pond."), { name });
    case "end":
      return pgettext("gofish", "Game over") + " — " + winnersText(e.outcome.winners);
    default:
      return "";
  }
}

export function mount(root, handlers) {
  $(root, "#gf-setup-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const size = $(root, "#gf-hand-size").value;
    handlers.onStart({ players: Number($(root, "#gf-players").value), hand_size: size === "" ? null : Number(size) });
  });
  $(root, "#gf-players").addEventListener("change", (ev) => handlers.onPlayers(Number(ev.target.value)));
  $(root, "#gf-setup-cancel").addEventListener("click", () => handlers.onSetup(false));
  $(root, "#gf-new").addEventListener("click", () => handlers.onSetup(true));
  $(root, "#gf-again").addEventListener("click", () => handlers.onSetup(true));

  const seats = $(root, "#gf-seats");
  seats.addEventListener("click", (ev) => {
    const button = ev.target.closest("button[data-seat]");
    if (button && button.getAttribute("aria-disabled") !== "true") handlers.onTarget(Number(button.dataset.seat), false);
  });
  onArrows(seats, handlers.onMoveTarget, (ev) => {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    const button = ev.target.closest("button[data-seat]");
    if (!button) return;
    ev.preventDefault();  // Enter chooses and goes on to the ranks; no click as well
    if (button.getAttribute("aria-disabled") !== "true") handlers.onTarget(Number(button.dataset.seat), true);
  });

  // A key or a tap while the others play finishes their turn: playback.js, from main.js.
  $(root, "#gf-skip").addEventListener("click", handlers.onSkip);
  $(root, "#gf-pace").addEventListener("change", (ev) => handlers.onPace(ev.target.value));

  const hand = $(root, "#gf-hand");
  hand.addEventListener("click", (ev) => {
    const button = ev.target.closest("button[data-rank]");
    if (button && button.getAttribute("aria-disabled") !== "true") handlers.onAsk(button.dataset.rank);
  });
  onFocusIndex(hand, "button[data-rank]", handlers.onFocusRank);
  onArrows(hand, handlers.onMoveRank);
}

function renderSetup(root, state) {
  const box = $(root, "#gf-setup");
  const wasHidden = box.hidden;
  box.hidden = !state.setupOpen;
  $(root, "#gf-setup-cancel").hidden = !(state.game && !state.game.view.over);
  const players = Number($(root, "#gf-players").value);
  $(root, "#gf-opponents").textContent = fmt(pgettext("gofish", "Your opponents: %(names)s"),
    { names: OPPONENTS.slice(0, players - 1).join(", ") });
  if (wasHidden && !box.hidden) $(root, "#gf-players").focus();
}

function seatTile(state, seat, targets) {
  const s = state.shown;
  const books = s.books[seat];
  const cards = fmt(npgettext("gofish", "%(n)s card", "%(n)s cards", s.hand_sizes[seat]), { n: s.hand_sizes[seat] });
  const bookText = fmt(npgettext("gofish", "%(n)s book", "%(n)s books", books.length), { n: books.length });
  // The spaces keep the parts apart in the accessible name (the visible text, which
  // the radiogroup's label "Ask whom?" introduces); flex layout does not render them.
  const children = [
    el("span", { class: "gf-seat-name", text: seatName(seat) }), " ",
    el("span", { class: "gf-seat-cards", "data-cards": s.hand_sizes[seat], text: cards }), " ",
    el("span", { class: "gf-seat-books", "data-books": books.length, text: bookText }), " ",
    el("span", { class: "gf-seat-ranks", "aria-hidden": "true", text: books.map(rankLabel).join(" ") }),
  ];
  const common = { class: "gf-seat" + (s.turn === seat && state.phase !== "over" ? " gf-active" : ""), "data-seat": seat };
  if (seat === 0) return el("div", { ...common, class: common.class + " gf-me" }, ...children);
  const legal = targets.includes(seat);
  const chosen = state.target === seat;
  return el("button", {
    ...common, type: "button", role: "radio", "aria-checked": String(chosen && legal),
    "aria-disabled": legal ? null : "true", tabindex: seat === (state.target ?? 1) ? "0" : "-1",
  }, ...children);
}

function renderSeats(root, state, targets) {
  const seats = $(root, "#gf-seats");
  const hadFocus = seats.contains(document.activeElement);
  const tiles = [];
  for (let seat = 0; seat < state.game.view.players; seat++) tiles.push(seatTile(state, seat, targets));
  seats.replaceChildren($(root, "#gf-seats-title"), ...tiles);
  seats.dataset.players = String(state.game.view.players);
  if (hadFocus) {
    const chosen = seats.querySelector(`button[data-seat="${state.target}"]`) || seats.querySelector("button[tabindex='0']");
    if (chosen) chosen.focus();
  }
}

function renderHand(root, state, targets) {
  const hand = $(root, "#gf-hand");
  const active = document.activeElement;
  // The hand takes the focus back from nowhere: the body, a re-rendered rank, or a
  // control that was just hidden (the setup form's Deal button).
  const hadFocus = !active || active === document.body || hand.contains(active) || Boolean(active.closest("[hidden]"));
  const ranks = handRanks(state);
  const legal = new Set(state.phase === "idle" ? state.game.view.legal_moves
    .filter((m) => m.target === state.target).map((m) => m.rank) : []);
  const buttons = ranks.map((rank, i) => {
    const cards = state.shown.hand.filter((c) => rankOf(c) === rank);
    const ok = legal.has(rank);
    const visible = cards.map((c) => cardLabel(c)).join(" ");
    return el("button", {
      type: "button", class: "gf-rank", "data-rank": rank, "data-index": i,
      tabindex: i === state.focusRank ? "0" : "-1", "aria-disabled": ok ? null : "true",
      // The name starts with the visible cards (label-in-name), then what Enter does.
      "aria-label": targets.includes(state.target)
        ? fmt(pgettext("gofish", "%(cards)s: ask %(name)s for %(rank)s"),
          { name: seatName(state.target), rank: rankName(rank), cards: visible })
        : visible,
    }, ...cards.flatMap((c, i) => [i ? " " : null,
      el("span", { class: "gf-card suit-" + suitOf(c), "data-card": c, text: cardLabel(c) })]));
  });
  hand.replaceChildren(...buttons);
  hand.dataset.ready = state.phase === "idle" && targets.length ? "1" : "0";
  if (hadFocus && buttons.length && state.phase === "idle") buttons[state.focusRank].focus({ preventScroll: true });
}

function renderHistory(root, state) {
  const entries = visibleHistory(state);
  renderGrowing($(root, "#gf-history"), entries, (e) => el("li", {
    class: "gf-ask" + (e.given ? " gf-given" : "") + (e.seat === 0 ? " gf-mine" : ""),
    "data-seat": e.seat, "data-target": e.target, "data-rank": e.rank, "data-given": e.given,
    text: askText(e),
  }));
  $(root, "#gf-history-empty").hidden = entries.length > 0;
}

function renderLog(root, state) {
  const texts = state.announcements.map(eventText).filter(Boolean);
  renderGrowing($(root, "#gf-log"), texts, (text) => el("p", { text }));
}

function renderEnd(root, state) {
  const panel = $(root, "#gf-end");
  const outcome = state.phase === "over" && !state.setupOpen ? state.game.view.outcome : null;
  const wasHidden = panel.hidden;
  panel.hidden = !outcome;
  if (!outcome) return;
  const title = $(root, "#gf-end-title");
  title.textContent = winnersText(outcome.winners);
  title.dataset.winners = outcome.winners.join(",");
  const rows = state.game.view.books.map((books, seat) => el("tr", {
    class: outcome.winners.includes(seat) ? "gf-winner" : null, "data-seat": seat, "data-books": books.length,
  }, el("th", { scope: "row", text: seatName(seat) }), el("td", { text: String(books.length) }),
  el("td", { text: books.map(rankLabel).join(" ") })));
  $(root, "#gf-end-books").replaceChildren(...rows);
  if (wasHidden) panel.focus();
}

export function render(root, state) {
  root.dataset.phase = state.phase;
  root.dataset.gameId = state.game ? String(state.game.id) : "";
  root.dataset.serverMoves = state.game ? String(state.game.moves) : "";
  for (const [k, v] of Object.entries(state.tally)) {
    const b = root.querySelector(`#gf-tally [data-tally="${k}"]`);
    if (b) b.textContent = String(v);
  }
  const error = $(root, "#gf-error");
  error.textContent = state.error || "";
  error.hidden = !state.error;
  renderSetup(root, state);
  const game = $(root, "#gf-game");
  game.hidden = !state.shown || state.setupOpen;
  if (game.hidden) {
    renderEnd(root, state);
    return;
  }
  const s = state.shown;
  const targets = legalTargets(state);
  $(root, "#gf-pond").textContent = String(s.pond_size);
  const turn = $(root, "#gf-turn");
  turn.textContent = state.phase === "over" ? pgettext("gofish", "Game over")
    : state.phase === "idle" ? pgettext("gofish", "Your turn: choose whom to ask, then a rank.")
      : state.phase === "busy" ? pgettext("gofish", "Asking…")
        : s.turn === 0 ? pgettext("gofish", "Your turn")
          : fmt(pgettext("gofish", "%(name)s is playing…"), { name: seatName(s.turn) });
  turn.dataset.turn = state.phase === "idle" ? "player" : state.phase;
  const skip = $(root, "#gf-skip");
  skip.disabled = state.phase !== "playback";
  $(root, "#gf-pace").value = state.pace;
  renderSeats(root, state, targets);
  $(root, ".gf-hand-box").hidden = state.phase === "over";
  $(root, ".gf-controls").hidden = state.phase === "over";  // the end panel has its own New game
  renderHand(root, state, targets);
  renderHistory(root, state);
  renderLog(root, state);
  renderEnd(root, state);
}
