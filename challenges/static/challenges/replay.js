// The admin's replay inspector: the public replay's table (frontend/replay-table.js, one
// component for both) with the reviewers' layers at each ask: the detector's evidence in
// words and numbers, what the player could know of the opponent's hand (the public chance
// of each of its ranks) and what the opponent knew of the player's. The figures come from
// the server (leaderboard/admin.py inspector_data); the admin's pages are English.
import { $, el } from "../frontend/dom.js";
import { RANKS, rankLabel } from "../frontend/cards.js";
import { aRank } from "../frontend/table.js";
import { mountReplay } from "../frontend/replay-table.js";

const root = document.getElementById("replay");
const data = JSON.parse(document.getElementById("replay-data").textContent);
const name = data.name;
const percent = new Intl.NumberFormat("en", { style: "percent", maximumFractionDigits: 0 });

// e ** nats in words, as the page's own figures say it (leaderboard/admin.py times()).
function times(nats) {
  const ratio = Math.exp(Math.min(nats, 50));
  if (ratio >= 1e6) return "over a million";
  const unit = ratio < 10000 ? 100 : 1000;
  if (ratio >= 1000) return (Math.round(ratio / unit) * unit).toLocaleString("en");
  return ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(1);
}
const signed = (x) => (x >= 0.005 ? "+" : x <= -0.005 ? "−" : "") + Math.abs(x).toFixed(2);
// Ranks in a sentence, in the deck's order.
const ranks = (list) => [...list].sort((a, b) => RANKS.indexOf(a) - RANKS.indexOf(b)).map(rankLabel).join(", ");

// The weights of the asks so far, step by step: the running total the page shows.
const totals = [0];
const weightOf = (e) => (e && e.llr !== null ? e.llr : 0);
for (const step of data.steps.slice(1)) totals.push(totals[totals.length - 1] + weightOf(step.evidence));

function weightText(e) {
  if (!e.counted) {
    return e.ranks.length === 1
      ? "With one rank in hand there was no choice: this ask weighs nothing."
      : "A sure pair (or a rank the opponent could not hold): any player asks it alike, so it weighs nothing.";
  }
  const w = weightOf(e);
  if (w >= 0.005) {
    return `What the opponent held, given this ask, was ${times(w)} times as likely for a player who peeks at its hand `
      + `as the table made it: ${signed(w)} toward the suspicion.`;
  }
  if (w <= -0.005) {
    return `What the opponent held, given this ask, was ${times(-w)} times as likely as the table made it than for a `
      + `player who peeks: ${signed(w)}, away from suspicion.`;
  }
  return "What the opponent held, given this ask, was as likely for a player who peeks as the table made it: it weighs nothing.";
}

// A choice's probability as the page says it: "12%", and "under 1%" rather than "0%"
// (the detector never gives a choice no chance at all).
const percentOf = (p) => (p < 0.005 ? "under 1%" : percent.format(p));
const choiceWords = (p) => (p < 0.005 ? "less than once in a hundred games" : `${percentOf(p)} of the time`);

function truthText(e) {
  if (!e.held_ranks.length) return `The opponent held none of ${name}'s ranks: any choice was a miss, seeing the cards or not.`;
  if (e.held_ranks.length === e.ranks.length) {
    return `The opponent held every one of ${name}'s ranks: any choice was a hit, seeing the cards or not.`;
  }
  return `The opponent held ${ranks(e.held_ranks)} (${e.held_ranks.length} of ${name}'s ${e.ranks.length} ranks): `
    + `${aRank(e.rank)} was ${e.held ? "a hit" : "a miss"}.`;
}

function evidenceLayer(step, at) {
  const node = $(root, "#layer-evidence");
  const e = step.evidence;
  if (!e) {
    node.replaceChildren(el("p", { class: "quiet", text: at === 0
      ? "The deal: no ask yet. Each ask shows here what the table made likely, what the opponent really held, and the ask's weight."
      : "The detector did not weigh this ask." }));
    return;
  }
  const best = e.ranks.filter((r, i) => e.chances[i] === e.best_chance);
  const chose = e.ranks.length === 1
    ? `${name} held only one rank and asked for it, ${aRank(e.rank)}, which the table gave a ${percent.format(e.public_chance)} chance: no choice.`
    : `${name} asked for ${aRank(e.rank)}, which the table gave a ${percent.format(e.public_chance)} chance; `
      + (e.public_chance >= e.best_chance ? "no rank of its hand had more." : `the best was ${ranks(best)} at ${percent.format(e.best_chance)}.`);
  node.replaceChildren(
    el("p", { text: chose }),
    el("p", { text: truthText(e) }),
    el("p", { class: "chances-of-choice", text: e.ranks.length === 1
      ? "With one rank in hand, every player asks for it."
      : `From what the table showed, the opponent held at least one of ${name}'s ranks with a ${percentOf(e.any_held)} `
        + `chance: a player who peeks finds a pair that often; an honest player of any habit hits ${percentOf(e.public_chance)} `
        + `of the time asking for ${aRank(e.rank)} here.` }),
    el("p", { class: "weight", "data-llr": weightOf(e), text: weightText(e) }),
    el("dl", { class: "figures" },
      el("dt", { text: "The table's chance of this rank" }), el("dd", { class: "figure-honest", text: percentOf(e.public_chance) }),
      el("dt", { text: "The table's chance of any of its ranks" }), el("dd", { class: "figure-seer", text: percentOf(e.any_held) }),
      el("dt", { text: "Weight of this ask" }), el("dd", { class: "figure-llr", text: signed(weightOf(e)) }),
      el("dt", { text: `Weights of asks 1–${at}` }), el("dd", { text: signed(totals[at]) }),
      el("dt", { text: "The game's suspicion" }),
      el("dd", { text: `${data.suspicion.toFixed(2)} (flagged at ${data.threshold.toFixed(2)})` })),
  );
}

function chanceWords(chance) {
  if (chance >= 0.9999) return "100 %: sure, from what the table showed";
  if (chance <= 0.0001) return "0 %: it cannot hold one, from what the table showed";
  return percent.format(chance).replace("%", " %");
}

function playerLayer(step) {
  const node = $(root, "#layer-player");
  const e = step.evidence;
  if (!e) {
    node.replaceChildren(el("p", { class: "quiet", text: "The size of the opponent's hand, and the pairs on the table." }));
    return;
  }
  const rows = e.ranks.map((rank, i) => el("tr", { class: rank === e.rank ? "asked" : null },
    el("th", { scope: "row", text: rank === e.rank ? `${rankLabel(rank)} (asked)` : rankLabel(rank) }),
    el("td", { text: chanceWords(e.chances[i]) }),
    el("td", { text: e.held_ranks.includes(rank) ? "held" : "not held" })));
  node.replaceChildren(el("table", { class: "chances" },
    el("caption", { text: `Before the ask, for each rank of ${name}'s hand: the chance the opponent held one, from what the table had shown, and what it really held.` }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Rank" }), el("th", { scope: "col", text: "Public chance" }),
      el("th", { scope: "col", text: "The opponent" }))),
    el("tbody", {}, ...rows)));
}

function opponentLayer(step) {
  const node = $(root, "#layer-opponent");
  const k = step.knew;
  const lines = [];
  if (k.known.length) lines.push(`Sure ${name} holds ${ranks(k.known)}: ${name} asked for ${k.known.length > 1 ? "them" : "it"} and the opponent had none.`);
  // A rank it knows the player holds now is held, whatever it lacked before.
  const absent = Object.keys(k.absent).filter((r) => !k.known.includes(r));
  const none = absent.filter((r) => k.absent[r] === k.draws);
  if (none.length) lines.push(`Sure ${name} holds no ${ranks(none)}: asked, given or paired since ${name}'s last new card.`);
  // Older absences, by how many new cards have come since: one line each.
  const ago = new Map();
  for (const r of absent.filter((q) => k.absent[q] < k.draws)) {
    const n = k.draws - k.absent[r];
    ago.set(n, [...(ago.get(n) || []), r]);
  }
  for (const n of [...ago.keys()].sort((a, b) => a - b)) {
    lines.push(`${name} held no ${ranks(ago.get(n))} before its last ${n === 1 ? "new card" : `${n} new cards`}.`);
  }
  if (!lines.length) lines.push(`Nothing: any rank may be in ${name}'s hand.`);
  node.replaceChildren(el("ul", { class: "knew" }, ...lines.map((text) => el("li", { text }))));
}

function titleLayer(step, at) {
  $(root, "#layers-title").textContent = at === 0 ? "After the deal" : `At ask ${at}: ${aRank(step.ask)}`;
}

const go = mountReplay(root, data, { layers: [titleLayer, evidenceLayer, playerLayer, opponentLayer] });

// The asks that weigh most, listed above the table: each goes to its step.
root.addEventListener("click", (ev) => {
  const jump = ev.target.closest("button.jump[data-step]");
  if (!jump) return;
  go(Number(jump.dataset.step));
  $(root, ".replay-board").scrollIntoView({ block: "start" });  // the steps' bar, the table and the evidence
});
