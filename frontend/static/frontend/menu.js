// The site header's menu button (base.html). On a narrow screen the links and the
// languages fold behind it: site.css shows them while aria-expanded is "true", and this
// module only flips that state. On a wide screen the button is not shown and this idles.
const button = document.querySelector(".menu-button");
const menu = button && document.getElementById(button.getAttribute("aria-controls"));

if (button && menu) {
  const header = button.closest("header");
  const isOpen = () => button.getAttribute("aria-expanded") === "true";
  const setOpen = (open) => button.setAttribute("aria-expanded", open ? "true" : "false");

  button.addEventListener("click", () => setOpen(!isOpen()));
  // Escape closes it and gives the focus back to the button (as a disclosure does).
  header.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && isOpen()) {
      setOpen(false);
      button.focus();
    }
  });
  // The open menu covers the top of the page: it closes when the focus or a tap goes
  // elsewhere, so that it never hides what the keyboard or the finger went to.
  header.addEventListener("focusout", (ev) => {
    if (ev.relatedTarget && !header.contains(ev.relatedTarget)) setOpen(false);
  });
  document.addEventListener("click", (ev) => {
    if (isOpen() && !header.contains(ev.target)) setOpen(false);
  });
}
