// DOM helpers shared by the render modules of every game page (no game rules here).
/* global interpolate */

export const $ = (root, sel) => root.querySelector(sel);
export const fmt = (text, values) => interpolate(text, values, true);

// el("li", {class: "x", text: "…", "aria-label": "…"}, ...children)
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c) node.append(c);
  return node;
}

/** A share of players, 0–100, as the reader's language writes numbers ("95,5" in French). */
export const percentText = (value) => new Intl.NumberFormat(document.documentElement.lang || "en",
  { maximumFractionDigits: 1 }).format(value);

const pad = (n) => String(n).padStart(2, "0");

/** A wait as HH:MM:SS (the countdowns to the next deal and to the close). */
export function countdownText(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
}

// A moment in the reader's own timezone, written one way on every page: the ISO day and
// the 24-hour time, then the zone's short name ("2026-12-04 00:05 UTC+1").
export function localMoment(iso) {
  const when = new Date(iso);
  const parts = Object.fromEntries(new Intl.DateTimeFormat("en-CA", {
    year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23",
  }).formatToParts(when).map((p) => [p.type, p.value]));
  const zone = zoneName(when);
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}${zone ? " " + zone : ""}`;
}

/** The reader's time zone's short name at that moment, in the page's language ("UTC+1"). */
export function zoneName(when) {
  const zone = new Intl.DateTimeFormat(document.documentElement.lang || "en", { timeZoneName: "short" })
    .formatToParts(when).find((p) => p.type === "timeZoneName");
  return zone ? zone.value : "";
}

const ARROWS = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1 };

// Roving focus over a row of buttons (a hand, the seats): the arrows move it by one.
// Returns the key handler's verdict so a caller can handle other keys (Enter, Space).
export function onArrows(row, onMove, onOtherKey) {
  row.addEventListener("keydown", (ev) => {
    const delta = ARROWS[ev.key];
    if (delta) {
      ev.preventDefault();
      onMove(delta);
    } else if (onOtherKey) {
      onOtherKey(ev);
    }
  });
}

// Focus landing on a button of the row (Tab, click) tells the state which one it is.
export function onFocusIndex(row, selector, onFocus) {
  row.addEventListener("focusin", (ev) => {
    const button = ev.target.closest(selector);
    if (button) onFocus(Number(button.dataset.index));
  });
}

// A list that only grows between two resets (a history, a log read out by a live
// region): only the new entries are added, so that a screen reader hears only them;
// a shorter list (another game) starts it again. Scrolled to its newest entry.
export function renderGrowing(node, items, make) {
  if (node.childElementCount > items.length) node.replaceChildren();
  for (let i = node.childElementCount; i < items.length; i++) node.append(make(items[i]));
  if (node.lastElementChild) node.scrollTop = node.scrollHeight;
}
