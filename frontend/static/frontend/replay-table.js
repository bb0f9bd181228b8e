// A game face up, one step at a time: the deal, then each ask of the player with
// everything it led to and why the opponent asked what it asked. The public replay
// (replay.js) and the admin's inspector (challenges/replay.js) mount this one component;
// the inspector adds layers, each drawn at every step (what each side knew, the
// fair-play evidence). The steps come whole from the server; nothing is computed here.
/* global gettext */
import { $, el, fmt } from "./dom.js";
import { cardLabel, rankLabel } from "./cards.js";
import { aRank, cardFace, ranksOf, renderBucket } from "./table.js";

const percent = () => new Intl.NumberFormat(document.documentElement.lang, { style: "percent" });

// Third person: this may be someone else's game.
function eventText(e, name) {
  const mine = e.seat === 0;
  switch (e.type) {
    case "ask":
      if (mine) {
        return fmt(e.given ? gettext("%(name)s asks for %(a_rank)s: the opponent gives theirs.")
          : gettext("%(name)s asks for %(a_rank)s: the opponent has none."), { name, a_rank: aRank(e.rank) });
      }
      return fmt(e.given ? gettext("The opponent asks for %(a_rank)s: %(name)s gives theirs.")
        : gettext("The opponent asks for %(a_rank)s: %(name)s has none."), { name, a_rank: aRank(e.rank) });
    case "draw":
      return fmt(mine ? gettext("%(name)s draws %(card)s from the lake.")
        : gettext("The opponent draws %(card)s from the lake."), { name, card: cardLabel(e.card) });
    case "pair":
      return fmt(mine ? gettext("%(name)s lays down a pair of %(ranks)s.")
        : gettext("The opponent lays down a pair of %(ranks)s."), { name, ranks: ranksOf(e.rank) });
    case "pass":
      return mine ? fmt(gettext("%(name)s passes."), { name }) : gettext("The opponent passes.");
    case "end":
      return fmt(gettext("Game over: %(mine)s pairs to %(theirs)s."), { mine: e.outcome.counts[0], theirs: e.outcome.counts[1] });
    default:
      return "";
  }
}

function reasonText(r, name) {
  if (r.known) {
    return fmt(gettext("The opponent knew %(name)s held %(a_rank)s (an earlier ask showed it) and asked for it."),
      { name, a_rank: aRank(r.rank) });
  }
  const compared = Object.entries(r.chances).sort((a, b) => b[1] - a[1])
    .map(([rank, chance]) => `${rankLabel(rank)} ${percent().format(chance)}`).join(", ");
  return fmt(gettext("The opponent asked for %(a_rank)s, the rank of its hand most likely in %(name)s's hand: %(chances)s."),
    { name, a_rank: aRank(r.rank), chances: compared });
}

function cards(node, list) {
  node.replaceChildren(...list.map((card) => cardFace(card)));
}

/** Draws ``data.steps`` in ``root`` (the markup of frontend/replay_table.html) and steps
 * through them by the buttons, the slider and the keys ← → Home End. Each of ``layers``,
 * ``layer(step, at)``, draws its own part after the table at every step. Returns ``go(at)``. */
export function mountReplay(root, data, { layers = [] } = {}) {
  const steps = data.steps;
  const slider = $(root, "#step-slider");
  slider.max = String(steps.length - 1);
  slider.disabled = steps.length < 2;
  let at = 0;

  function render() {
    const step = steps[at];
    const position = fmt(gettext("Step %(at)s of %(total)s"), { at, total: steps.length - 1 });
    $(root, "#position").textContent = position;
    slider.value = String(at);
    slider.setAttribute("aria-valuetext", position);
    $(root, "#step-title").textContent = step.ask === null ? gettext("The deal")
      : fmt(gettext("Ask %(n)s: %(a_rank)s"), { n: at, a_rank: aRank(step.ask) });
    $(root, "#step-events").replaceChildren(...step.events.map((e) => el("li", { text: eventText(e, data.name) })));
    $(root, "#step-reasons").replaceChildren(...step.reasons.map((r) => el("li", { text: reasonText(r, data.name) })));
    cards($(root, "#player-cards"), step.hands[0]);
    cards($(root, "#opponent-cards"), step.hands[1]);
    cards($(root, "#lake-cards"), step.lake);
    $(root, "#lake-size").textContent = step.lake.length;
    renderBucket($(root, "#player-bucket"), step.pairs[0]);
    renderBucket($(root, "#opponent-bucket"), step.pairs[1]);
    $(root, "#first").disabled = $(root, "#previous").disabled = at === 0;
    $(root, "#next").disabled = $(root, "#last").disabled = at === steps.length - 1;
    root.dataset.step = String(at);
    for (const layer of layers) layer(step, at);
  }

  function go(to) {
    at = Math.max(0, Math.min(steps.length - 1, to));
    render();
  }

  $(root, "#first").addEventListener("click", () => go(0));
  $(root, "#previous").addEventListener("click", () => go(at - 1));
  $(root, "#next").addEventListener("click", () => go(at + 1));
  $(root, "#last").addEventListener("click", () => go(steps.length - 1));
  slider.addEventListener("input", () => go(Number(slider.value)));
  document.addEventListener("keydown", (ev) => {
    // The slider steps by itself; typing (a reason) and the browser's shortcuts are not stepping.
    if (ev.altKey || ev.ctrlKey || ev.metaKey || ev.target.closest("input, textarea, select")) return;
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: steps.length - 1 }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    go(to);
  });
  render();
  return go;
}
