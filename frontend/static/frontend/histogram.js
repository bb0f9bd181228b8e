// The day's scores as a bar chart (an inline SVG): the leaderboard page and the daily
// game's end panel draw it with this one module. Each bar's count is written above it;
// the viewer's own bar is marked (aria-current="true") and captioned.
/* global gettext, ngettext */
import { fmt } from "./dom.js";

const STEP = 30;  // scores move by 30 points per pair of difference

// Drawn inside the page's own <svg>, in its namespace.
function svgEl(svg, tag, attrs, text) {
  const node = document.createElementNS(svg.namespaceURI, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Bar geometry in a viewBox of 300×130 (bars in a 280×84 plot, counts above them). */
export function geometry(bins) {
  if (!bins.length) return null;
  let low = Math.min(...bins.map((b) => b.score));
  let high = Math.max(...bins.map((b) => b.score));
  const top = Math.max(...bins.map((b) => b.count));
  // A few empty slots either side: a single score is not one giant bar.
  while ((high - low) / STEP + 1 < 9) {
    low -= STEP;
    high += STEP;
  }
  const slots = (high - low) / STEP + 1;
  const width = 280 / slots;
  const bars = bins.map((b) => {
    const h = Math.max(84 * b.count / top, 1);
    return {
      x: 10 + ((b.score - low) / STEP) * width + width * 0.1, w: Math.max(width * 0.8, 1),
      y: 106 - h, h, score: b.score, count: b.count, cx: 10 + ((b.score - low) / STEP + 0.5) * width,
    };
  });
  return { bars, low, high, top, width };
}

const compact = (n) => new Intl.NumberFormat(document.documentElement.lang || "en",
  { notation: n >= 1000 ? "compact" : "standard", maximumFractionDigits: 1 }).format(n);

/** Draws ``bins`` ([{score, count}]) into ``svg``; ``mine`` is the viewer's score or null.
 * Returns the viewer's bar ({score, count}) or null. */
export function drawHistogram(svg, bins, mine) {
  const g = geometry(bins);
  svg.replaceChildren();
  svg.setAttribute("viewBox", "0 0 300 130");
  if (!g) return null;
  svg.append(svgEl(svg, "line", { x1: 10, y1: 106, x2: 290, y2: 106, class: "axis" }));
  const size = Math.min(10, Math.max(6, g.width * 0.9)).toFixed(1);  // readable, yet inside its slot
  let marked = null;
  for (const bar of g.bars) {
    const mineBar = mine !== null && mine !== undefined && bar.score === mine;
    const rect = svgEl(svg, "rect", { x: bar.x.toFixed(2), y: bar.y.toFixed(2), width: bar.w.toFixed(2),
      height: bar.h.toFixed(2), "data-score": bar.score, "data-count": bar.count });
    rect.append(svgEl(svg, "title", {}, fmt(gettext("%(score)s points: %(count)s"), bar)));
    if (mineBar) {
      rect.setAttribute("aria-current", "true");
      rect.setAttribute("class", "mine");
      marked = bar;
    }
    svg.append(rect);
    svg.append(svgEl(svg, "text", { x: bar.cx.toFixed(2), y: (bar.y - 2).toFixed(2), class: "count" + (mineBar ? " mine" : ""),
      "text-anchor": "middle", "font-size": size }, compact(bar.count)));
    if (mineBar) {
      svg.append(svgEl(svg, "text", { x: bar.cx.toFixed(2), y: 115, class: "you", "text-anchor": "middle" }, "▲"));
    }
  }
  svg.append(svgEl(svg, "text", { x: 10, y: 126, class: "label" }, g.low));
  svg.append(svgEl(svg, "text", { x: 290, y: 126, class: "label", "text-anchor": "end" }, g.high));
  return marked;
}

/** The figure's caption: what the chart shows and where the viewer stands in it. */
export function histogramCaption(bins, marked) {
  const players = bins.reduce((n, b) => n + b.count, 0);
  let text = fmt(ngettext("Scores of the day: %(players)s ranked player.", "Scores of the day: %(players)s ranked players.",
    players), { players });
  if (marked) {
    text += " " + fmt(ngettext("Your bar (▲): %(score)s points, %(count)s player.",
      "Your bar (▲): %(score)s points, %(count)s players.", marked.count), marked);
  }
  return text;
}

/** A <figure> already in the page: its <svg> and <figcaption> drawn from the data. */
export function renderFigure(figure, bins, mine) {
  const marked = drawHistogram(figure.querySelector("svg"), bins, mine);
  figure.querySelector("figcaption").textContent = histogramCaption(bins, marked);
  figure.hidden = !bins.length;
}
