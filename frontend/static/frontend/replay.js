// A finished day's public replay: the game face up, step by step (replay-table.js, the
// component the admin's inspector mounts too), with its analysis (analysis.js): at each
// ask what it was worth beside the engine's, and the asks that cost, each a link to its step.
/* global gettext */
import { $, el, fmt } from "./dom.js";
import { mountReplay } from "./replay-table.js";
import { accuracyText, askText, drawValues, labelText, loadAnalysis, pairsText, reasonText } from "./analysis.js";
import { aRank } from "./table.js";
import { explorerLayer } from "./explorer.js";

const root = document.getElementById("replay");
const data = JSON.parse(document.getElementById("replay-data").textContent);
let analysis = data.analysis;

function stepLayer(step, at) {
  const box = $(root, "#step-analysis");
  const ask = analysis && at > 0 ? analysis.asks[at - 1] : null;
  box.hidden = !ask;
  if (!ask) return;
  $(box, "#step-verdict").textContent = askText(ask, data.name);
  $(box, "#step-verdict").className = ask.label ? `verdict ${ask.label}` : "verdict";
  const reason = reasonText(ask);
  $(box, "#step-reason").hidden = !reason;
  $(box, "#step-reason").textContent = reason;
  drawValues($(box, "#step-values"), ask);
}

// How the day's players asked at each ask (explorer.js): the engine's ask from this game's analysis once read.
const explored = explorerLayer(root, data, { engineAsk: (i) => (analysis && analysis.asks[i] ? analysis.asks[i].best : null) });
const go = mountReplay(root, data, { layers: [stepLayer, explored] });

// Luck and par said in words for a reader who is no statistician: which way the draws went,
// and the score as a share of the par.
function summaryWords() {
  const pairs = new Intl.NumberFormat(document.documentElement.lang || "en",
    { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(Math.abs(analysis.luck));
  const luck = Math.abs(analysis.luck) < 0.05 ? gettext("The draws were worth what they are worth on average.")
    : fmt(analysis.luck > 0 ? gettext("The draws were worth %(pairs)s pairs more than average.")
      : gettext("The draws were worth %(pairs)s pairs less than average."), { pairs });
  const score = Number(document.getElementById("analysis").dataset.score);
  if (!analysis.par || !score) return luck;
  const share = new Intl.NumberFormat(document.documentElement.lang || "en", { style: "percent" }).format(score / analysis.par);
  // Two sentences in a row: a space between them, none in Japanese.
  return fmt(gettext("%(first)s %(second)s"), { first: luck, second: fmt(gettext("The score is %(share)s of the par."), { share }) });
}

function drawSummary() {
  $(root, "#analysis-summary").dataset.ready = "true";
  $(root, "#analysis-accuracy").textContent = accuracyText(analysis.accuracy);
  $(root, "#analysis-luck").textContent = fmt(gettext("%(luck)s pairs"), { luck: pairsText(analysis.luck) });
  $(root, "#analysis-par").textContent = analysis.par === null ? "—" : String(analysis.par);
  $(root, "#analysis-status").textContent = summaryWords();
  const costly = analysis.asks.filter((a) => a.label);
  $(root, "#analysis-moments").replaceChildren(...costly.map((a) => el("li", { class: a.label },
    el("a", { href: `#step-${a.index + 1}`, "data-step": a.index + 1,
      text: fmt(gettext("Ask %(n)s, %(a_rank)s: %(label)s (−%(loss)s pairs)"), { n: a.index + 1, a_rank: aRank(a.rank),
        label: labelText(a.label), loss: new Intl.NumberFormat(document.documentElement.lang || "en",
          { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(a.loss) }) }))));
  $(root, "#analysis-clean").hidden = costly.length > 0;
  go(Number(root.dataset.step || 0));  // the step shown gets its analysis
}

$(root, "#analysis-moments").addEventListener("click", (ev) => {
  const link = ev.target.closest("a[data-step]");
  if (!link) return;
  ev.preventDefault();
  go(Number(link.dataset.step));
  $(root, "#step-title").scrollIntoView();
  $(root, "#step-title").focus();
});

if (analysis) drawSummary();
else {
  loadAnalysis(data.id).then((found) => {
    analysis = found;
    drawSummary();
  }, (err) => {
    $(root, "#analysis-status").textContent = err.code === "analysis_budget"
      ? gettext("Today's analyses are all taken: this game can be analysed later.")
      : gettext("The analysis is not ready yet: come back in a minute.");
    console.warn("no analysis", err.code || err.message);
  });
}
