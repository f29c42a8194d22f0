// What the card games' screens share (Truco, Cacho español, Pif Paf, Cacheta): the page's labels and URLs, a card,
// a button, a tap the engine may refuse, the tools, and following the table. Built with Cacho.h.
"use strict";
window.Cards = (function () {
  const { h } = window.Cacho;
  const $ = (sel) => document.getElementById(sel);

  // The game's page (`game`: its blueprint): the table, TV or not, its URLs and labels; null on another page.
  function page(game) {
    const root = $(game);
    if (!root) return null;
    const labelsEl = $(game + "-labels");
    const labels = labelsEl ? JSON.parse(labelsEl.textContent) : {};
    const id = root.dataset.table;
    return { id: id, tv: root.dataset.view === "tv", base: "/" + game + "/" + id, L: (key) => labels[key] || key };
  }

  const cardEl = (c) => h("span", { class: "pcard" + (c.red ? " red" : "") }, c.rank + c.suit);

  function button(label, onclick, opts) {
    const o = opts || {};
    return h("button", { class: "big" + (o.primary ? " primary" : ""), id: o.id, disabled: o.disabled, title: o.reason, onclick: onclick }, label);
  }

  // A tap the engine may refuse (`may`: allowed, or the section and reason): `make(reason)` draws its button, greyed
  // out with the reason beside it.
  function option(may, make) {
    const reason = may && !may.allowed ? may.article + ": " + may.reason : null;
    return h("span", { class: "option" }, make(reason), reason ? h("span", { class: "reason" }, reason) : null);
  }

  // The coordinator's tools: the undo, and the history.
  function tools(state) {
    $("undo").disabled = !state.can_undo;
    $("history").replaceChildren(...state.history.map((line) => h("li", {}, line)));
  }

  // Follow the table (`tablePage`'s page); on the coordinator's screen, the undo takes back the last tap.
  function follow(game, tablePage) {
    if (!game.tv) $("undo").addEventListener("click", () => tablePage.send("/undo", {}));
    tablePage.follow(game.id);
  }

  return { $, page, cardEl, button, option, tools, follow };
})();
