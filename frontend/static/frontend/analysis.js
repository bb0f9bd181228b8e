// A finished game's analysis (GET /api/attempts/<id>/analysis): its words, its value
// chart, and the wait while an analysis worker works it out. The replay page draws it
// ask by ask, the daily game's end panel its accuracy and the day's par. Nothing is
// computed here: the figures come whole from the server.
/* global gettext */
import { getJSON, postJSON } from "./api.js";
import { fmt } from "./dom.js";
import { rankLabel } from "./cards.js";
import { aRank } from "./table.js";

const lang = () => document.documentElement.lang || "en";
/** Expected pairs, signed: "+1.2", "−0.4" (the reader's digits and decimal sign). */
export const pairsText = (value) => new Intl.NumberFormat(lang(),
  { signDisplay: "exceptZero", minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(value);
const lossText = (value) => new Intl.NumberFormat(lang(), { minimumFractionDigits: 1, maximumFractionDigits: 1 })
  .format(value);
export const accuracyText = (value) => `${new Intl.NumberFormat(lang(), { maximumFractionDigits: 0 }).format(value)} %`;
const chanceText = (value) => new Intl.NumberFormat(lang(), { style: "percent" }).format(value);

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** The game's analysis: asked for once (POST), then read again while a worker works it out
 * (202 analysis_pending), ``tries`` times at most; throws the API's error (409 day_open,
 * 404) or "pending". */
export async function loadAnalysis(id, { tries = 30 } = {}) {
  for (let i = 0; i < tries; i += 1) {
    const url = `/api/attempts/${id}/analysis`;
    const data = await (i === 0 ? postJSON(url) : getJSON(url));
    if (data && Array.isArray(data.asks)) return data;
    await sleep(Math.max(1, (data && data.retry_after) || 2));
  }
  throw new Error("pending");
}

export function labelText(label) {
  return { inaccuracy: gettext("inaccuracy"), mistake: gettext("mistake"), blunder: gettext("blunder") }[label] || "";
}

/** One ask in words (third person: the replay may be someone else's). */
export function askText(ask, name) {
  const words = { name, a_rank: aRank(ask.rank), value: pairsText(ask.values[ask.rank]), best: aRank(ask.best),
    best_value: pairsText(ask.values[ask.best]), loss: lossText(ask.loss), label: labelText(ask.label) };
  if (Object.keys(ask.values).length < 2) {
    return fmt(gettext("%(name)s had one rank: %(a_rank)s was the only ask."), words);
  }
  if (ask.label) {
    return fmt(gettext("%(name)s asked for %(a_rank)s (worth %(value)s pairs by the end); the engine asks for %(best)s (%(best_value)s). It cost %(loss)s pairs (%(label)s)."), words);
  }
  if (ask.rank === ask.best || ask.loss === 0) {
    return fmt(gettext("%(name)s asked for %(a_rank)s (worth %(value)s pairs by the end): the engine's ask too."), words);
  }
  return fmt(gettext("%(name)s asked for %(a_rank)s (worth %(value)s pairs by the end); the engine asks for %(best)s (%(best_value)s): as good, within the engine's noise."), words);
}

/** What the table showed against the ask (what the lessons said), or "". */
export function reasonText(ask) {
  if (!ask.reason) return "";
  const ranks = Object.keys(ask.chances);
  const better = ranks.reduce((a, b) => (ask.chances[b] > ask.chances[a] ? b : a));
  const words = { asked: aRank(ask.rank), better: aRank(better), chance: chanceText(ask.chances[ask.rank]),
    best: chanceText(ask.chances[better]) };
  if (ask.reason === "sure_pair") {
    return fmt(gettext("%(better)s was a sure pair: the opponent had asked for one and not laid it."), words);
  }
  if (ask.reason === "impossible") {
    return fmt(gettext("Asking for %(asked)s could not succeed: the table showed the opponent had none (%(better)s: %(best)s)."), words);
  }
  return fmt(gettext("Asking for %(asked)s (%(chance)s) told the opponent of a card in hand when %(better)s was likelier (%(best)s)."), words);
}

function svgEl(svg, tag, attrs, text) {
  const node = document.createElementNS(svg.namespaceURI, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Each rank's value at one ask as bars from the zero line, in ``svg`` (viewBox 300×120):
 * the rank asked and the engine's are marked; the words are its accessible name. */
export function drawValues(svg, ask) {
  const ranks = Object.keys(ask.values);
  const values = ranks.map((r) => ask.values[r]);
  const span = Math.max(1, ...values.map((v) => Math.abs(v)));
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  const scale = 70 / Math.max(span, high - low);
  const zero = 20 + high * scale;
  const width = 280 / Math.max(ranks.length, 4);
  svg.replaceChildren();
  svg.setAttribute("viewBox", "0 0 300 120");
  svg.append(svgEl(svg, "line", { x1: 10, y1: zero, x2: 290, y2: zero, class: "axis" }));
  ranks.forEach((rank, i) => {
    const v = ask.values[rank];
    const h = Math.max(Math.abs(v) * scale, 1);
    const x = 10 + i * width + width * 0.15;
    const classes = ["bar", rank === ask.rank ? "asked" : "", rank === ask.best ? "best" : ""].join(" ").trim();
    svg.append(svgEl(svg, "rect", { x, y: v >= 0 ? zero - h : zero, width: width * 0.7, height: h, class: classes }));
    svg.append(svgEl(svg, "text", { x: x + width * 0.35, y: v >= 0 ? zero - h - 3 : zero + h + 11,
      "text-anchor": "middle", class: "value" }, pairsText(v)));
    svg.append(svgEl(svg, "text", { x: x + width * 0.35, y: 116, "text-anchor": "middle",
      class: rank === ask.rank ? "rank asked-rank" : "rank" }, rankLabel(rank)));
  });
  const described = ranks.map((r) => {
    const marks = [r === ask.rank ? gettext("asked") : "", r === ask.best ? gettext("the engine's ask") : ""]
      .filter(Boolean).join(", ");
    return `${rankLabel(r)} ${pairsText(ask.values[r])}${marks ? ` (${marks})` : ""}`;
  }).join("; ");
  svg.setAttribute("aria-label", fmt(gettext("Expected pairs by the end for each rank in hand: %(values)s."),
    { values: described }));
}
