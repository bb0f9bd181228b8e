// The only module of the page that touches the DOM: render(state) draws everything and
// plays the movement the state names (state.motion) once; confirm() asks in the dialog.

import { cardLabel as writeCard, suitOf } from "../frontend/cards.js";

import { el } from "../frontend/dom.js";

export { fmt } from "../frontend/dom.js";

const LOW_PILE = 3; // a pile this small is emphasized

// This game's own catalogue (context "kitten"), in the seeds' register.
const { pgettext } = window;

// The seeds write the ranks as printed on the cards (J♦) in every language.
const asPrinted = (rank) => rank;
export const cardLabel = (card) => writeCard(card, asPrinted);

export function elements(root) {
  const $ = (id) => root.querySelector(`#kt-${id}`);
  return {
    root, board: $("board"), piles: [$("pile-0"), $("pile-1")], counts: [$("count-0"), $("count-1")],
    table: $("table"), turn: $("turn"), moves: $("moves"), first: $("first"), hint: $("hint"),
    status: $("status"), flip: $("flip"), skip: $("skip"), auto: $("auto"), result: $("result"),
    newGame: $("new"), fullscreen: $("fullscreen"), pace: $("pace"), end: $("end"),
    endTitle: $("end-title"), endReason: $("end-reason"), endPlayer: $("end-player"),
    endOpponent: $("end-opponent"), endMoves: $("end-moves"), replay: $("replay"),
    dialog: $("confirm"), dialogText: $("confirm-text"), tally: $("tally"),
  };
}

function cardElement(card, index, highlighted) {
  const red = "HD".includes(suitOf(card));
  return el("li", { class: "kt-card" + (red ? " kt-red" : "") + (highlighted ? " kt-match" : ""),
    "data-card": card, "data-index": index, text: cardLabel(card) });
}

/** The end panel's title and reason, and the status line that says both in one
 * sentence (its own message per outcome: each language joins them its own way). */
export function endTexts(outcome) {
  const winners = outcome.winners.join(); // "0" the player, "1" Kitten, "0,1" a draw
  const title = { 0: pgettext("kitten", "You win!"), 1: pgettext("kitten", "You lose"),
    "0,1": pgettext("kitten", "Draw") }[winners];
  let reason;
  let status;
  if (outcome.reason === "limit") {
    reason = pgettext("kitten", "Move limit: most cards wins");
    status = { 0: pgettext("kitten", "You win — move limit: most cards wins"),
      1: pgettext("kitten", "You lose — move limit: most cards wins"),
      "0,1": pgettext("kitten", "Draw — move limit: most cards wins") }[winners];
  } else if (winners === "0") {
    reason = pgettext("kitten", "Kitten's pile ran out");
    status = pgettext("kitten", "You win — Kitten's pile ran out");
  } else {
    reason = pgettext("kitten", "Your pile ran out");
    status = pgettext("kitten", "You lose — your pile ran out");
  }
  return { title, reason, status };
}

let wasOver = false;  // the end panel takes the focus when the game ends (or resumes ended)
let played = null;    // the motion last played: each one plays once

export function render(state, els) {
  const s = state.shown;
  const game = state.game;
  for (const seat of [0, 1]) {
    els.counts[seat].textContent = String(s.piles[seat]);
    const low = s.piles[seat] <= LOW_PILE && state.phase !== "dealing" && state.phase !== "loading";
    els.counts[seat].classList.toggle("kt-low", low);
    els.piles[seat].classList.toggle("kt-empty", s.piles[seat] === 0);
    els.piles[seat].classList.toggle("kt-active", (s.turn === "player") === (seat === 0) && s.turn !== null);
  }
  const key = s.table.join(",") + "|" + s.highlight.join(",");
  if (els.table.dataset.key !== key) {
    els.table.replaceChildren(...s.table.map((c, i) => cardElement(c, i, s.highlight.includes(i))));
    els.table.dataset.key = key;
  }
  els.moves.textContent = String(s.moves);
  const over = state.phase === "over";
  els.turn.textContent = over ? pgettext("kitten", "Game over")
    : s.turn === "player" ? pgettext("kitten", "Your turn") : s.turn === "opponent" ? pgettext("kitten", "Kitten's turn")
      : pgettext("kitten", "Dealing…");
  els.turn.dataset.turn = over ? "over" : (s.turn || "");
  els.first.textContent = s.first === "opponent" ? pgettext("kitten", "In this game, the opponent flips first")
    : s.first === "player" ? pgettext("kitten", "In this game, you flip first") : "";
  // The hint keeps its place when it goes (visibility): nothing below it moves.
  els.hint.classList.toggle("kt-gone", !state.hint);
  if (els.status.textContent !== state.status) els.status.textContent = state.status;
  els.skip.classList.toggle("kt-gone", !state.dealing);
  els.skip.disabled = !state.dealing;
  els.auto.setAttribute("aria-pressed", String(state.auto));
  if (els.pace.value !== state.pace) els.pace.value = state.pace;
  els.fullscreen.hidden = state.fullscreen === null;
  els.fullscreen.setAttribute("aria-pressed", String(Boolean(state.fullscreen)));
  const playing = game && game.status === "playing";
  els.flip.disabled = !playing && state.phase !== "loading";  // a click while a game comes is kept
  els.result.disabled = !playing;
  for (const [k, v] of Object.entries(state.tally)) {
    const b = els.tally.querySelector(`[data-tally="${k}"]`);
    if (b) b.textContent = String(v);
  }
  els.root.dataset.phase = state.phase;
  els.root.dataset.animating = String(state.animating);
  els.root.dataset.serverMoves = game ? String(game.moves) : "";
  els.root.dataset.gameId = game ? String(game.id) : "";
  const outcome = over && game && game.view.outcome;
  els.end.hidden = !outcome;
  if (outcome) {
    const { title, reason } = endTexts(outcome);
    els.endTitle.textContent = title;
    els.endReason.textContent = reason;
    els.endPlayer.textContent = String(outcome.counts[0]);
    els.endOpponent.textContent = String(outcome.counts[1]);
    els.endMoves.textContent = String(outcome.moves);
  }
  if (outcome && !wasOver) els.end.focus({ preventScroll: false });
  wasOver = Boolean(outcome);
  playMotion(state, els);
}

function playMotion(state, els) {
  const m = state.motion;
  if (!m || m === played) return;
  played = m;
  if (m.ms <= 0) return;
  if (m.kind === "deal") flyBack(els, m.seat, m.ms);
  else if (m.kind === "flip") flipIn(els, m.ms);
  else if (m.kind === "slide") slideTaken(els, m.start, m.seat, m.ms);
}

/** The confirmation dialog: resolves true once the player confirms ``text``. */
export function confirm(els, text) {
  return new Promise((resolve) => {
    els.dialogText.textContent = text;
    els.dialog.returnValue = "";
    els.dialog.addEventListener("close", () => resolve(els.dialog.returnValue === "ok"), { once: true });
    els.dialog.showModal();
    els.dialog.querySelector("#kt-confirm-ok").focus();
  });
}

function centre(el) {
  const r = el.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}

// The movements play on their own: the playback waits their length (and finishes them
// with playback.finishMotion), so nothing here is awaited.

/** A card back flying from the table to ``seat``'s pile (one dealt card). */
function flyBack(els, seat, ms) {
  const from = centre(els.table);
  const to = centre(els.piles[seat]);
  const card = document.createElement("div");
  card.className = "kt-flyer";
  card.setAttribute("aria-hidden", "true");
  card.style.left = `${from.x - 18}px`;
  card.style.top = `${from.y - 26}px`;
  document.body.append(card);
  card.animate(
    [{ transform: "translate(0,0)" }, { transform: `translate(${to.x - from.x}px, ${to.y - from.y}px)` }],
    { duration: ms, easing: "ease-out", fill: "forwards" }).finished.catch(() => {}).then(() => card.remove());
}

/** The flipped card turning face up at the end of the row. */
function flipIn(els, ms) {
  const last = els.table.lastElementChild;
  if (last) {
    last.animate([{ transform: "rotateY(90deg) scale(1.15)", opacity: 0.3 }, { transform: "none", opacity: 1 }],
      { duration: ms, easing: "ease-out" });
  }
}

/** The taken row (from ``start`` to the end) sliding to ``seat``'s pile, within ``ms``
 * (each card a little after the one before it). */
function slideTaken(els, start, seat, ms) {
  const to = centre(els.piles[seat]);
  [...els.table.children].slice(start).forEach((el, i) => {
    const from = centre(el);
    const delay = Math.min(i * 25, ms / 3);
    el.animate([{ transform: "none", opacity: 1 },
      { transform: `translate(${to.x - from.x}px, ${to.y - from.y}px) scale(.6)`, opacity: 0.2 }],
    { duration: ms - delay, delay, easing: "ease-in", fill: "forwards" });
  });
}
