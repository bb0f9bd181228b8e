// Moments in the reader's own time zone, the zone named. The server writes them in the
// day's zone, named too (what shows without JavaScript): <time data-moment="full"> becomes
// the day, the time and the zone (dom.js localMoment); "clock" the time of day with its
// seconds, the zone named once by an element [data-zone] (a table's column heading).
import { localMoment, zoneName } from "./dom.js";

const clock = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
let latest = null;
for (const time of document.querySelectorAll("time[data-moment]")) {
  const when = new Date(time.getAttribute("datetime"));
  if (Number.isNaN(when.getTime())) continue;  // the server's text stays
  time.textContent = time.dataset.moment === "clock" ? clock.format(when) : localMoment(when.toISOString());
  latest = when;
}
for (const zone of document.querySelectorAll("[data-zone]")) {
  if (latest) zone.textContent = `(${zoneName(latest)})`;
}
