// The notice of a rate limit, on every page that imports it: a 429 says when to try
// again (Retry-After); api.js waits that long and tries again by itself, and this
// module says so in the page's language until it is over. No request of its own.
/* global gettext, interpolate */
import { onRateLimitWait } from "./api.js";

const say = (text) => (typeof gettext === "function" ? gettext(text) : text);
const fill = (text, values) => (typeof interpolate === "function" ? interpolate(text, values, true)
  : text.replace(/%\((\w+)\)s/g, (_, key) => values[key]));

let note = null;
let timer = null;

function shown() {
  if (!note) {
    note = document.createElement("p");
    note.id = "wait-note";
    note.className = "wait-note";
    note.setAttribute("role", "status");
    note.setAttribute("aria-live", "polite");
    const main = document.querySelector("main") || document.body;
    main.prepend(note);
  }
  note.hidden = false;
  return note;
}

function render(until) {
  const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
  const text = left > 90
    ? fill(say("Too many tries for now. This page tries again by itself at %(time)s."), {
      time: new Date(until).toLocaleTimeString(document.documentElement.lang || undefined,
        { hour: "2-digit", minute: "2-digit", timeZoneName: "short" }),
    })
    : fill(say("Too many tries for now. This page tries again by itself in %(seconds)s s."), { seconds: left });
  const target = shown();
  if (target.textContent !== text) target.textContent = text;
}

onRateLimitWait((seconds) => {
  clearInterval(timer);
  if (seconds === null) {
    if (note) { note.hidden = true; note.textContent = ""; }
    return;
  }
  const until = Date.now() + seconds * 1000;
  render(until);
  // A long wait is said once (a live region read every second would be noise).
  timer = setInterval(() => (Date.now() >= until ? clearInterval(timer) : seconds <= 90 && render(until)), 1000);
});
