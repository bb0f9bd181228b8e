// The only module that touches the DOM. render(state) draws everything from the plain
// state; mount() wires DOM events to the handlers given by the entry module.
/* global gettext, pgettext, interpolate, ngettext */

import { SUITS, cardLabel, rankLabel, rankOf, suitOf } from "./cards.js";
import { sideOf } from "./outcome.js";
import { $, countdownText, el, fmt, localMoment, onArrows, onFocusIndex, renderGrowing } from "./dom.js";
import { renderFigure } from "./histogram.js";
import { shareText, standingWords } from "./share.js";
import { closing, dayClosed, visibleHistory } from "./state.js";
import { aRank, eventText, fly, historyText, renderBacks, renderBucket } from "./table.js";

export { eventText };  // the tests read the page's sentences through this module

export function mount(root, handlers) {
  $(root, "#rules-ok").addEventListener("click", () => handlers.onRulesOk());
  const pace = $(root, "#pace");
  pace.value = handlers.pace;
  pace.addEventListener("change", () => handlers.onPace(pace.value));
  $(root, "#name-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    handlers.onName($(root, "#name-input").value.trim());
  });
  const hand = $(root, "#hand");
  hand.addEventListener("click", (ev) => {
    const button = ev.target.closest("button[data-rank]");
    if (button && button.getAttribute("aria-disabled") !== "true") {
      handlers.onAsk(button.dataset.rank, Number(button.dataset.index));
    }
  });
  onFocusIndex(hand, "button[data-rank]", handlers.onFocus);
  onArrows(hand, handlers.onMove);
  $(root, "#share").addEventListener("click", () => handlers.onShare($(root, "#share-text").textContent));
  $(root, "#again").addEventListener("click", () => handlers.onAgain());
  $(root, "#start-button").addEventListener("click", () => handlers.onStart());
}

let shownAttempt = null;  // a newly shown attempt takes the focus to its hand

function renderHand(root, state) {
  const v = state.view;
  const cards = state.onTable.hand;  // the view's hand, or as the running playback left it
  const hand = $(root, "#hand");
  const hadFocus = hand.contains(document.activeElement) || document.activeElement === document.body
    || shownAttempt !== v.id;
  shownAttempt = v.id;
  const myTurn = v.turn === "player" && !state.busy;
  const buttons = cards.map((card, i) => el("button", {
    type: "button", class: "card suit-" + suitOf(card), "data-rank": rankOf(card), "data-card": card,
    "data-index": i, tabindex: i === state.focus ? "0" : "-1", "aria-disabled": myTurn ? null : "true",
    // The name starts with what the card shows (speech input users say what they see).
    "aria-label": fmt(gettext("%(card)s: ask for %(a_rank)s"), { a_rank: aRank(rankOf(card)), card: cardLabel(card) }),
  }, el("span", { class: "card-rank", text: rankLabel(rankOf(card)) }),
  el("span", { class: "card-suit", "aria-hidden": "true", text: SUITS[suitOf(card)] })));
  hand.replaceChildren(...buttons);
  hand.dataset.ready = myTurn ? "1" : "0";
  if (hadFocus && buttons.length && !v.over && !dayClosed(state)) {
    buttons[Math.min(state.focus, buttons.length - 1)].focus({ preventScroll: true });
  }
}

function renderTable(root, state) {
  const t = state.onTable;
  renderBacks($(root, "#opponent-hand"), t.opponent_hand_size, 20);
  // A pile's thickness, not every card: at most 12 backs, one per four cards.
  renderBacks($(root, "#lake"), Math.ceil(t.lake_size / 4), 13);
  renderBucket($(root, "#player-bucket"), t.player_pairs);
  renderBucket($(root, "#opponent-bucket"), t.opponent_pairs);
  $(root, "#player-pairs").textContent = t.player_pairs.length;
  $(root, "#opponent-pairs").textContent = t.opponent_pairs.length;
  $(root, "#lake-size").textContent = t.lake_size;
  $(root, "#asks").textContent = t.asks;
  $(root, "#opponent-hand-size").textContent = t.opponent_hand_size;
}

// Motion that explains: the cards of the event being revealed travel across the table.
// Decoration only: the counters, buckets and the live region already say what happened.
const MOTION = {
  ask: (e) => e.given && (e.seat === 0 ? ["#opponent-hand", "#hand", null] : ["#hand", "#opponent-hand", e.rank]),
  draw: (e) => ["#lake", e.seat === 0 ? "#hand" : "#opponent-hand", e.seat === 0 ? e.card : null],
  pair: (e) => [e.seat === 0 ? "#hand" : "#opponent-hand", e.seat === 0 ? "#player-bucket" : "#opponent-bucket",
    e.rank],
};
let moved = null;

function animateMove(root, state) {
  const e = state.moving;
  if (!e || e === moved) return;
  moved = e;
  const path = MOTION[e.type] && MOTION[e.type](e);
  if (!path || !state.motionMs) return;
  const [from, to, face] = path;
  // A card the player may see flies face up (a fished card, a rank given or paired);
  // the opponent's cards fly face down.
  fly($(root, from), $(root, to), face, state.motionMs);
}

function renderHistory(root, state) {
  const entries = visibleHistory(state);
  renderGrowing($(root, "#history"), entries, (e) => el("li", {
    class: "ask seat-" + e.seat + (e.given ? " given" : ""), "data-seat": e.seat, "data-rank": e.rank,
    "data-given": e.given ? "1" : "0", "data-fished": e.fished ? "1" : "0", text: historyText(e),
  }));
  $(root, "#history-empty").hidden = entries.length > 0;
}

function renderLog(root, state) {
  const log = $(root, "#log");
  renderGrowing(log, state.announcements, (e) => el("p", { text: eventText(e) }));
  // Lines rebuilt from the history on load are old news: only what follows is read.
  log.setAttribute("aria-live", "polite");
}

let drawnBins = null;  // the bins the end panel's histogram shows

// Where a verified ranked game stands today, once the day's figures have come.
function renderStanding(root, state) {
  const v = state.view;
  const stats = v.ranked && v.status === "verified" ? state.stats : null;
  const ranked = Boolean(stats && stats.rank);
  const rank = $(root, "#end-rank");
  $(root, "#end-rank-term").hidden = rank.hidden = !ranked;
  if (ranked) rank.textContent = fmt(gettext("%(rank)s of %(players)s"), stats);
  const streak = $(root, "#end-streak");
  $(root, "#end-streak-term").hidden = streak.hidden = !ranked;
  if (ranked) {
    streak.textContent = fmt(ngettext("%(streak)s day in a row", "%(streak)s days in a row", stats.streak), stats)
      + " · " + fmt(gettext("best %(best_streak)s"), stats);
  }
  const standing = $(root, "#end-standing");
  standing.textContent = ranked ? standingWords(stats) : "";
  standing.hidden = !standing.textContent;
  const leagues = $(root, "#end-leagues");
  leagues.hidden = !(stats && state.leaguePlaces && state.leaguePlaces.length);
  if (!leagues.hidden) {
    const words = leagues.dataset;
    $(leagues, "ul").replaceChildren(...state.leaguePlaces.map((p) => el("li", { "data-league": p.id },
      el("a", { href: `/leagues/${p.id}/`, text: p.name }), " ",
      fmt(p.rank ? words.place : words.unranked, { rank: p.rank, ranked: p.ranked }))));
  }
  // Drawn once per answer from the server, not on every tick of the countdown.
  const figure = $(root, "#end-histogram");
  if (!(stats && state.bins)) figure.hidden = true;
  else if (drawnBins !== state.bins) {
    drawnBins = state.bins;
    renderFigure(figure, state.bins, ranked ? stats.score : null);
  }
  // The deal stays secret until the day closes: then your game's analysis and every public
  // replay open (the moment in the reader's own timezone).
  const replays = $(root, "#end-replays");
  const opensAt = v.ranked && state.challenge ? state.challenge.reveals_at : null;
  replays.hidden = !(opensAt && v.status === "verified" && v.result);
  if (!replays.hidden) {
    const open = Date.parse(opensAt) <= state.now;
    const link = el("a", { href: `/replays/${v.id}/` }, open ? gettext("See your game analysed")
      : gettext("Your replay will be there"));
    const a = open && state.analysis;
    const analysed = a && el("strong", { id: "end-analysis", text: fmt(gettext(
      "Your accuracy: %(accuracy)s · par of the day: %(par)s."), { accuracy: `${Math.round(a.accuracy)} %`, par: a.par ?? "—" }) });
    replays.replaceChildren(open ? gettext("The deal is public: replays and the analysis are open.")
      : fmt(gettext("Your game's analysis and the public replays open when the day closes, at %(time)s."),
        { time: localMoment(opensAt) }),
    " ", analysed || "", analysed ? " " : "", link);
  }
}

function statusText(v) {
  if (!v.ranked) return gettext("Practice game: not ranked.");
  if (v.status === "verified" && v.result) {
    const r = v.result;
    if (r.disqualified) {
      return r.reason ? fmt(gettext("Disqualified by a reviewer: %(reason)s"), r) : gettext("Disqualified by a reviewer.");
    }
    if (r.held) {
      return fmt(gettext("Under review: your score of %(score)s is provisional and is not ranked until a reviewer clears it."),
        r);
    }
    if (r.rank && r.provisional) {
      // A newcomer's: ranked, not on the public board yet (docs/fairplay.md "Newcomers").
      const d = $(document, "#daily").dataset;  // as the board
      return fmt(gettext("Verified: rank %(rank)s, provisional: newcomers get a number on the public board once they have played on %(days)s of the %(window)s days before; until then they are listed apart, as new players."),
        { rank: r.rank, days: d.establishedDays, window: d.establishedWindow });
    }
    return r.rank ? fmt(gettext("Verified: rank %(rank)s."), r) : gettext("Verified.");
  }
  if (v.status === "rejected") return gettext("Rejected by the verification.");
  return gettext("Verifying your game…");
}

function renderEnd(root, state) {
  const v = state.view;
  const panel = $(root, "#end");
  const wasHidden = panel.hidden;
  panel.hidden = !(v.over && !state.busy);
  if (panel.hidden) return;
  // The game ends: the focus goes to the end panel (it would otherwise fall to <body>).
  if (wasHidden) requestAnimationFrame(() => $(root, "#end-title").focus());
  const o = v.outcome;
  const side = sideOf(o);
  $(root, "#end-title").textContent = side === "win" ? gettext("You win!")
    : side === "loss" ? gettext("You lose.") : gettext("A draw.");
  $(root, "#end-score").textContent = o.score;
  $(root, "#end-pairs").textContent = fmt(gettext("%(mine)s to %(theirs)s"), { mine: o.counts[0], theirs: o.counts[1] });
  $(root, "#end-asks").textContent = o.asks[0];
  const statusNode = $(root, "#end-status");
  statusNode.textContent = statusText(v);
  statusNode.dataset.status = v.result && v.result.held ? "held" : v.status;
  renderStanding(root, state);
  const stats = v.ranked && v.status === "verified" ? state.stats : null;
  $(root, "#share-text").textContent = shareText({
    date: v.date, score: o.score, history: v.history, stats, url: location.origin + "/daily/",
  });
  $(root, "#share-done").textContent = state.shared === "copied" ? gettext("Copied to the clipboard.")
    : state.shared === "shared" ? gettext("Shared.") : "";
  if (state.shared === "select") {
    const range = document.createRange();
    range.selectNodeContents($(root, "#share-text"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
  }
  $(root, "#again").hidden = v.ranked;
  const countdown = $(root, "#countdown");
  countdown.hidden = !state.nextDeal;
  if (state.nextDeal) {
    countdown.textContent = fmt(gettext("Next deal in %(time)s"),
      { time: countdownText(Date.parse(state.nextDeal) - state.now) });
  }
}

function renderClose(root, state) {
  const v = state.view;
  const notice = $(root, "#close-notice");
  const closed = dayClosed(state);
  notice.hidden = !(closed || closing(state));
  if (notice.hidden) return;
  notice.dataset.closed = closed;
  $(root, "#close-text").textContent = closed
    ? gettext("This day has closed: your unfinished game no longer counts.")
    : fmt(gettext("The day is closing: finish your game within %(time)s to be ranked."),
      { time: countdownText(Date.parse(v.asks_until) - state.now) });
  const practice = $(root, "#practice-link");
  practice.hidden = !closed;
  practice.href = `/daily/${v.date}/`;
}

export function render(root, state) {
  const card = $(root, "#rules-card");
  const cardWasHidden = card.hidden;
  card.hidden = !state.rulesCard;
  if (cardWasHidden && !card.hidden) $(root, "#rules-ok").focus();
  const prompt = $(root, "#name-prompt");
  const promptWasHidden = prompt.hidden;
  prompt.hidden = !state.needsName || state.rulesCard;
  if (promptWasHidden && !prompt.hidden) $(root, "#name-input").focus();
  const start = $(root, "#start");
  const startWasHidden = start.hidden;
  start.hidden = !state.ready || state.rulesCard;
  if (startWasHidden && !start.hidden) $(root, "#start-button").focus();
  $(root, "#start-button").disabled = state.busy;
  const errorNode = $(root, "#error");
  errorNode.textContent = state.error || "";
  errorNode.hidden = !state.error;
  const noticeNode = $(root, "#notice");
  noticeNode.textContent = state.notice || "";
  noticeNode.hidden = !state.notice;
  const v = state.view;
  $(root, "#table").hidden = !v || state.rulesCard;
  $(root, "#close-notice").hidden = true;
  if (!v) return;
  $(root, "#mode").textContent = v.ranked ? fmt(gettext("Daily challenge of %(date)s"), { date: v.date })
    : fmt(gettext("Practice: deal of %(date)s (not ranked)"), { date: v.date });
  renderTable(root, state);
  renderClose(root, state);
  const turn = $(root, "#turn");
  turn.textContent = state.busy ? gettext("The cards are moving…")
    : v.over || dayClosed(state) ? gettext("Game over") : v.turn === "player" ? gettext("Your turn: ask for a rank from your hand.")
      : gettext("The opponent's turn");
  turn.dataset.turn = state.busy ? "busy" : v.over || dayClosed(state) ? "over" : v.turn;
  $(root, ".hand-box").hidden = (v.over || dayClosed(state)) && !state.busy;
  renderHand(root, state);
  renderHistory(root, state);
  renderLog(root, state);
  renderEnd(root, state);
  animateMove(root, state);
}
