// A finished day's public replay: the game face up, step by step (replay-table.js, the
// component the admin's inspector mounts too), and on the player's own replay the
// lessons, each a link to its ask.
import { $, el } from "./dom.js";
import { lessonText, mountReplay } from "./replay-table.js";

const root = document.getElementById("replay");
const data = JSON.parse(document.getElementById("replay-data").textContent);
const go = mountReplay(root, data);

const list = document.getElementById("lessons");
if (list) {
  list.replaceChildren(...data.lessons.map((lesson) => el("li", {},
    el("a", { href: `#step-${lesson.index + 1}`, "data-step": lesson.index + 1, text: lessonText(lesson) }))));
  list.addEventListener("click", (ev) => {
    const link = ev.target.closest("a[data-step]");
    if (!link) return;
    ev.preventDefault();
    go(Number(link.dataset.step));
    $(root, "#step-title").scrollIntoView();
  });
  document.getElementById("no-lessons").hidden = data.lessons.length > 0;
}
