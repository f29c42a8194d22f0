// Truco: the coordinator's screen and the spectators' TV, drawn from /truco/<id>/state.json.
// The DOM is built with Cacho.h: data is never parsed as HTML.
"use strict";
(function () {
  const { h, tablePage } = window.Cacho;
  const Cards = window.Cards;
  const game = Cards.page("truco");
  if (!game) return;
  const { tv, base, L } = game;
  const { $ } = Cards;
  const SVG = "http://www.w3.org/2000/svg";
  let state = null;
  let chosen = null; // the card picked, before «Jugar»
  let fixing = null; // the seat whose card read is being corrected
  const cut = { cuts: null, from: "top" }; // the cut noted for the next deal

  async function show(fresh, sent) {
    if (sent || (state && fresh.seq !== state.seq)) chosen = null;
    if (state && fresh.hand !== state.hand) cut.cuts = null; // a cut is noted for one deal
    if (!fresh.reading) fixing = null;
    state = fresh;
    draw();
  }
  const page = tablePage(base, tv, show, () => (state ? state.seq : null));
  const act = (body) => page.send("/action", body);

  const nameOf = (seat) => state.players[seat].name;
  const teamName = (team) => L("Pareja") + " " + (team + 1) + " (" + state.teams[team].names.join(" · ") + ")";

  // ------------------------------------------------------------------ the matchstick tally
  function tally(n) {
    const svg = document.createElementNS(SVG, "svg");
    const groups = Math.ceil(n / 5) || 1;
    svg.setAttribute("viewBox", "0 0 " + groups * 46 + " 40");
    svg.setAttribute("class", "tally");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", n + " " + L("tentos"));
    // Each five: the four sides of a square, then its diagonal.
    const sides = [[4, 4, 36, 4], [36, 4, 36, 36], [36, 36, 4, 36], [4, 36, 4, 4], [4, 4, 36, 36]];
    for (let k = 0; k < n; k++) {
      const g = Math.floor(k / 5);
      const [x1, y1, x2, y2] = sides[k % 5];
      const line = document.createElementNS(SVG, "line");
      line.setAttribute("x1", x1 + g * 46);
      line.setAttribute("y1", y1);
      line.setAttribute("x2", x2 + g * 46);
      line.setAttribute("y2", y2);
      line.setAttribute("class", "stick");
      svg.appendChild(line);
    }
    return svg;
  }

  function cardEl(c, extra) {
    if (c.down) return h("span", { class: "pcard down", title: L("tapada") }, "🂠");
    return h("span", { class: "pcard" + (c.red ? " red" : "") + (extra || "") }, c.rank + c.suit);
  }

  // ------------------------------------------------------------------ drawing
  function draw() {
    drawScore();
    drawHand();
    drawTricks();
    if (!tv) {
      drawControls();
      drawReading();
      drawPicker();
      drawTools();
    }
  }

  function drawScore() {
    const box = $("scoreboard");
    box.replaceChildren(
      ...state.teams.map((t) =>
        h(
          "div",
          { class: "team" + (state.winner === t.team ? " won" : ""), dataset: { team: t.team } },
          h("div", { class: "who" }, L("Pareja") + " " + (t.team + 1), h("small", {}, t.names.join(" · "))),
          h("div", { class: "tentos", id: "score-" + t.team }, String(t.score)),
          tally(t.score),
        ),
      ),
    );
  }

  function drawHand() {
    const box = $("hand-info");
    const parts = [];
    if (state.winner !== null) {
      parts.push(h("p", { class: "big-text gold", id: "winner" }, L("Fin del juego") + ": " + L("Ganador") + " " + teamName(state.winner)));
    }
    if (state.hand > 0) {
      const line = [L("Mano") + " " + state.hand, L("Reparte") + " " + nameOf(state.dealer), L("mão") + " " + nameOf(state.mao)];
      parts.push(h("p", {}, line.join(" · ")));
      const kind = state.kind === "eleven" ? L("Mano de once") : state.kind === "iron" ? L("Mano de hierro") : null;
      parts.push(
        h(
          "p",
          { class: "stake" },
          h("span", { class: "stake-value", id: "stake" }, L("Vale") + " " + state.stake),
          kind ? h("span", { class: "kind-badge" }, kind) : null,
        ),
      );
    }
    if (state.pending !== null) {
      const raiser = state.raiser_team;
      parts.push(
        h(
          "p",
          { class: "pending big-text", id: "pending" },
          state.pending_name + " (" + state.pending + ") — " + teamName(raiser) + " " + L("propone") + "; " + teamName(1 - raiser) + " " + L("responde"),
        ),
      );
    }
    if (state.turn !== null && state.pending === null) {
      parts.push(h("p", { class: "turn", id: "turn" }, L("Le toca a") + " " + nameOf(state.turn)));
    }
    if (state.may_raise.length && state.next_raise_name) {
      parts.push(h("p", { class: "may-raise", id: "may-raise" }, L("Puede subir") + " (" + state.next_raise_name + "): " + state.may_raise.map(nameOf).join(", ")));
    }
    if (state.last_hand && state.phase !== "play" && state.phase !== "eleven") {
      const r = state.last_hand;
      const why = r.reason === "run" || r.reason === "eleven_run" ? L("corrió") : L("por las bazas");
      const text = r.team === null ? L("Nadie suma") : L("Gana la mano") + " " + teamName(r.team) + ": " + r.tentos + " " + L("tentos") + " (" + why + ")";
      parts.push(h("p", { class: "last-hand", id: "last-hand" }, text));
    }
    if (state.phase === "play" || state.phase === "eleven") {
      parts.push(
        h(
          "p",
          { class: "holding" },
          state.players.map((p) => h("span", { class: "seat-chip" + (p.seat === state.turn ? " on" : "") }, p.name + ": " + window.Cacho.count(p.cards_left, L("carta"), L("cartas")))),
        ),
      );
    }
    box.replaceChildren(...parts);
  }

  function drawTricks() {
    const box = $("tricks");
    const rows = state.tricks.map((t, k) => trickRow(k + 1, t.plays, t));
    if (state.phase === "play" && state.current.length) rows.push(trickRow(state.tricks.length + 1, state.current, null));
    box.hidden = rows.length === 0;
    box.replaceChildren(...rows);
  }

  function trickRow(n, plays, result) {
    let verdict = null;
    if (result) verdict = h("span", { class: "verdict" }, result.team === null ? L("empate") : "→ " + nameOf(result.winner));
    return h(
      "div",
      { class: "trick", dataset: { trick: n } },
      h("span", { class: "label" }, L("Baza") + " " + n),
      plays.map((p) => h("span", { class: "play" + (result && p.seat === result.winner ? " best" : "") }, h("small", {}, nameOf(p.seat)), cardEl(p))),
      verdict,
    );
  }

  function button(label, body, opts) {
    const o = opts || {};
    // A new hand carries the cut when the coordinator noted one (seed 001, Dealing procedure).
    const send = () => act(body.action === "hand" && cut.cuts ? Object.assign({ cut: { cuts: cut.cuts, from: cut.from } }, body) : body);
    return Cards.button(label, send, o);
  }

  // The cut before the deal, noted or not: how many cuts (1 to 3) and whether the deal is from the top or the bottom.
  function cutPicker() {
    const cuts = h("select", { id: "cut-count", onchange: (e) => { cut.cuts = Number(e.target.value) || null; } },
      h("option", { value: "" }, L("Corte: sin anotar")),
      [1, 2, 3].map((n) => h("option", { value: n, selected: cut.cuts === n }, L("Corte") + ": " + n)));
    const side = h("select", { id: "cut-from", onchange: (e) => { cut.from = e.target.value; } },
      h("option", { value: "top", selected: cut.from === "top" }, L("de arriba")),
      h("option", { value: "bottom", selected: cut.from === "bottom" }, L("de abajo")));
    return h("div", { class: "row cut" }, cuts, side);
  }

  // A raise, accept or run for one seat, greyed with the engine's section and reason when not allowed.
  function seatAction(seat, what, label, primary) {
    const may = state.legal.seats[seat].may[what];
    const reason = may.allowed ? null : may.article + ": " + may.reason;
    return h(
      "span",
      { class: "option" },
      button(label, { action: what, player: seat }, { id: what + "-" + seat, disabled: !may.allowed, reason: reason, primary: primary }),
      reason ? h("span", { class: "reason" }, reason) : null,
    );
  }

  function drawControls() {
    const box = $("controls");
    const parts = [];
    const ph = state.phase;
    if (ph === "hand") {
      if (state.dealer === null) {
        parts.push(h("p", {}, L("¿Quién reparte la primera mano?")));
        parts.push(h("div", { class: "row" }, state.players.map((p) => button(p.name, { action: "hand", dealer: p.seat }, { id: "dealer-" + p.seat }))));
      } else {
        parts.push(button(L("Nueva mano: reparte") + " " + nameOf(state.next_dealer), { action: "hand" }, { id: "new-hand", primary: true, withCut: true }));
      }
      parts.push(cutPicker());
    } else if (ph === "deal") {
      if (state.offer !== null) {
        parts.push(h("p", {}, nameOf(state.mao) + " (" + L("mão") + ")"));
        parts.push(
          h(
            "div",
            { class: "row" },
            button(L("Se queda"), { action: "keep" }, { id: "keep", primary: true }),
            button(L("Pasa a su compañero"), { action: "pass" }, { id: "pass" }),
            button(L("Rechaza") + " (" + state.rejections + "/3)", { action: "reject" }, { id: "reject" }),
          ),
        );
      } else if (state.deal_queue.length) {
        parts.push(button(L("Repartir a los demás"), { action: "deal" }, { id: "deal", primary: true }));
      } else {
        parts.push(button(L("Repartir al mão"), { action: "offer" }, { id: "offer", primary: true }));
      }
    } else if (ph === "eleven") {
      const team = state.teams.find((t) => t.score === state.points - 1).team;
      parts.push(h("p", {}, L("Mano de once") + ": " + L("Deciden") + " " + teamName(team)));
      parts.push(
        h(
          "div",
          { class: "row" },
          button(L("Juegan por tres"), { action: "eleven", team: team, play: true }, { id: "eleven-play", primary: true }),
          button(L("Corren (un tento a los otros)"), { action: "eleven", team: team, play: false }, { id: "eleven-run" }),
        ),
      );
    } else if (ph === "play") {
      if (state.pending !== null) {
        const answering = [0, 1, 2, 3].filter((s) => s % 2 !== state.raiser_team);
        for (const seat of answering) {
          const row = [h("span", { class: "who" }, nameOf(seat)), seatAction(seat, "accept", L("Quiero"), true), seatAction(seat, "run", L("No quiero"))];
          if (state.next_raise !== null) row.push(seatAction(seat, "truco", state.next_raise_name));
          parts.push(h("div", { class: "row answer" }, row));
        }
      } else if (state.next_raise !== null || state.card_reader) {
        if (state.card_reader) parts.push(h("div", { class: "row" }, h("button", { class: "big", id: "read-trick", onclick: () => page.send("/read", {}) }, L("Leer la baza"))));
      }
      if (state.pending === null && state.next_raise !== null) {
        const seats = [0, 1, 2, 3].filter((s) => s === state.turn || state.legal.seats[s].may.truco.allowed);
        parts.push(h("div", { class: "row" }, seats.map((s) => seatAction(s, "truco", state.next_raise_name + " (" + nameOf(s) + ")"))));
      }
    }
    box.hidden = parts.length === 0;
    box.replaceChildren(...parts);
  }

  // A reading of the trick's cards: each seat's card, the doubtful ones highlighted; a tap picks it for correction.
  function drawReading() {
    const box = $("reading");
    const r = state.reading;
    box.hidden = !r;
    if (!r) {
      box.replaceChildren();
      return;
    }
    const chips = r.seats.map((e) =>
      h(
        "button",
        {
          class: "rcard" + (e.doubtful ? " doubtful" : "") + (e.corrected ? " corrected" : "") + (fixing === e.seat ? " chosen" : ""),
          dataset: { seat: e.seat },
          onclick: () => { fixing = e.seat; drawPicker(); drawReading(); },
        },
        nameOf(e.seat) + ": " + (e.card === null ? "?" : window.Cacho.cardName(e.card) + (e.down ? " (" + L("tapada") + ")" : "")) + (e.corrected ? "" : " · " + window.Cacho.percent(e.confidence)),
      ),
    );
    // why the reader doubts each card still to settle, in words (a touchscreen has no tooltips)
    const open = r.seats.filter((e) => e.doubtful && !e.corrected && (e.reasons || []).length);
    box.replaceChildren(
      h("p", {}, L("Lectura")),
      r.photo_url ? h("img", { class: "photo reading-photo", src: r.photo_url, alt: L("Foto de la lectura") }) : "",
      h("div", { class: "row" }, chips),
      open.length ? h("ul", { class: "why" }, ...open.map((e) => h("li", {}, nameOf(e.seat) + ": " + window.Cacho.cardsIn(e.reasons.join("; "))))) : "",
      h(
        "div",
        { class: "row" },
        h("button", { class: "big primary", id: "confirm-reading", onclick: () => page.send("/confirm", {}) }, L("Confirmar la baza")),
        h("button", { class: "big", id: "cancel-reading", onclick: () => page.send("/cancel", {}) }, L("Descartar lectura")),
      ),
    );
  }

  // The card picker: ranks across, suits down; a card the engine refuses is greyed with its reason.
  function drawPicker() {
    const box = $("picker");
    if (state.phase !== "play" || state.pending !== null) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.hidden = false;
    const cards = state.legal.cards;
    const suits = ["♠", "♥", "♦", "♣"];
    const grid = h(
      "div",
      { class: "card-grid" },
      suits.flatMap((s) =>
        cards
          .filter((c) => c.suit === s)
          .map((c) =>
            h(
              "button",
              {
                class: "pick" + (c.red ? " red" : "") + (c.allowed || c.down_allowed ? "" : " seen") + (chosen && chosen.card === c.card ? " chosen" : ""),
                dataset: { card: c.card },
                title: c.reason,
                onclick: () => { chosen = c; drawPicker(); },
              },
              c.rank + c.suit,
            ),
          ),
      ),
    );
    const who = nameOf(state.turn);
    const bar = [];
    if (chosen && fixing !== null) {
      const fix = (down) => page.send("/card", { seat: fixing, card: chosen.card, down: down });
      bar.push(h("button", { class: "big primary", id: "set-card", onclick: () => fix(false) }, L("Poner") + " " + chosen.rank + chosen.suit + " · " + nameOf(fixing)));
      bar.push(h("button", { class: "big", id: "set-card-down", onclick: () => fix(true) }, L("tapada")));
    } else if (chosen) {
      bar.push(button(L("Jugar") + " " + chosen.rank + chosen.suit, { action: "play", player: state.turn, card: chosen.card }, { id: "play", primary: true }));
      bar.push(button(L("Jugar") + " " + L("tapada"), { action: "play", player: state.turn, card: chosen.card, down: true }, { id: "play-down" }));
      const why = chosen.reason || (chosen.down_allowed ? null : chosen.down_reason);
      if (why) bar.push(h("span", { class: "reason", id: "pick-reason" }, why));
    } else {
      bar.push(h("span", {}, L("Elija una carta")));
    }
    box.replaceChildren(h("p", { class: "turn" }, L("Le toca a") + " " + who), grid, h("div", { class: "row" }, bar));
  }

  function drawTools() {
    $("undo").disabled = !state.can_undo;
    const fouls = $("fouls");
    if (!fouls.childElementCount) {
      const team = h("select", { id: "foul-team" }, [0, 1].map((t) => h("option", { value: t }, L("Pareja") + " " + (t + 1))));
      const kind = h("select", { id: "foul-kind" }, state.fouls.map((f) => h("option", { value: f.kind }, f.label)));
      fouls.append(
        team,
        kind,
        h("button", { id: "foul", onclick: () => act({ action: "foul", team: Number(team.value), kind: kind.value }) }, L("Anotar falta")),
      );
    }
    $("history").replaceChildren(...state.history.map((line) => h("li", {}, line)));
  }

  Cards.follow(game, page);
})();
