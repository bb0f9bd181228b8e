// How every game page plays out a server's events (the daily ask, Kitten's deal and
// flips, Go Fish's other seats): step after step at the page's pace; a key or a tap
// finishes it at once and does nothing else; reduced motion keeps the steps, drops the
// movement. No rules, no game state: the page's mutators and render() show each step.

const reducedMotion = () => matchMedia("(prefers-reduced-motion: reduce)").matches;

// Every running animation jumps to its end (an infinite one cannot: it is cancelled).
export function finishMotion() {
  for (const motion of document.getAnimations()) {
    try { motion.finish(); } catch (_) { motion.cancel(); }
  }
}

export function createPlayback() {
  const waits = new Set();  // the pending waits: {done, finishable}
  let run = 0;              // bumped by stop(): a stopped play() goes no further

  function wait(ms, finishable) {
    if (ms <= 0 || (finishable && playback.hurried)) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = { finishable, done: () => { clearTimeout(timer); waits.delete(entry); resolve(); } };
      const timer = setTimeout(entry.done, ms);
      waits.add(entry);
    });
  }

  const playback = {
    hurried: false,   // finish() was asked: the rest shows at once

    /** ``step(item, i)`` for each item; false if stop() came first. finish() ends the
     * rest, or with ``finishes: "step"`` the running step only (Kitten's seeds). */
    async play(items, step, { finishes = "all" } = {}) {
      const mine = run;
      playback.hurried = false;
      try {
        for (const [i, item] of items.entries()) {
          if (run !== mine) return false;
          await step(item, i);
          if (finishes === "step") playback.hurried = false;
        }
        return run === mine;
      } finally {
        if (run === mine) playback.hurried = false;
      }
    },

    /** A pause between two steps: finish() ends it, and none is made after it. */
    pause: (ms) => wait(ms, true),
    /** A pause that is not motion (an opponent thinking, Auto's breath): only stop() ends it. */
    think: (ms) => wait(ms, false),
    /** How long a movement of ``ms`` runs now: none once finished or with reduced motion. */
    motion: (ms) => (playback.hurried || reducedMotion() ? 0 : Math.max(0, ms)),

    finish() {
      playback.hurried = true;
      finishMotion();
      for (const entry of [...waits]) if (entry.finishable) entry.done();
    },

    /** The page moves on (another game): every wait ends, play() returns false. */
    stop() {
      run += 1;
      playback.hurried = true;
      finishMotion();
      for (const entry of [...waits]) entry.done();
    },
  };
  return playback;
}

const NOT_AN_ANSWER = ["Tab", "Shift", "Control", "Alt", "Meta"];

// While ``active()``, a key or a tap on ``area`` finishes the playback and is swallowed
// (it never reaches a card: no ask, no flip); on one of the ``controls`` (a selector) it
// finishes it and the control acts. Tab and modifier shortcuts keep their meaning.
export function finishOnInput(area, playback, { active, controls = null }) {
  const onControl = (target) => Boolean(controls && target instanceof Element && target.closest(controls));
  function onInput(ev) {
    if (!active()) return;
    if (ev.type === "keydown" && (ev.ctrlKey || ev.metaKey || ev.altKey || NOT_AN_ANSWER.includes(ev.key))) return;
    playback.finish();
    if (onControl(ev.target)) return;
    ev.preventDefault();
    ev.stopPropagation();
  }
  document.addEventListener("keydown", onInput, true);
  area.addEventListener("click", onInput, true);
}
