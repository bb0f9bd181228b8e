// The review queue's "How to read this queue" is read once: closed, it stays closed on
// this browser's next visits (opened again, it stays open).
const explain = document.getElementById("explain");
const KEY = "peche:admin-explain-closed";
if (explain) {
  try {
    if (localStorage.getItem(KEY) === "1") explain.open = false;
    explain.addEventListener("toggle", () => localStorage.setItem(KEY, explain.open ? "0" : "1"));
  } catch (_) { /* no storage: it stays open */ }
}
