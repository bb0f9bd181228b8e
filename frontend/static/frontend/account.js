// Entry module of the player page: the name, password, device code, log-in, data and
// deletion forms (DOM kept to each form's own status line; HTTP in api.js).
/* global gettext, interpolate */
import { deleteJSON, patchJSON, postJSON } from "./api.js";
import "./wait.js";  // a 429 says when the page tries again by itself
import { errorSentence } from "./errors.js";

const MESSAGES = {
  bad_login: () => gettext("Unknown name or wrong password."),
  bad_password: () => gettext("This password is too weak."),
  bad_name: () => gettext("That name cannot be used. Try letters and digits."),
  name_taken: () => gettext("This name is already taken."),
  bad_code: () => gettext("This code is unknown, expired or already used. Show a new one on your other device."),
};

function problem(err) {
  const known = MESSAGES[err.code];
  return known ? known() : errorSentence(err) || gettext("Something went wrong.") + " (" + err.code + ")";
}

function wire(id, send, after) {
  const form = document.getElementById(id);
  if (!form) return;
  const status = form.querySelector(".form-status");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const answer = await send(form);
      status.textContent = status.dataset.ok;
      after(answer);
    } catch (err) {
      status.textContent = problem(err);
    }
  });
}

wire("rename-form", (f) => patchJSON("/api/players/me", { name: f.querySelector("#rename-input").value.trim() }),
  (answer) => {
    document.getElementById("rename-input").value = answer.name;
    const title = document.getElementById("results-title");
    if (title) title.textContent = interpolate(gettext("Results of %(name)s"), { name: answer.name }, true);
  });
wire("password-form", (f) => postJSON("/api/players/me/password", { password: f.querySelector("#password-input").value }),
  () => {});
wire("login-form", (f) => postJSON("/api/session", {
  name: f.querySelector("#login-name").value.trim(), password: f.querySelector("#login-password").value,
}), () => location.assign("/me/"));
wire("code-form", (f) => postJSON("/api/session/code", { code: f.querySelector("#code-input").value }),
  () => location.assign("/me/"));

const codeButton = document.getElementById("code-make");
if (codeButton) {
  codeButton.addEventListener("click", async () => {
    const status = document.getElementById("code-status");
    try {
      const made = await postJSON("/api/players/me/code");
      document.getElementById("code-value").textContent = made.code;
      document.getElementById("code-shown").hidden = false;
      const until = new Date(made.expires_at).toLocaleTimeString(document.documentElement.lang || undefined,
        { hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
      status.textContent = interpolate(gettext("Type this code on your other device before %(time)s. It works once."),
        { time: until }, true);
      codeButton.textContent = gettext("Show a new code");
    } catch (err) {
      status.textContent = problem(err);
    }
  });
}

const deleteOpen = document.getElementById("delete-open");
const confirmPanel = document.getElementById("delete-confirm");
if (deleteOpen && confirmPanel) {
  deleteOpen.addEventListener("click", () => {
    confirmPanel.hidden = false;
    deleteOpen.hidden = true;
    document.getElementById("delete-no").focus();
  });
  document.getElementById("delete-no").addEventListener("click", () => {
    confirmPanel.hidden = true;
    deleteOpen.hidden = false;
    deleteOpen.focus();
  });
  document.getElementById("delete-yes").addEventListener("click", async () => {
    const status = document.getElementById("delete-status");
    try {
      await deleteJSON("/api/players/me");
      location.assign("/me/?deleted=1");
    } catch (err) {
      status.textContent = problem(err);
    }
  });
}
