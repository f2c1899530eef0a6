// Shared by every page: the colour-letters toggle and a CSRF-protected JSON post.
"use strict";

(function () {
  const KEY = "spectrangle.letters";
  const button = document.getElementById("letters-toggle");
  function apply(on) {
    document.body.classList.toggle("letters", on);
    if (button) button.setAttribute("aria-pressed", on ? "true" : "false");
  }
  let on = false;
  try { on = localStorage.getItem(KEY) === "1"; } catch (e) { /* private mode */ }
  apply(on);
  if (button) {
    button.addEventListener("click", function () {
      on = !on;
      apply(on);
      try { localStorage.setItem(KEY, on ? "1" : "0"); } catch (e) { /* ignore */ }
    });
  }
})();

window.postJSON = async function (url, data) {
  const token = document.querySelector('meta[name="csrf-token"]').content;
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
    body: JSON.stringify(data || {}),
    credentials: "same-origin",
  });
  let body = {};
  try { body = await response.json(); } catch (e) { body = { error: "bad answer from the server" }; }
  if (!response.ok) throw new Error(body.error || ("HTTP " + response.status));
  return body;
};
