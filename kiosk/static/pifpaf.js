// Pif Paf: the coordinator's screen and the spectators' TV, drawn from /pifpaf/<id>/state.json.
// The DOM is built with Cacho.h: data is never parsed as HTML.
"use strict";
(function () {
  const { h, tablePage } = window.Cacho;
  const Cards = window.Cards;
  const game = Cards.page("pifpaf");
  if (!game) return;
  const { tv, base, L } = game;
  const { $ } = Cards;
  let state = null;
  let fix = null; // the card of a reading picked for correction: {discard: true} or {seat, index}
  let mode = null; // null, {kind: "discard"} or {kind: "out"|"claim", player, discard, cards: []}
  let chosen = null; // the card picked to discard

  async function show(fresh, sent) {
    if (sent || (state && fresh.seq !== state.seq)) { mode = null; chosen = null; }
    if (!fresh.reading) fix = null;
    state = fresh;
    draw();
  }
  const page = tablePage(base, tv, show, () => (state ? state.seq : null));
  const act = (body) => page.send("/action", body);
  const nameOf = (seat) => state.players[seat].name;
  const { cardEl, button } = Cards;
  const cardOf = (text) => state.deck.find((d) => d.card === text);
  const option = (what, label, body, primary) =>
    Cards.option(state.legal.may[what], (reason) => button(label, () => act(body), { id: what.replace("_", "-"), disabled: !!reason, reason: reason, primary: primary }));

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
    const now = state.phase === "bet" ? state.to_act : state.turn;
    const won = state.phase === "hand" && state.last_hand ? state.last_hand.winner : null;
    $("players").replaceChildren(
      ...state.players.map((p) =>
        h(
          "div",
          {
            class: "cplayer" + (p.seat === now ? " to-act" : "") + (p.folded || (state.phase !== "hand" && !p.in_hand) ? " out" : "") + (won === p.seat ? " won" : ""),
            dataset: { seat: p.seat },
          },
          h("div", { class: "name" }, p.name),
          h("div", { class: "chips", id: "chips-" + p.seat }, String(p.chips)),
          h(
            "div",
            { class: "meta" },
            L("fichas") +
              (p.folded ? " · " + L("retirado") : p.cards !== null ? " · " + window.Cacho.count(p.cards, L("carta"), L("cartas")) : state.phase !== "hand" ? " · " + L("no juega esta mano") : ""),
          ),
        ),
      ),
    );
  }

  function drawInfo() {
    const parts = [];
    if (state.hand > 0 && state.phase !== "hand") parts.push(h("p", {}, L("Mano") + " " + state.hand + " · " + L("Reparte") + " " + nameOf(state.dealer)));
    const pot = [h("span", { class: "stake-value", id: "pot" }, L("Pozo") + " " + state.pot)];
    if (state.phase === "bet") {
      pot.push(h("span", { class: "kind-badge" }, L("Apuesta") + " " + state.bet));
      pot.push(h("span", { class: "kind-badge" }, L("Tope") + " " + state.cap));
    }
    parts.push(h("p", { class: "stake" }, pot));
    if (state.phase === "play") {
      parts.push(
        h(
          "p",
          { class: "stake" },
          h("span", {}, L("Mazo") + " " + state.stock),
          h("span", {}, L("Descarte") + ": "),
          state.top ? h("span", { id: "top" }, cardEl(state.top)) : h("span", { id: "top" }, "—"),
        ),
      );
    }
    const now = state.phase === "bet" ? state.to_act : state.turn;
    if (now !== null && state.phase !== "over") parts.push(h("p", { class: "turn", id: "turn" }, L("Le toca a") + " " + nameOf(now)));
    $("hand-info").replaceChildren(...parts);
  }

  function drawResult() {
    const box = $("result");
    const r = state.last_hand;
    if (state.phase !== "hand" || !r) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.hidden = false;
    box.replaceChildren(
      h("p", { class: "big-text gold", id: "winner" }, L("Gana") + " " + nameOf(r.winner) + ": " + L("se lleva") + " " + r.pot + " " + L("fichas")),
      ...r.melds.map((m) => h("div", { class: "shown meld" }, h("span", { class: "who" }, m.kind), m.cards.map(cardEl))),
    );
  }

  function drawControls() {
    const parts = [];
    const legal = state.legal;
    if (state.phase === "hand") {
      if (state.next_dealer === null) {
        parts.push(h("p", {}, L("¿Quién reparte la primera mano?")));
        parts.push(h("div", { class: "row" }, state.players.map((p) => button(p.name, () => act({ action: "hand", dealer: p.seat }), { id: "dealer-" + p.seat }))));
      } else {
        parts.push(button(L("Nueva mano: reparte") + " " + nameOf(state.next_dealer), () => act({ action: "hand" }), { id: "new-hand", primary: true }));
      }
    } else if (state.phase === "deal") {
      parts.push(button(L("Repartir"), () => act({ action: "deal" }), { id: "deal", primary: true }));
    } else if (state.phase === "bet") {
      const p = legal.seat;
      parts.push(
        h(
          "div",
          { class: "row" },
          option("fold", L("Se retira"), { action: "fold", player: p }),
          option("call", L("Iguala"), { action: "call", player: p }, true),
        ),
      );
      if (legal.raises.length) {
        parts.push(
          h("div", { class: "row raises" }, h("span", {}, L("Sube")), legal.raises.slice(0, 12).map((n) => button("+" + n, () => act({ action: "raise", player: p, amount: n }), { id: "raise-" + n }))),
        );
      }
    } else if (state.phase === "play" && state.reading) {
      parts.push(...window.CardsReading.parts(state, L, page, fix, (f) => { fix = f; draw(); }));
    } else if (state.phase === "play" && mode && (mode.kind === "out" || mode.kind === "claim")) {
      if (state.card_reader) parts.push(button(L("Leer con la cámara"), () => page.send("/read", { kind: mode.kind, player: mode.player }), { id: "read-shown" }));
      parts.push(h("p", {}, (mode.kind === "claim" ? L("Reclama el descarte") : L("Sale")) + ": " + nameOf(mode.player)));
      parts.push(h("p", {}, L("Toque la carta que descarta y luego las nueve que muestra")));
      parts.push(...Cards.shownParts(L, mode, state.hand_size, cardOf, draw, true));
      const ready = mode.discard && mode.cards.length === state.hand_size;
      parts.push(
        h(
          "div",
          { class: "row" },
          button(L("Sale con estas cartas"), () => act({ action: mode.kind, player: mode.player, discard: mode.discard, cards: mode.cards }), { id: "go", primary: true, disabled: !ready }),
          button(L("Cancelar"), () => { mode = null; draw(); }, { id: "cancel-out" }),
        ),
      );
    } else if (state.phase === "play") {
      const p = state.turn;
      if (state.must_draw) {
        parts.push(Cards.drawRow(L, state, p, option));
      } else {
        parts.push(h("p", {}, L("Elija la carta que descarta")));
        parts.push(
          h(
            "div",
            { class: "row" },
            button(L("Descarta") + (chosen ? " " + chosen : ""), () => act({ action: "discard", player: p, card: chosen }), { id: "discard", primary: true, disabled: !chosen }),
            button(L("Sale"), () => { mode = { kind: "out", player: p, discard: null, cards: [] }; draw(); }, { id: "go-out" }),
          ),
        );
      }
      if (state.claimable_from !== null) {
        const claimers = state.players.filter((x) => !x.folded && x.seat !== state.claimable_from);
        parts.push(
          h(
            "div",
            { class: "row" },
            h("span", {}, L("Reclama el descarte") + ":"),
            claimers.map((x) => button(x.name, () => { mode = { kind: "claim", player: x.seat, discard: null, cards: [] }; draw(); }, { id: "claim-" + x.seat })),
          ),
        );
      }
    }
    const box = $("controls");
    box.hidden = parts.length === 0;
    box.replaceChildren(...parts);
  }

  // The picker: thirteen ranks across, the suits down (two decks: a card may be picked twice).
  function drawPicker() {
    const box = $("picker");
    if (state.phase === "play" && state.reading) {
      box.hidden = !fix;
      box.replaceChildren(...(fix ? [window.CardsReading.picker(state, fix, page, "thirteen")] : []));
      return;
    }
    const discarding = state.phase === "play" && !state.must_draw && !mode;
    const showing = mode && (mode.kind === "out" || mode.kind === "claim");
    if (!discarding && !showing) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.hidden = false;
    const count = (card) => (showing ? mode.cards.filter((c) => c === card).length + (mode.discard === card ? 1 : 0) : 0);
    const grid = Cards.pickGrid(
      state.deck,
      (card) => (discarding && chosen === card) || count(card),
      (card) => {
        if (discarding) chosen = card;
        else if (!mode.discard) mode.discard = card;
        else if (mode.cards.length < state.hand_size && count(card) < state.copies) mode.cards.push(card);
        draw();
      },
    );
    box.replaceChildren(grid);
  }

  Cards.follow(game, page);
})();
