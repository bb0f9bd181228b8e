// Swagger UI's markup, mended for assistive technology once it is drawn (and whenever it
// draws more: an operation opened, a response shown). It only adds or removes attributes
// that Swagger UI's React never sets again, so its own behaviour is unchanged.
"use strict";

(() => {
  const root = document.getElementById("swagger-ui");
  if (!root) return;

  function mend() {
    // An operation's summary is one <button> that opens it; the deep link inside it is a
    // second control nested in the first (a screen reader meets a link inside a button).
    // Its click is already cancelled by Swagger UI and the address still follows the
    // opened operation (deepLinking), so the link loses only its href: plain text.
    for (const link of root.querySelectorAll(".opblock-summary-control a[href]")) {
      link.removeAttribute("href");
    }
    // The Authorize dialog: its close button is an icon without a name, and its Authorize and
    // Logout buttons are named otherwise than they read ("Apply credentials"): a voice
    // user saying what they see would not reach them. Their text is their name.
    for (const button of root.querySelectorAll(".close-modal:not([aria-label])")) {
      button.setAttribute("aria-label", "Close");
    }
    for (const button of root.querySelectorAll(".auth-btn-wrapper button[aria-label]")) {
      button.removeAttribute("aria-label");
    }
    // Two selects come without a name: an enum parameter's values (named by the
    // parameter, as its row shows it) and a request body's examples.
    for (const select of root.querySelectorAll("tr[data-param-name] select:not([aria-label])")) {
      select.setAttribute("aria-label", select.closest("tr").dataset.paramName);
    }
    for (const select of root.querySelectorAll("select.examples-select-element:not([aria-label])")) {
      select.setAttribute("aria-label", "Examples");
    }
    // Tried out, an operation's body is a textarea without a name (axe: critical): it is
    // the request's body, as its heading says.
    for (const area of root.querySelectorAll("textarea.body-param__text:not([aria-label])")) {
      area.setAttribute("aria-label", "Request body");
    }
    // Code blocks (examples, responses, curl) scroll when long: a keyboard must reach them.
    for (const block of root.querySelectorAll("pre.microlight:not([tabindex]), .highlight-code pre:not([tabindex])")) {
      block.tabIndex = 0;
    }
  }

  new MutationObserver(mend).observe(root, { childList: true, subtree: true });
  mend();
})();
