// "Check this day" on a closed day's leaderboard: the browser itself checks what the site
// published, with its own implementation of the rules (peche-check.js, loaded only on
// demand): the seed's SHA-256 against the commitment, the archive's games against the
// revealed seed, one game replayed from its asks against its published score, and the
// ranking's order. It only reads (GET); nothing here takes part in play.
/* global gettext, ngettext */
import { getJSONLines } from "./api.js";
import { el, fmt } from "./dom.js";

const root = document.getElementById("day-check");
const date = root.dataset.date;
const viewer = root.dataset.viewer || null;
// The viewer's own ranked game (the page's, only for its player): a newcomer's is in no
// archive yet, so without it a new site's first days would replay nothing at all.
const ownNode = document.getElementById("own-game");
const own = ownNode ? JSON.parse(ownNode.textContent) : null;

// The form is built here, not in the template: without JavaScript there is nothing to run.
const title = el("h2", { id: "day-check-title", text: gettext("Check this day in your browser") });
const intro = el("p", { class: "muted", text: gettext(
  "Your browser deals the deck again from the revealed seed with the rules (§1 and §2 of the rules specification), replays a game from its asks and compares everything with what is published here, without trusting the site's own computation.") });
const rankInput = el("input", { id: "check-rank", type: "number", min: "1", step: "1", inputmode: "numeric",
  "aria-describedby": "check-rank-hint" });
const button = el("button", { type: "submit", id: "check-day", text: gettext("Check this day") });
const form = el("form", { id: "check-form", class: "check-form" },
  el("label", { for: "check-rank", text: gettext("Game to replay (rank)") }), rankInput, button,
  el("p", { id: "check-rank-hint", class: "hint", text: gettext("Empty: your own game, or the first if you have none.") }));
// The region exists before its first update so that screen readers announce the results.
const status = el("p", { id: "check-status", class: "check-status" });
const list = el("ul", { id: "check-list", class: "check-list" });
const results = el("div", { id: "check-results", "aria-live": "polite" }, status, list);
root.setAttribute("aria-labelledby", title.id);
root.replaceChildren(title, intro, form, results);

const pass = (text) => ({ ok: true, text });
const fail = (text) => ({ ok: false, text });

function hashCheck(computed, commitment) {
  return computed === commitment
    ? pass(gettext("SHA-256 of the revealed seed is the commitment published before the day."))
    : fail(gettext("SHA-256 of the revealed seed is not the commitment published before the day: this is not the promised deal."));
}

function seedCheck(entries, seed) {
  const stray = entries.find((e) => e.game !== "peche" || e.seed !== seed || e.date !== date);
  return stray === undefined
    ? pass(gettext("Every game of the archive was dealt from the revealed seed."))
    : fail(fmt(gettext("The archive's game ranked %(rank)s was not dealt from the revealed seed of this day."),
      { rank: stray.rank }));
}

function pick(entries, wanted) {
  if (wanted !== null) return entries.find((e) => e.rank === wanted);
  return entries.find((e) => viewer !== null && e.player === viewer) || entries[0];
}

const REPLAY_ERRORS = {
  bad_move: () => gettext("Rank %(rank)s, %(name)s: ask %(n)s is not a rank; the published asks cannot be replayed."),
  illegal_ask: () => gettext("Rank %(rank)s, %(name)s: ask %(n)s asks for a rank the player did not hold; the published asks break the rules."),
  incomplete: () => gettext("Rank %(rank)s, %(name)s: the published asks stop before the game ends."),
  extra_moves: () => gettext("Rank %(rank)s, %(name)s: the published asks go on after the game ended (from ask %(n)s)."),
};

async function replayCheck(engine, entry, seed) {
  // The committed seed from the page, not the line's own: the score must follow from the promised deal.
  const got = await engine.replayPeche({ seed, moves: entry.moves });
  const words = { rank: entry.rank, name: entry.player };
  if (got.error) {
    const sentence = REPLAY_ERRORS[got.error] || REPLAY_ERRORS.bad_move;
    return fail(fmt(sentence(), { ...words, n: got.index + 1 }));
  }
  // The player's pairs: `player_pairs` as on the leaderboard API, or `pairs`.
  const pairs = entry.player_pairs !== undefined ? entry.player_pairs : entry.pairs;
  const published = { published_score: entry.score, published_asks: entry.asks, published_pairs: pairs };
  const replayed = { score: got.score, asks: got.player_asks, pairs: got.player_pairs };
  if (replayed.score === entry.score && replayed.asks === entry.asks && replayed.pairs === pairs) {
    return pass(fmt(gettext("Rank %(rank)s, %(name)s: replayed from the seed and the asks, %(score)s points with %(pairs)s pairs in %(asks)s asks, as published."),
      { ...words, ...replayed }));
  }
  return fail(fmt(gettext("Rank %(rank)s, %(name)s: the replay gives %(score)s points with %(pairs)s pairs in %(asks)s asks, but the archive says %(published_score)s points with %(published_pairs)s pairs in %(published_asks)s asks."),
    { ...words, ...replayed, ...published }));
}

function orderCheck(engine, entries) {
  const at = engine.firstOutOfOrder(entries);
  if (at === -1) {
    return pass(fmt(ngettext("The %(count)s ranked game is in the published order: score, then fewer asks, then the earlier finish.",
      "The %(count)s ranked games are in the published order: score, then fewer asks, then the earlier finish.", entries.length),
    { count: entries.length }));
  }
  return fail(fmt(gettext("The ranking is out of order at line %(line)s (ranked %(rank)s): it should go by score, then fewer asks, then the earlier finish."),
    { line: at + 1, rank: entries[at].rank }));
}

// The rows this page shows must say what the archive says: it is what a visitor reads.
function tableCheck(entries) {
  const byRank = new Map(entries.map((e) => [e.rank, e]));
  for (const row of document.querySelectorAll("table.board tbody tr[data-rank]")) {
    const rank = Number(row.dataset.rank);
    const e = byRank.get(rank);
    if (!e || e.player !== row.dataset.name || e.score !== Number(row.dataset.score) || e.asks !== Number(row.dataset.asks)) {
      return fail(fmt(gettext("The archive does not say what this page shows for rank %(rank)s."), { rank }));
    }
  }
  return pass(gettext("The archive says what this page shows for every rank listed."));
}

function show(checks, replayed = true) {
  list.replaceChildren(...checks.map((c) => el("li", { class: c.ok ? "check-pass" : "check-fail" },
    el("span", { class: "check-mark", "aria-hidden": "true", text: c.ok ? "✓" : "✗" }), " ", c.text)));
  const failed = checks.filter((c) => !c.ok).length;
  // Nothing replayed is not "every check passed": only the commitment was checked.
  status.textContent = failed === 0 && !replayed ? gettext("The commitment checks, but there is no game on this day to replay.")
    : failed === 0 ? gettext("Every check passed.")
    : fmt(ngettext("%(count)s check failed.", "%(count)s checks failed.", failed), { count: failed });
  status.className = "check-status " + (failed === 0 ? "check-pass" : "check-fail");
}

// The viewer's own game replayed, when the archive does not hold it (a newcomer's).
async function ownCheck(engine, seed) {
  const checked = await replayCheck(engine, own, seed);
  return { ok: checked.ok, text: `${gettext("Your game, not in the public archive yet (a newcomer's):")} ${checked.text}` };
}

async function check() {
  const seed = document.getElementById("seed").textContent;
  const commitment = document.getElementById("commitment").textContent;
  const wanted = rankInput.value === "" ? null : Number(rankInput.value);
  const engine = await import("./peche-check.js");
  const checks = [hashCheck(await engine.commitmentOf(seed), commitment)];
  let entries;
  try {
    entries = await getJSONLines(`/api/challenges/${date}/archive`);
  } catch {
    checks.push(fail(gettext("The day's archive could not be loaded, so no game was replayed.")));
    return { checks, replayed: false };
  }
  const ownApart = own !== null && !own.listed;
  if (entries.length === 0) {
    checks.push(pass(gettext("The public archive of this day holds no game yet: there is no public game to replay.")));
    if (ownApart) checks.push(await ownCheck(engine, seed));
    return { checks, replayed: ownApart };
  }
  checks.push(seedCheck(entries, seed));
  // The rank asked for, else the viewer's own game (replayed apart when the archive has not got it), else the first.
  const entry = wanted === null && ownApart ? null : pick(entries, wanted);
  if (wanted === null && ownApart) checks.push(await ownCheck(engine, seed));
  else {
    checks.push(entry ? await replayCheck(engine, entry, seed)
      : fail(fmt(gettext("No game is ranked %(rank)s on this day."), { rank: wanted })));
  }
  checks.push(orderCheck(engine, entries), tableCheck(entries));
  return { checks, replayed: true };
}

form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  button.disabled = true;
  list.replaceChildren();
  status.className = "check-status";
  status.textContent = gettext("Checking…");
  try {
    const { checks, replayed } = await check();
    show(checks, replayed);
  } catch {
    // E.g. no WebCrypto (a page served over plain http from another host): say so, never hang.
    show([fail(gettext("This browser could not run the check."))]);
  } finally {
    button.disabled = false;
  }
});
