// The replay inspector: one step shown at a time, buttons and ← → to move.
document.addEventListener("DOMContentLoaded", () => {
  const steps = [...document.querySelectorAll(".replay-step")];
  let at = 0;
  const show = () => {
    steps.forEach((s, i) => { s.hidden = i !== at; });
    document.getElementById("step-pos").textContent = `${at + 1} / ${steps.length}`;
  };
  const go = (delta) => { at = Math.min(steps.length - 1, Math.max(0, at + delta)); show(); };
  document.querySelectorAll("#steps-nav button").forEach((b) => b.addEventListener("click", () => go(Number(b.dataset.step))));
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, textarea")) return;  // typing a reason is not stepping
    if (e.key === "ArrowRight") go(1);
    else if (e.key === "ArrowLeft") go(-1);
  });
  show();
});
