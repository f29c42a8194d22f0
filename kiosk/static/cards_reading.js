// Cards laid face up and read by the card reader (Pif Paf going out, Cacheta knocking out): the reading with its
// doubtful cards highlighted, the discard, and the picker that corrects one card. Used by pifpaf.js and cacheta.js.
"use strict";
window.CardsReading = (function () {
  const { h, cardName } = window.Cacho;

  // The reading's controls. `fix` is {discard: true} or {seat, index}: the card picked for correction.
  function parts(state, L, page, fix, choose) {
    const r = state.reading;
    const entry = r.seats[0];
    const chip = (text, cls, onclick, data) => h("button", { class: "rcard" + cls, dataset: data, onclick: onclick }, text);
    const rows = [h("p", {}, L("Lectura") + ": " + state.players[entry.seat].name)];
    if (r.photo_url) rows.push(h("img", { class: "photo reading-photo", src: r.photo_url, alt: L("Foto de la lectura") }));
    if (r.needs_discard) {
      rows.push(
        h(
          "div",
          { class: "shown" },
          h("span", { class: "who" }, L("Descarte")),
          chip(cardName(r.discard), (r.discard ? " corrected" : " doubtful") + (fix && fix.discard ? " chosen" : ""), () => choose({ discard: true }), { discard: "1" }),
        ),
      );
    }
    const cards = entry.cards.map((c, k) =>
      chip(
        cardName(c.card) + (c.corrected ? "" : " · " + window.Cacho.percent(c.confidence)),
        (c.doubtful ? " doubtful" : "") + (c.corrected ? " corrected" : "") + (fix && fix.index === k ? " chosen" : ""),
        () => choose({ seat: entry.seat, index: k }),
        { index: k },
      ),
    );
    if (entry.cards.length < r.size) cards.push(chip("+", " doubtful", () => choose({ seat: entry.seat, index: entry.cards.length }), { index: entry.cards.length }));
    rows.push(h("div", { class: "shown" }, h("span", { class: "who" }, L("Muestra") + " " + entry.cards.length + "/" + r.size), cards));
    // why the reader doubts each card still to settle, in words (a touchscreen has no tooltips)
    const open = entry.cards.filter((c) => c.doubtful && !c.corrected && (c.reasons || []).length);
    if (open.length) rows.push(h("ul", { class: "why" }, ...open.map((c) => h("li", {}, cardName(c.card) + ": " + window.Cacho.cardsIn(c.reasons.join("; "))))));
    rows.push(
      h(
        "div",
        { class: "row" },
        h("button", { class: "big primary", id: "confirm-shown", onclick: () => page.send("/confirm", {}) }, L("Confirmar la lectura")),
        h("button", { class: "big", id: "cancel-reading", onclick: () => page.send("/cancel", {}) }, L("Descartar lectura")),
      ),
    );
    return rows;
  }

  // The picker that sets the card picked for correction (the deck of the game, as the page draws it).
  function picker(state, fix, page, gridClass) {
    return h(
      "div",
      { class: "card-grid " + gridClass },
      state.deck.map((c) =>
        h(
          "button",
          {
            class: "pick" + (c.red ? " red" : ""),
            dataset: { card: c.card },
            onclick: () => page.send("/card", fix.discard ? { discard: c.card } : { seat: fix.seat, index: fix.index, card: c.card }),
          },
          c.rank + c.suit,
        ),
      ),
    );
  }

  return { parts, picker };
})();
