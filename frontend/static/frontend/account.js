// Entry module of the player page: the password and log-in forms (DOM kept to the
// form's own status line; HTTP in api.js).
/* global gettext */
import { postJSON } from "./api.js";

function wire(id, send, after) {
  const form = document.getElementById(id);
  if (!form) return;
  const status = form.querySelector(".form-status");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await send(form);
      status.textContent = status.dataset.ok;
      after();
    } catch (err) {
      status.textContent = err.code === "bad_login" ? gettext("Unknown name or wrong password.")
        : err.code === "bad_password" ? gettext("This password is too weak.")
          : gettext("Something went wrong.") + " (" + err.code + ")";
    }
  });
}

wire("password-form", (f) => postJSON("/api/players/me/password", { password: f.querySelector("#password-input").value }),
  () => {});
wire("login-form", (f) => postJSON("/api/session", {
  name: f.querySelector("#login-name").value.trim(), password: f.querySelector("#login-password").value,
}), () => location.assign("/me/"));
