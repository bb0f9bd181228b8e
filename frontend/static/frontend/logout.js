// The header's log-out button (base.html), on every page for a signed-in player. A player
// without a password is asked first, in the page: once logged out they cannot come back.
import { deleteJSON } from "./api.js";

const box = document.querySelector(".logout");
if (box) {
  const button = box.querySelector(".logout-button");
  const error = box.querySelector(".logout-error");
  const dialog = document.getElementById("logout-dialog");

  async function logOut() {
    button.disabled = true;
    error.hidden = true;
    try {
      await deleteJSON("/api/session");
    } catch {
      error.textContent = box.dataset.error;
      error.hidden = false;
      button.disabled = false;
      return;
    }
    window.location.reload();  // the same page, signed out
  }

  button.addEventListener("click", () => {
    if (box.dataset.hasPassword === "true") logOut();
    else dialog.showModal();
  });
  dialog.querySelector(".logout-cancel").addEventListener("click", () => dialog.close());
  dialog.querySelector(".logout-confirm").addEventListener("click", () => {
    dialog.close();
    logOut();
  });
}
