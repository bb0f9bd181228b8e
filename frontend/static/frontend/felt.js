// The card table's pieces of every table page (daily game, replays, Go Fish), drawn by
// felt.css. No words, no rules: the page names what it lays.

import { SUITS, rankLabel, rankOf, suitOf } from "./cards.js";
import { el } from "./dom.js";

export function cardFace(card) {
  return el("span", { class: "card face suit-" + suitOf(card) },
    el("span", { class: "card-rank", text: rankLabel(rankOf(card)) }),
    el("span", { class: "card-suit", "aria-hidden": "true", text: SUITS[suitOf(card)] }));
}

// Card backs: a hand across the table, or a pile (the lake, the pond) in the middle.
export function renderBacks(node, count, most) {
  if (node.childElementCount === Math.min(count, most)) return;
  node.replaceChildren(...Array.from({ length: Math.min(count, most) }, () => el("span", { class: "back" })));
}

// What a seat has laid face up, by rank, in the order laid: ``size`` cards of each rank
// (a pair, a book of four), each group named by ``label(rank)``.
export function layRanks(node, ranks, label, size = 2, kind = "pair") {
  if (node.dataset.ranks === ranks.join(" ")) return;
  node.dataset.ranks = ranks.join(" ");
  node.replaceChildren(...ranks.map((rank) => el("li", { class: kind, "data-rank": rank, "aria-label": label(rank) },
    ...Array.from({ length: size }, () => el("span", { class: "mini", "aria-hidden": "true", text: rankLabel(rank) })))));
}

// Motion that explains: a card crosses the table in ``ms`` (none at 0), face up ("7H"), as
// its rank ("7") or as a back (null). Decoration: the counts and live region say it all.
export function fly(from, to, face, ms, delay = 0) {
  if (!ms || !from || !to) return;
  const a = from.getBoundingClientRect();
  const b = to.getBoundingClientRect();
  const flyer = !face ? el("span", { class: "back" })
    : /[SHDC]$/.test(face) ? cardFace(face)
      : el("span", { class: "card face" }, el("span", { class: "card-rank", text: rankLabel(face) }));
  flyer.classList.add("flyer");
  flyer.setAttribute("aria-hidden", "true");
  document.body.append(flyer);
  const at = (r) => `translate(${r.left + r.width / 2}px, ${r.top + r.height / 2}px) translate(-50%, -50%)`;
  const motion = flyer.animate([{ transform: at(a) }, { transform: at(b) }],
    { duration: ms, delay, easing: "ease-in-out", fill: "both" });
  motion.finished.catch(() => {}).then(() => flyer.remove());
}
