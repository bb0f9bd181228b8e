// The day's explorer beside each ask of a closed day's replay: how the day's players asked
// at that same point of the deal (GET /api/challenges/<date>/positions?moves=…: the share
// who asked the same, their mean final score) and the engine's ask there. Everyone played
// the same deal against the same opponent, so the asks before this one name the point.
//
// Fetched lazily, one request per ask viewed and kept (a step seen again asks nothing):
// most readers look at a few asks, and each answer is small and cacheable by a CDN once
// the day is settled. The line's space is kept while it loads, so nothing below it moves.
// Its own module, mounted as a layer of the replay (replay-table.js), beside the analysis.
/* global gettext, ngettext */
import { getJSON } from "./api.js";
import { el, fmt } from "./dom.js";
import { aRank } from "./table.js";

const lang = () => document.documentElement.lang || "en";

/** A share in words: "34 %", and under 10 % to a tenth ("0.4 %"), so a rare ask never reads 0. */
export const shareText = (share) => new Intl.NumberFormat(lang(),
  { style: "percent", maximumFractionDigits: share < 0.1 ? 1 : 0 }).format(share);
const scoreText = (score) => new Intl.NumberFormat(lang(), { maximumFractionDigits: 0 }).format(score);

// Sentences after one another: a space, but none after a Japanese full stop.
const joined = (...sentences) => sentences.filter(Boolean)
  .reduce((text, next) => (!text ? next : /[。！？]$/.test(text) ? text + next : `${text} ${next}`), "");

/** The explorer's sentence at one ask: ``position`` the API's answer at the point before it,
 * ``asked`` the rank this player asked there, ``best`` the engine's ask there (or null). */
export function explorerText(position, asked, best) {
  const engine = !best ? "" : best === asked ? gettext("The engine asks for it too.")
    : fmt(gettext("The engine asks for %(a_rank)s."), { a_rank: aRank(best) });
  const same = position.next.find((n) => n.rank === asked);
  if (!same) {
    // A game the day's figures leave out (held for review): nobody counted got here by it.
    return joined(gettext("This game is not in the day's figures."), engine);
  }
  const words = { players: scoreText(position.players), share: shareText(same.share), a_rank: aRank(asked),
    mean: scoreText(same.mean_score) };
  let told;
  if (position.players === 1) {
    told = gettext("No other player of the day got this far along this line.");
  } else if (same.players === position.players) {
    told = fmt(ngettext("All %(players)s players who got here asked for %(a_rank)s; they scored %(mean)s points on average.",
      "All %(players)s players who got here asked for %(a_rank)s; they scored %(mean)s points on average.",
      position.players), words);
  } else {
    told = fmt(ngettext("%(share)s of the %(players)s player who got here asked for %(a_rank)s; they scored %(mean)s points on average.",
      "%(share)s of the %(players)s players who got here asked for %(a_rank)s; they scored %(mean)s points on average.",
      position.players), words);
  }
  return joined(told, engine);
}

/** The replay's layer (mountReplay's ``layers``): draws the line for the step shown, in a
 * paragraph of its own put after the step's analysis. ``engineAsk(index)``: the engine's ask
 * at the index-th ask from the game's own analysis once it is read (the words then agree
 * with the verdict above), else the explorer's. */
export function explorerLayer(root, data, { engineAsk = () => null } = {}) {
  const box = el("p", { id: "step-explorer", class: "step-explorer", hidden: true });
  root.querySelector("#step-analysis").after(box);
  const moves = data.steps.slice(1).map((s) => s.ask);
  const asked = new Map();  // step → the promise of its position
  let shown = 0;

  function draw(at, position) {
    const best = engineAsk(at - 1) || (position.engine && position.engine.best) || null;
    box.textContent = explorerText(position, moves[at - 1], best);
    box.classList.remove("loading");
  }

  return function layer(step, at) {
    shown = at;
    box.hidden = at === 0;  // the deal: no ask to compare
    if (at === 0) return;
    if (!asked.has(at)) {
      const query = encodeURIComponent(moves.slice(0, at - 1).join(","));
      asked.set(at, getJSON(`/api/challenges/${data.date}/positions?moves=${query}`));
      box.classList.add("loading");
      box.textContent = gettext("How the day's players asked here…");
    }
    asked.get(at).then((position) => { if (shown === at) draw(at, position); }, (err) => {
      asked.delete(at);  // asked again when the step is shown again
      if (shown !== at) return;
      box.classList.remove("loading");
      box.textContent = gettext("The day's figures could not be read.");
      console.warn("no explorer", err.code || err.message);
    });
  };
}
