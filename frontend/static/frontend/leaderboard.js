// The leaderboard page: the day's histogram drawn by the module the daily game's end
// panel uses too, from the bins the page carries (the viewer's bar marked).
import { renderFigure } from "./histogram.js";

const figure = document.getElementById("histogram");
const data = JSON.parse(document.getElementById("histogram-data").textContent);
renderFigure(figure, data.bins, data.mine);
