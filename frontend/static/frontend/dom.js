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
