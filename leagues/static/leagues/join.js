// Entry module of the invite link /leagues/join/<code>/: a visitor without a name chooses
// one first (a new player, as on the daily page), then joins; a player joins with a click.
import { postJSON } from "../frontend/api.js";
import "../frontend/wait.js";
import { problem } from "./messages.js";

const box = document.getElementById("join");
const code = box.dataset.code;
const form = document.getElementById("join-now") || document.getElementById("join-named");
const status = form.querySelector(".form-status");
const nameInput = document.getElementById("join-name");
let named = false;  // a name chosen by this page: a retry (a full league, a wait) only joins

form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  status.textContent = "";
  if (nameInput && !named) {
    try {
      await postJSON("/api/players", { name: nameInput.value.trim() });
      named = true;
      nameInput.disabled = true;
    } catch (err) {
      status.textContent = problem(err, true);
      nameInput.focus();
      return;
    }
  }
  try {
    const league = await postJSON("/api/leagues/join", { code });
    location.assign(`/leagues/${league.id}/`);
  } catch (err) {
    status.textContent = problem(err);
  }
});
if (nameInput) nameInput.focus();
