// Entry module of /leagues/: create a league, join one by its code (HTTP in api.js).
import { postJSON } from "../frontend/api.js";
import "../frontend/wait.js";  // a 429 says when the page tries again by itself
import { problem } from "./messages.js";

function wire(id, send) {
  const form = document.getElementById(id);
  const status = form.querySelector(".form-status");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    status.textContent = "";
    try {
      const league = await send(form);
      location.assign(`/leagues/${league.id}/`);
    } catch (err) {
      status.textContent = problem(err);
    }
  });
}

wire("create-form", (f) => postJSON("/api/leagues", { name: f.querySelector("#create-name").value }));
wire("join-form", (f) => postJSON("/api/leagues/join", { code: f.querySelector("#join-code").value }));
