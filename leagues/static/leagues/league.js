// Entry module of a league's page: copy the invite link; the owner renames, makes a new
// code, removes members; anyone leaves. The boards are the page's own HTML.
/* global gettext */
import { deleteJSON, patchJSON, postJSON } from "../frontend/api.js";
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
  document.getElementById("invite-code").textContent = code;
}
showCode(document.getElementById("invite-code").textContent);

document.getElementById("copy-link").addEventListener("click", async () => {
  const url = location.origin + link.dataset.path;
  try {
    await navigator.clipboard.writeText(url);
    inviteStatus.textContent = gettext("Link copied.");
  } catch {
    // No clipboard (an insecure origin, a refusal): the link is selected to copy by hand.
    const range = document.createRange();
    range.selectNodeContents(link);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    inviteStatus.textContent = gettext("Copy the selected link.");
  }
});

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

document.getElementById("leave").addEventListener("click", async () => {
  try {
    await deleteJSON(`/api/leagues/${id}/members/me`);
    location.assign("/leagues/");
  } catch (err) {
    document.getElementById("leave-status").textContent = problem(err);
  }
});
