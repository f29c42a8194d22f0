// Cacheta: the coordinator's screen and the spectators' TV, drawn from /cacheta/<id>/state.json.
// The DOM is built with Cacho.h: data is never parsed as HTML.
"use strict";
(function () {
  const { h, tablePage } = window.Cacho;
  const Cards = window.Cards;
  const game = Cards.page("cacheta");
  if (!game) return;
  const { tv, base, L } = game;
  const { $ } = Cards;
  let state = null;
  let fix = null; // the card of a reading picked for correction: {discard: true} or {seat, index}
  let mode = null; // null or {kind: "knock"|"cut", player, ten, discard, cards: []}
  let chosen = null; // the card picked: the flip to deal, or the card to discard

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
    drawRounds();
    if (!tv) {
      drawControls();
      drawPicker();
      Cards.tools(state);
    }
  }

  function drawPlayers() {
    $("players").replaceChildren(
      ...state.players.map((p) => {
        const notes = [];
        if (!p.alive) notes.push(L("fuera del juego"));
        if (p.good_one) notes.push(L("por la buena"));
        if (p.burned) notes.push(L("quemado"));
        if (p.cards !== null) notes.push(window.Cacho.count(p.cards, L("carta"), L("cartas")));
        return h(
          "div",
          { class: "cplayer" + (p.seat === state.turn ? " to-act" : "") + (!p.alive ? " out" : "") + (state.winner === p.seat ? " won" : ""), dataset: { seat: p.seat } },
          h("div", { class: "name" }, p.name),
          h("div", { class: "chips", id: "points-" + p.seat }, String(p.points)),
          h("div", { class: "meta" }, [L("puntos"), ...notes].join(" · ")),
        );
      }),
    );
  }

  function drawInfo() {
    const parts = [];
    if (state.round > 0) {
      const line = [h("span", { class: "stake-value" }, L("Ronda") + " " + state.round)];
      if (state.flip) line.push(h("span", { id: "flip" }, L("Vuelta") + " ", cardEl(state.flip)));
      if (state.trumps.length) line.push(h("span", { id: "trumps" }, L("Comodines") + " ", state.trumps.map(cardEl)));
      parts.push(h("p", { class: "stake" }, line));
    }
    if (state.phase === "play") {
      parts.push(
        h("p", { class: "stake" }, h("span", {}, L("Mazo") + " " + state.stock), h("span", {}, L("Descarte") + ": "), state.top ? h("span", { id: "top" }, cardEl(state.top)) : h("span", { id: "top" }, "—")),
      );
      parts.push(h("p", { class: "turn", id: "turn" }, L("Le toca a") + " " + nameOf(state.turn)));
    }
    $("hand-info").replaceChildren(...parts);
  }

  function drawResult() {
    const box = $("result");
    const k = state.last_knock;
    if (!k && state.winner === null) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.hidden = false;
    const parts = [];
    if (state.winner !== null) parts.push(h("p", { class: "big-text gold", id: "winner" }, L("Ganador de la mesa") + ": " + nameOf(state.winner)));
    if (k) {
      parts.push(h("p", { id: "knock" }, nameOf(k.player) + " " + L("bate con") + " " + window.Cacho.count(k.cards, L("carta"), L("cartas"))));
      for (const m of k.melds) parts.push(h("div", { class: "shown meld" }, h("span", { class: "who" }, m.kind), m.cards.map(cardEl)));
    }
    box.replaceChildren(...parts);
  }

  // The points table: a row per round (who knocked), a column per player; VP and GP when the table is over.
  function drawRounds() {
    const box = $("rounds");
    box.hidden = state.rounds.length === 0;
    const head = h("tr", {}, h("th", {}, L("Ronda")), state.players.map((p) => h("th", {}, p.name)));
    const rows = state.rounds.map((r) =>
      h("tr", {}, h("td", {}, String(r.round)), r.points.map((pts, seat) => h("td", { class: seat === r.knock ? "best" : "" }, String(pts)))),
    );
    if (state.vp) {
      rows.push(h("tr", { class: "vp" }, h("td", {}, "VP"), state.vp.map((v) => h("td", {}, String(v)))));
      rows.push(h("tr", { class: "gp" }, h("td", {}, "GP"), state.gp.map((v) => h("td", {}, String(v)))));
    }
    box.replaceChildren(h("p", {}, L("Puntos por ronda")), h("table", { class: "points", id: "points-table" }, h("thead", {}, head), h("tbody", {}, rows)));
  }

  function drawControls() {
    const parts = [];
    const legal = state.legal;
    if (state.phase === "deal") {
      parts.push(h("p", {}, L("Elija la carta vuelta")));
      parts.push(button(L("Repartir con la vuelta") + (chosen ? " " + chosen : ""), () => act({ action: "deal", flip: chosen }), { id: "deal", primary: true, disabled: !chosen }));
    } else if (state.phase === "play" && state.reading) {
      parts.push(...window.CardsReading.parts(state, L, page, fix, (f) => { fix = f; draw(); }));
    } else if (state.phase === "play" && mode) {
      if (state.card_reader) parts.push(button(L("Leer con la cámara"), () => page.send("/read", { kind: mode.kind, player: mode.player, ten: mode.ten }), { id: "read-shown" }));
      const size = mode.ten ? state.hand_size + 1 : state.hand_size;
      parts.push(h("p", {}, (mode.kind === "cut" ? L("Corta la fila") : L("Bate")) + ": " + nameOf(mode.player)));
      parts.push(
        h(
          "label",
          { class: "check" },
          h("input", { type: "checkbox", id: "ten", checked: mode.ten, onchange: (e) => { mode.ten = e.target.checked; mode.discard = null; mode.cards = []; draw(); } }),
          L("Con diez cartas"),
        ),
      );
      parts.push(h("p", {}, mode.ten ? L("Toque las diez cartas que muestra") : L("Toque la carta que descarta y luego las nueve que muestra")));
      parts.push(...Cards.shownParts(L, mode, size, cardOf, draw, !mode.ten));
      const ready = (mode.ten || mode.discard) && mode.cards.length === size;
      parts.push(
        h(
          "div",
          { class: "row" },
          button(L("Bate con estas cartas"), () => act({ action: mode.kind, player: mode.player, discard: mode.ten ? null : mode.discard, cards: mode.cards }), { id: "go", primary: true, disabled: !ready }),
          button(L("Cancelar"), () => { mode = null; draw(); }, { id: "cancel-knock" }),
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
            button(L("Bate"), () => { mode = { kind: "knock", player: p, ten: false, discard: null, cards: [] }; chosen = null; draw(); }, { id: "knock" }),
          ),
        );
      }
      if (legal.good_one.length) {
        parts.push(h("div", { class: "row" }, h("span", {}, L("Pide la buena") + ":"), legal.good_one.map((s) => button(nameOf(s), () => act({ action: "good_one", player: s }), { id: "good-" + s }))));
      }
      if (state.claimable_from !== null) {
        const cutters = state.players.filter((x) => x.good_one && !x.burned && x.seat !== state.claimable_from);
        if (cutters.length) {
          parts.push(
            h("div", { class: "row" }, h("span", {}, L("Corta la fila") + ":"), cutters.map((x) => button(x.name, () => { mode = { kind: "cut", player: x.seat, ten: false, discard: null, cards: [] }; draw(); }, { id: "cut-" + x.seat }))),
          );
        }
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
    const single = state.phase === "deal" || (state.phase === "play" && !state.must_draw && !mode);
    if (!single && !mode) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.hidden = false;
    const count = (card) => (mode ? mode.cards.filter((c) => c === card).length + (mode.discard === card ? 1 : 0) : 0);
    const size = mode && mode.ten ? state.hand_size + 1 : state.hand_size;
    box.replaceChildren(
      Cards.pickGrid(
        state.deck,
        (card) => (single && chosen === card) || count(card),
        (card) => {
          if (!mode) chosen = card;
          else if (!mode.ten && !mode.discard) mode.discard = card;
          else if (mode.cards.length < size && count(card) < state.copies) mode.cards.push(card);
          draw();
        },
      ),
    );
  }

  Cards.follow(game, page);
})();
