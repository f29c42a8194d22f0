// The organizer's live tables and standings, and the TV that cycles through the tables: /campeonato/estado.json.
"use strict";
(function () {
  const h = Cacho.h;
  const tr = (s) => (window.CACHO_EN && window.CACHO_EN[s]) || s;
  const FACES = { 1: "ases", 2: "tontos", 3: "trenes", 4: "cuadras", 5: "quinas", 6: "sextas" };
  const LINK = { up: "conectada", down: "enlace caído", unknown: "sin noticias" };

  function bidText(bid) {
    return bid ? bid.quantity + " " + (bid.quantity === 1 ? FACES[bid.face].replace(/s$/, "").replace(/e$/, "") : FACES[bid.face]) + " (" + bid.player + ")" : "—";
  }

  function since(text) {
    return text ? " " + Cacho.since(text) : "";
  }

  function tableCard(view) {
    const out = new Set(view.eliminated || []);
    const linkState = view.link || "unknown";
    return h("article", { class: "champ-table", dataset: { table: view.table, link: linkState } },
      h("h3", {}, tr("Mesa") + " " + view.table + " ",
        h("span", { class: "badge", dataset: { state: linkState === "up" ? "ok" : linkState === "down" ? "error" : "none" } },
          tr(LINK[linkState] || linkState) + (linkState === "down" ? since(view.link_since) : ""))),
      h("ul", { class: "champ-players" }, (view.players || []).map((p) =>
        h("li", { class: [out.has(p.name) || (view.disqualified || []).includes(p.name) ? "out" : "", view.winner === p.name ? "champion" : "", view.to_act === p.name ? "to-act" : ""].join(" ").trim() },
          p.name, " ", h("span", { class: "count" }, p.dice === null || p.dice === undefined ? "" : "· " + p.dice + " " + tr(p.dice === 1 ? "dado" : "dados"))))),
      h("p", { class: "bid" }, tr("Apuesta") + ": " + bidText(view.bid)),
      view.eliminated && view.eliminated.length ? h("p", {}, tr("Eliminados") + ": " + view.eliminated.join(", ")) : null,
      view.disqualified && view.disqualified.length ? h("p", {}, tr("Descalificados (art. 11)") + ": " + view.disqualified.join(", ")) : null,
      view.winner ? h("p", { class: "champion" }, tr("Campeón de la mesa") + ": " + view.winner) : null,
      view.conflicts ? h("p", { class: "error" }, view.conflicts + " " + tr("eventos en conflicto: la mesa mandó otro registro con los mismos números")) : null,
      view.ruling ? h("p", { class: "ruling-text" }, tr("Último fallo") + " (art. " + view.ruling.article + "): " + view.ruling.message +
        "") : null,
      view.ruling && view.has_photo ? h("img", { class: "champ-photo", alt: tr("Foto del fallo"), src: "/campeonato/foto/" + view.table + ".jpg?v=" + encodeURIComponent(view.ruling.photo || "") }) : null,
      h("p", {}, h("small", {}, view.received + " " + tr("eventos"))),
      view.reader ? h("p", { class: "champ-reader" }, h("small", {}, tr("Lee con") + " " +
        window.Cacho.modelsName(view.reader.models) + " · " +
        view.reader.evidence + " " + tr("dados de prueba"))) : null);
  }

  function learningLine(learning) {
    const tables = Object.keys(learning.tables || {}).length;
    return h("p", { class: "champ-learning", id: "champ-learning" }, tr("Lector del campeonato") + ": " + learning.message +
      " (" + learning.dice + " " + tr("dados de") + " " + tables + " " + tr(tables === 1 ? "mesa" : "mesas") + ")");
  }

  function standingsTable(rows) {
    return h("table", { class: "standings" },
      h("thead", {}, h("tr", {}, ["#", tr("Jugador"), tr("Club"), tr("Ronda"), tr("Mesa"), tr("Lugar")].map((c) => h("th", {}, c)))),
      h("tbody", {}, rows.map((s) => h("tr", { class: s.out ? "out" : "" },
        h("td", {}, s.rank), h("td", {}, s.name), h("td", {}, s.club), h("td", {}, s.round || "—"), h("td", {}, s.table || "—"),
        h("td", {}, s.out ? tr("descalificado") + ": " + s.out : (s.place || tr("en juego")))))));
  }

  function currentTables(state) {
    const rounds = state.rounds || [];
    return rounds.length ? rounds[rounds.length - 1].tables : [];
  }

  async function organizer(live) {
    const standings = document.getElementById("standings");
    async function draw() {
      try {
        const state = await Cacho.get(live.dataset.stateUrl);
        live.replaceChildren(...(state.rounds || []).slice().reverse().map((r) =>
          h("div", { class: "champ-round" }, h("h3", {}, tr("Ronda") + " " + r.number), h("div", { class: "champ-grid" }, r.tables.map(tableCard)))));
        if (state.learning) live.prepend(learningLine(state.learning));
        if (state.champion) live.prepend(h("p", { class: "champion big-text" }, tr("Campeón del campeonato") + ": ", h("strong", { id: "champion" }, state.champion)));
        standings.replaceChildren(standingsTable(state.standings || []));
      } catch (e) { /* the next turn tries again */ }
    }
    await draw();
    setInterval(draw, 2000);
  }

  async function tv(screen) {
    let index = 0;
    async function next() {
      try {
        const state = await Cacho.get(screen.dataset.stateUrl);
        const tables = currentTables(state);
        const slides = tables.length + 1;
        index = (index + 1) % slides;
        if (index < tables.length) screen.replaceChildren(tableCard(tables[index]));
        else screen.replaceChildren(h("h2", {}, tr("Clasificación")), state.champion ? h("p", { class: "champion big-text" }, tr("Campeón del campeonato") + ": " + state.champion) : null, standingsTable(state.standings || []));
      } catch (e) { /* the next turn tries again */ }
    }
    index = -1;
    await next();
    setInterval(next, 8000);
  }

  document.addEventListener("DOMContentLoaded", () => {
    const live = document.getElementById("live");
    if (live) organizer(live);
    const screen = document.getElementById("tv");
    if (screen) tv(screen);
  });
})();
