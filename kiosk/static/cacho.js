// Spanish Cacho: the coordinator's screen and the spectators' TV, drawn from /cacho/<id>/state.json.
// The DOM is built with Cacho.h: data is never parsed as HTML.
"use strict";
(function () {
  const { h, tablePage } = window.Cacho;
  const Cards = window.Cards;
  const game = Cards.page("cacho");
  if (!game) return;
  const { tv, base, L } = game;
  const { $ } = Cards;
  let state = null;
  let shown = {}; // seat -> cards picked for the showdown
  let picking = null; // the seat whose hand is being picked
  let fixing = null; // {seat, index}: the card of a reading being corrected

  async function show(fresh, sent) {
    if (!state || fresh.seq !== state.seq || sent) {
      if (fresh.phase !== "show") { shown = {}; picking = null; }
      if (!fresh.reading) fixing = null;
    }
    state = fresh;
    draw();
  }
  const page = tablePage(base, tv, show, () => (state ? state.seq : null));
  const act = (body) => page.send("/action", body);
  const nameOf = (seat) => state.players[seat].name;

  const { cardEl } = Cards;

  function button(label, body, opts) {
    const o = opts || {};
    return Cards.button(label, o.onclick || (body ? () => act(body) : () => page.send("/read", {})), o);
  }

  // The hands read by the card reader: doubtful cards highlighted; a tap on a card (or on +) picks it for correction.
  function readingParts() {
    const r = state.reading;
    const rows = r.seats.map((e) =>
      h(
        "div",
        { class: "shown-seat", dataset: { seat: e.seat } },
        h("span", { class: "who" }, nameOf(e.seat)),
        e.cards.map((c, k) =>
          h(
            "button",
            {
              class: "rcard" + (c.doubtful ? " doubtful" : "") + (c.corrected ? " corrected" : "") + (fixing && fixing.seat === e.seat && fixing.index === k ? " chosen" : ""),
              dataset: { index: k },
              onclick: () => { fixing = { seat: e.seat, index: k }; draw(); },
            },
            window.Cacho.cardName(c.card) + (c.corrected ? "" : " · " + window.Cacho.percent(c.confidence)),
          ),
        ),
        e.cards.length < r.size ? h("button", { class: "rcard doubtful", dataset: { index: e.cards.length }, onclick: () => { fixing = { seat: e.seat, index: e.cards.length }; draw(); } }, "+") : null,
      ),
    );
    // why the reader doubts each card still to settle, in words (a touchscreen has no tooltips)
    const open = r.seats.flatMap((e) =>
      e.cards.filter((c) => c.doubtful && !c.corrected && (c.reasons || []).length).map((c) => nameOf(e.seat) + ", " + window.Cacho.cardName(c.card) + ": " + window.Cacho.cardsIn(c.reasons.join("; "))),
    );
    return [
      h("p", {}, L("Lectura")),
      r.photo_url ? h("img", { class: "photo reading-photo", src: r.photo_url, alt: L("Foto de la lectura") }) : "",
      ...rows,
      open.length ? h("ul", { class: "why" }, ...open.map((line) => h("li", {}, line))) : "",
      h(
        "div",
        { class: "row" },
        button(L("Confirmar las manos"), null, { id: "confirm-hands", primary: true, onclick: () => page.send("/confirm", {}) }),
        button(L("Descartar lectura"), null, { id: "cancel-reading", onclick: () => page.send("/cancel", {}) }),
      ),
    ];
  }

  function draw() {
    drawPlayers();
    drawInfo();
    drawResult();
    if (!tv) {
      drawControls();
      drawPicker();
      Cards.tools(state);
    }
  }

  function drawPlayers() {
    $("players").replaceChildren(
      ...state.players.map((p) =>
        h(
          "div",
          {
            class: "cplayer" + (p.seat === state.to_act ? " to-act" : "") + (state.phase !== "hand" && !p.in_hand ? " out" : ""),
            dataset: { seat: p.seat },
          },
          h("div", { class: "name" }, p.name + (p.seat === state.eldest && state.phase !== "hand" ? " · " + L("es mano") : "")),
          h("div", { class: "chips", id: "chips-" + p.seat }, String(p.chips)),
          h(
            "div",
            { class: "meta" },
            L("fichas") +
              (state.phase !== "hand" ? " · " + (p.in_hand ? window.Cacho.count(p.cards, L("carta"), L("cartas")) : L("retirado")) : "") +
              (p.put_in ? " · " + L("Apuesta") + " " + p.put_in : "") +
              " · " + p.hands_won + " " + L("manos ganadas"),
          ),
        ),
      ),
    );
  }

  function drawInfo() {
    const parts = [];
    if (state.hand > 0 && state.phase !== "hand") {
      parts.push(h("p", {}, L("Mano") + " " + state.hand + " · " + L("Ronda") + " " + state.round));
      const pot = [h("span", { class: "stake-value", id: "pot" }, L("Pozo") + " " + state.pot)];
      if (state.round === 3) {
        pot.push(h("span", { class: "kind-badge", id: "bet" }, L("Apuesta") + " " + state.bet));
        pot.push(h("span", { class: "kind-badge resto", id: "resto" }, L("Resto") + " " + state.resto));
      }
      parts.push(h("p", { class: "stake" }, pot));
    }
    if (state.to_act !== null && state.to_act !== undefined) parts.push(h("p", { class: "turn", id: "turn" }, L("Le toca a") + " " + nameOf(state.to_act)));
    if (state.phase === "show") parts.push(h("p", { class: "big-text gold" }, L("Muestran las manos")));
    const box = $("hand-info");
    box.hidden = parts.length === 0;
    box.replaceChildren(...parts);
  }

  function drawResult() {
    const box = $("result");
    const r = state.last_hand;
    if (!r || state.phase !== "hand") {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.hidden = false;
    const parts = [h("p", { class: "big-text gold", id: "winner" }, L("Gana") + " " + nameOf(r.winner) + ": " + L("se lleva") + " " + r.pot + " " + L("fichas"))];
    if (r.showdown) {
      parts.push(h("p", {}, r.showdown.decided_by));
      for (const hand of r.showdown.hands) {
        parts.push(
          h(
            "div",
            { class: "shown" + (hand.seat === r.winner ? " best" : ""), dataset: { seat: hand.seat } },
            h("span", { class: "who" }, nameOf(hand.seat)),
            hand.shown.map(cardEl),
            h("span", { class: "category" }, hand.label + (hand.points !== null ? " · " + hand.points + " " + L("puntos") : "")),
          ),
        );
      }
    } else {
      parts.push(h("p", {}, L("sin mostrar")));
    }
    box.replaceChildren(...parts);
  }

  const option = (what, label, body, primary) =>
    Cards.option(state.legal.may[what], (reason) => button(label, body, { id: what, disabled: !!reason, reason: reason, primary: primary }));

  function drawControls() {
    const parts = [];
    if (state.phase === "hand") {
      if (state.next_eldest === null) {
        parts.push(h("p", {}, L("¿Quién es mano en la primera mano?")));
        parts.push(h("div", { class: "row" }, state.players.map((p) => button(p.name, { action: "hand", eldest: p.seat }, { id: "eldest-" + p.seat }))));
      } else {
        parts.push(button(L("Nueva mano: es mano") + " " + nameOf(state.next_eldest), { action: "hand" }, { id: "new-hand", primary: true }));
      }
    } else if (state.phase === "deal") {
      parts.push(button(L("Repartir"), { action: "deal" }, { id: "deal", primary: true }));
    } else if (state.phase === "bet" && state.legal.player !== null) {
      const p = state.legal.player;
      parts.push(h("p", { class: "turn" }, L("Le toca a") + " " + nameOf(p)));
      if (state.round < 3) {
        parts.push(
          h(
            "div",
            { class: "row" },
            option("pass", L("Pasa"), { action: "pass", player: p }),
            option("bet", L("Apuesta") + " " + state.round_bet + " " + (state.round_bet === 1 ? L("ficha") : L("fichas")), { action: "bet", player: p }, true),
          ),
        );
      } else {
        parts.push(
          h(
            "div",
            { class: "row" },
            option("pass", L("Pasa (se retira)"), { action: "pass", player: p }),
            option("call", L("Iguala") + (state.legal.owed ? " (" + state.legal.owed + ")" : ""), { action: "call", player: p }, true),
          ),
        );
        const raises = state.legal.raises.slice(0, 12);
        if (raises.length) {
          parts.push(
            h(
              "div",
              { class: "row raises" },
              h("span", {}, L("Sube")),
              raises.map((n) => button("+" + n, { action: "raise", player: p, amount: n }, { id: "raise-" + n })),
            ),
          );
        } else {
          parts.push(option("raise", L("Sube"), { action: "raise", player: p, amount: 1 }));
        }
      }
    } else if (state.phase === "show" && state.reading) {
      parts.push(...readingParts());
    } else if (state.phase === "show") {
      if (state.card_reader) parts.push(button(L("Leer las manos"), null, { id: "read-hands" }));
      parts.push(h("p", {}, L("Toque un jugador y luego sus tres cartas")));
      const seats = state.summary.in_hand;
      for (const seat of seats) {
        const cards = shown[seat] || [];
        parts.push(
          h(
            "button",
            { class: "shown-seat" + (picking === seat ? " chosen" : ""), id: "show-seat-" + seat, onclick: () => { picking = seat; draw(); } },
            h("span", { class: "who" }, nameOf(seat)),
            cards.map((c) => cardEl(state.deck.find((d) => d.card === c))),
            cards.length < 3 ? h("span", { class: "missing" }, "· " + (3 - cards.length)) : null,
          ),
        );
      }
      const ready = seats.every((s) => (shown[s] || []).length === 3);
      const hands = {};
      for (const s of seats) hands[s] = shown[s] || [];
      parts.push(button(L("Mostrar las manos"), { action: "show", hands: hands }, { id: "show", primary: true, disabled: !ready }));
    }
    const box = $("controls");
    box.hidden = parts.length === 0;
    box.replaceChildren(...parts);
  }

  // The showdown's card picker: the 24 cards (A to 6 of each suit); a card already taken by a hand is greyed.
  function drawPicker() {
    const box = $("picker");
    if (state.phase === "show" && state.reading && fixing) {
      box.hidden = false;
      box.replaceChildren(
        h("p", { class: "turn" }, nameOf(fixing.seat)),
        h(
          "div",
          { class: "card-grid six" },
          state.deck.map((c) =>
            h("button", { class: "pick" + (c.red ? " red" : ""), dataset: { card: c.card }, onclick: () => page.send("/card", { seat: fixing.seat, index: fixing.index, card: c.card }) }, c.rank + c.suit),
          ),
        ),
      );
      return;
    }
    if (state.phase !== "show" || picking === null || state.reading) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.hidden = false;
    const taken = new Set(Object.values(shown).flat());
    const mine = shown[picking] || [];
    const grid = h(
      "div",
      { class: "card-grid six" },
      state.deck.map((c) =>
        h(
          "button",
          {
            class: "pick" + (c.red ? " red" : "") + (mine.includes(c.card) ? " chosen" : taken.has(c.card) ? " seen" : ""),
            dataset: { card: c.card },
            onclick: () => {
              const hand = shown[picking] || [];
              if (hand.includes(c.card)) shown[picking] = hand.filter((x) => x !== c.card);
              else if (hand.length < 3 && !taken.has(c.card)) shown[picking] = hand.concat([c.card]);
              const next = state.summary.in_hand.find((s) => (shown[s] || []).length < 3);
              if ((shown[picking] || []).length === 3 && next !== undefined) picking = next;
              draw();
            },
          },
          c.rank + c.suit,
        ),
      ),
    );
    box.replaceChildren(h("p", { class: "turn" }, nameOf(picking)), grid);
  }

  Cards.follow(game, page);
})();
