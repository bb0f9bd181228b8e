// Countdowns of a server-rendered page (the home page's next deal): each
// <time data-countdown datetime="…"> shows the wait as HH:MM:SS, every second; at zero
// the page reloads once, since what it says (today's deal) has changed.
import { countdownText } from "./dom.js";

const clocks = [...document.querySelectorAll("time[data-countdown]")];
let reloaded = false;
function tick() {
  for (const clock of clocks) {
    const left = Date.parse(clock.dateTime) - Date.now();
    clock.textContent = countdownText(left);
    if (left <= 0 && !reloaded) {
      reloaded = true;
      setTimeout(() => location.reload(), 1500);
    }
  }
}
if (clocks.length) {
  tick();
  setInterval(tick, 1000);
}
