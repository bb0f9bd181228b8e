// DOM helpers shared by the render modules of every game page (no game rules here).
/* global interpolate */

export const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
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
