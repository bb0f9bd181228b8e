// Entry module of a league's page: send or copy the invite link and code; the owner renames, makes a new
// code, removes members; anyone leaves. The boards are the page's own HTML.
/* global gettext */
import { deleteJSON, patchJSON, postJSON } from "../frontend/api.js";
import { fmt } from "../frontend/dom.js";
import "../frontend/wait.js";
import { problem } from "./messages.js";

const root = document.getElementById("league");
const id = root.dataset.league;
const inviteStatus = document.getElementById("invite-status");
const link = document.getElementById("invite-link");

// The link as friends will open it: with this site's address.
function showCode(code) {
  const path = `/leagues/join/${code}/`;
  link.dataset.path = path;
  link.textContent = location.origin + path;
  document.getElementById("leave-dialog-link").textContent = location.origin + path;
  document.getElementById("invite-code").textContent = code;
}
showCode(document.getElementById("invite-code").textContent);

// The clipboard, or the text selected to copy by hand (an insecure origin, a refusal).
async function copy(node, text, done, byHand) {
  try {
    await navigator.clipboard.writeText(text);
    inviteStatus.textContent = done;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(node);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    inviteStatus.textContent = byHand;
  }
}

document.getElementById("copy-link").addEventListener("click", () => copy(link, location.origin + link.dataset.path,
  gettext("Link copied."), gettext("Copy the selected link.")));
const code = document.getElementById("invite-code");
document.getElementById("copy-code").addEventListener("click", () => copy(code, code.textContent,
  gettext("Code copied."), gettext("Copy the selected code.")));

// A phone's share sheet (messages, mail, chat apps) where the browser has one.
const share = document.getElementById("share-link");
if (navigator.share) {
  share.hidden = false;
  share.addEventListener("click", async () => {
    const title = document.getElementById("league-title").textContent;
    try {
      await navigator.share({ title, text: fmt(gettext("Join my league “%(name)s” on Pêche:"), { name: title }),
        url: location.origin + link.dataset.path });
      inviteStatus.textContent = gettext("Link sent.");
    } catch (err) {
      if (err && err.name === "AbortError") return;  // the sheet closed without sending
      await copy(link, location.origin + link.dataset.path, gettext("Link copied."), gettext("Copy the selected link."));
    }
  });
}

const rename = document.getElementById("rename-form");
if (rename) {
  rename.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const status = rename.querySelector(".form-status");
    try {
      const league = await patchJSON(`/api/leagues/${id}`, { name: document.getElementById("rename-input").value });
      document.getElementById("league-title").textContent = league.name;
      document.title = league.name;
      status.textContent = gettext("Renamed.");
    } catch (err) {
      status.textContent = problem(err);
    }
  });
}

const newCode = document.getElementById("new-code");
if (newCode) {
  newCode.addEventListener("click", async () => {
    try {
      const league = await postJSON(`/api/leagues/${id}/code`);
      showCode(league.code);
      inviteStatus.textContent = gettext("New code made: the old link no longer works.");
    } catch (err) {
      inviteStatus.textContent = problem(err);
    }
  });
}

const membersStatus = document.getElementById("members-status");
for (const button of document.querySelectorAll(".remove-member")) {
  button.addEventListener("click", async () => {
    try {
      await deleteJSON(`/api/leagues/${id}/members/${button.dataset.player}`);
      const row = button.closest("li");
      membersStatus.textContent = gettext("Member removed.");
      row.remove();
    } catch (err) {
      membersStatus.textContent = problem(err);
    }
  });
}

// Leaving is confirmed in a dialog that gives the way back (the same link).
const leaveDialog = document.getElementById("leave-dialog");
document.getElementById("leave").addEventListener("click", () => leaveDialog.showModal());
document.getElementById("leave-cancel").addEventListener("click", () => leaveDialog.close());
document.getElementById("leave-confirm").addEventListener("click", async () => {
  leaveDialog.close();
  try {
    await deleteJSON(`/api/leagues/${id}/members/me`);
    location.assign("/leagues/");
  } catch (err) {
    document.getElementById("leave-status").textContent = problem(err);
  }
});
