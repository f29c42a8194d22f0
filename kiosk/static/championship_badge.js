// The championship link's badge in the kiosk's header, kept up to date: /campeonato/mesa/enlace.json.
"use strict";
(function () {
  const tr = (s) => (window.CACHO_EN && window.CACHO_EN[s]) || s;
  const WORDS = { up: "conectado", down: "caído", refused: "rechazado" };
  async function refresh(badge) {
    try {
      const res = await fetch(badge.dataset.statusUrl, { headers: { "Accept": "application/json" }, credentials: "same-origin" });
      const link = await res.json();
      if (link.state === "off") { badge.hidden = true; return; }
      badge.dataset.state = link.state === "up" ? "ok" : "error";
      const rulings = (link.rulings || []).length;
      badge.textContent = tr("Campeonato") + " " + link.table + ": " + tr(WORDS[link.state] || link.state) +
        (rulings ? " · " + tr("Fallos del organizador") + ": " + rulings : "");
    } catch (e) { /* the next turn tries again */ }
  }
  document.addEventListener("DOMContentLoaded", () => {
    const badge = document.getElementById("link-badge");
    if (badge) setInterval(() => refresh(badge), 5000);
  });
})();
