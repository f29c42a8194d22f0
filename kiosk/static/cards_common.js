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

  // The cards a player laying down his hand has picked (`mode`: discard and cards, `size` of them, no discard when
  // `withDiscard` is false): a tap on one takes it back, then `redraw`.
  function shownParts(L, mode, size, cardOf, redraw, withDiscard) {
    const chip = (c, drop) => h("button", { class: "pick-chip", onclick: () => { drop(); redraw(); } }, cardEl(cardOf(c)));
    const parts = [];
    if (withDiscard) parts.push(h("div", { class: "shown" }, h("span", { class: "who" }, L("Descarte")), mode.discard ? chip(mode.discard, () => { mode.discard = null; }) : "—"));
    parts.push(
      h(
        "div",
        { class: "shown" },
        h("span", { class: "who" }, L("Muestra") + " " + mode.cards.length + "/" + size),
        mode.cards.map((c, k) => chip(c, () => mode.cards.splice(k, 1))),
      ),
    );
    return parts;
  }

  // The draw of player `p`: from the stock, or from the discard pile (its top card named); `option` as the game's.
  function drawRow(L, state, p, option) {
    return h(
      "div",
      { class: "row" },
      option("draw_stock", L("Roba del mazo"), { action: "draw", player: p, source: "stock" }, true),
      option("draw_discard", L("Roba del descarte") + (state.top ? " " + state.top.rank + state.top.suit : ""), { action: "draw", player: p, source: "discard" }),
    );
  }

  // The picker's grid of `deck`, thirteen ranks across and the suits down: `chosen(card)` is highlighted, a tap calls
  // `pick(card)`.
  function pickGrid(deck, chosen, pick) {
    return h(
      "div",
      { class: "card-grid thirteen" },
      deck.map((c) => h("button", { class: "pick" + (c.red ? " red" : "") + (chosen(c.card) ? " chosen" : ""), dataset: { card: c.card }, onclick: () => pick(c.card) }, c.rank + c.suit)),
    );
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

  return { $, page, cardEl, button, option, shownParts, drawRow, pickGrid, tools, follow };
})();
