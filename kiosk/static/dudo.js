// The Dudo table: the coordinator's screen and the spectators' TV, drawn from /dudo/<id>/state.json.
"use strict";
(function () {
  const { api, h, badge, t, tablePage } = window.Cacho;
  const root = document.getElementById("dudo");
  if (!root) return;
  const id = root.dataset.table;
  const tv = root.dataset.view === "tv";
  const base = "/dudo/" + id;
  const FACE = { 1: "ases", 2: "tontos", 3: "trenes", 4: "cuadras", 5: "quinas", 6: "sextas" };
  const ONE = { 1: "as", 2: "tonto", 3: "tren", 4: "cuadra", 5: "quina", 6: "sexta" };
  const PIPS = { 1: "⚀", 2: "⚁", 3: "⚂", 4: "⚃", 5: "⚄", 6: "⚅" };
  const HANDS = { full: "full", escala: "escala", quintilla: "quintilla" };
  let state = null;
  let chosenFace = null;
  let chosenQty = null;
  let desestima = false;
  let picker = null; // {player, die}
  const $ = (sel) => document.getElementById(sel);

  let clockSkew = 0; // how far this screen's clock is ahead of the kiosk's (the turn timer counts on the kiosk's)
  let lastLeft = null; // the turn's seconds left at the last tick: time is up when they cross zero

  const page = tablePage(base, tv, (fresh) => {
    // a bid half chosen was for the table as it stood: once it moves on (this bid applied, an undo), it is void
    if (state && fresh.seq !== state.seq) { chosenFace = chosenQty = null; desestima = false; }
    clockSkew = Date.now() / 1000 - fresh.now;
    state = fresh;
    draw();
  }, () => (state ? state.seq : null));
  const send = page.send;

  // A player's option as a button; why it is refused now goes to `refusals` (one line under the buttons, said once
  // for the three pasos).
  function optionButton(label, option, onclick, attrs, refusals, what) {
    if (!option.allowed && option.reason) refusals.set(what || label, "art. " + option.article + ": " + option.reason);
    return h("button", Object.assign({ class: "big", disabled: !option.allowed, onclick: onclick }, attrs || {}), t(label));
  }

  function drawPlayers() {
    const box = $("players");
    box.replaceChildren(...state.players.map((p) =>
      h("div", {
        class: "player" + (p.to_act ? " to-act" : "") + (p.eliminated ? " out" : "") + (state.winner === p.name ? " champion" : ""),
        dataset: { name: p.name },
      },
        h("span", { class: "name" }, p.name),
        h("span", { class: "dice", "aria-label": p.dice + " " + t("dados") }, p.eliminated ? "✕" : "●".repeat(p.dice)),
        h("span", { class: "count" }, String(p.dice)))));
  }

  function drawStatus() {
    const s = state;
    const parts = [];
    if (s.winner) {
      parts.push(h("p", { id: "champion", class: "champion" }, "🏆 " + t("Campeón de la mesa") + ": " + s.winner));
    } else if (s.round) {
      const r = s.round;
      // round.mode (Round.to_dict): "obligo", "mano a mano", "apertura" or "normal"; the last two tell the aces
      const mode = t(r.mode === "obligo" || r.mode === "mano a mano" ? r.mode : r.aces_wild ? "ases comodín" : "ases no son comodín");
      parts.push(h("p", { class: "round" }, t("Ronda") + " " + r.number + " · " + t("parte") + " " + r.opener + " · " + mode));
      parts.push(h("p", { class: "bid", id: "standing-bid" }, s.bid ? s.bid.player + ": " + s.bid.text : t("Sin apuesta todavía")));
      if (r.paso) parts.push(h("p", { class: "paso", id: "paso-declared" }, t("Paso de") + " " + r.paso.player + ": " + r.paso.hand + " (art. 8)"));
      if (!s.challenge) parts.push(h("p", { class: "turn", id: "to-act" }, t("Le toca a ") + r.to_act));
    }
    parts.push(h("p", { class: "inplay", id: "in-play" }, t("Dados en juego: ") + s.in_play + " " + t("de") + " " + s.table_start_dice));
    $("status").replaceChildren(...parts);
  }

  function drawControls() {
    const box = $("controls");
    if (!box) return;
    const legal = state.legal;
    if (!legal || !legal.player || state.challenge) { box.hidden = true; return; }
    box.hidden = false;
    // The engine's JSON: `may` lists the allowed kinds, `may_not` the refused ones with article and reason.
    const opt = (name) => (legal.may || []).includes(name) ? { allowed: true } : Object.assign({ allowed: false }, (legal.may_not || {})[name]);
    const bids = legal.bids || [];
    const faces = [1, 2, 3, 4, 5, 6];
    const faceButtons = faces.map((f) => {
      const any = bids.some((b) => b[1] === f);
      return h("button", {
        class: "face" + (chosenFace === f ? " chosen" : ""), disabled: !any, dataset: { face: f },
        "aria-label": FACE[f], onclick: () => { chosenFace = f; chosenQty = null; draw(); },
      }, PIPS[f] + " " + FACE[f]);
    });
    const qtys = chosenFace ? bids.filter((b) => b[1] === chosenFace).map((b) => b[0]) : [];
    const qtyButtons = qtys.map((q) => h("button", {
      class: "qty" + (chosenQty === q ? " chosen" : ""), dataset: { q: q },
      onclick: () => { chosenQty = q; draw(); },
    }, String(q)));
    const label = chosenFace && chosenQty ? t("Apostar") + " " + window.Cacho.count(chosenQty, ONE[chosenFace], FACE[chosenFace]) : t("Apostar");
    const go = h("button", {
      class: "big primary", id: "bid-go", disabled: !(chosenFace && chosenQty),
      onclick: async () => {
        await send("/action", { event: "bid", player: legal.player, quantity: chosenQty, face: chosenFace, desestima: desestima || undefined });
      },
    }, label);
    const des = legal.desestima
      ? h("label", { class: "check" }, h("input", { type: "checkbox", id: "desestima", checked: desestima, onchange: (e) => { desestima = e.target.checked; } }), " " + t("Desestimar y abrir de nuevo") + " (art. 5)")
      : null;
    const refusals = new Map();
    const actions = h("div", { class: "row actions" }, go,
      optionButton("¡Dudo!", opt("dudo"), () => send("/action", { event: "dudo", player: legal.player }), { id: "dudo-btn" }, refusals),
      optionButton("Calzo", opt("calzo"), () => send("/action", { event: "calzo", player: legal.player }), { id: "calzo-btn" }, refusals),
      ...Object.keys(HANDS).map((hand) => optionButton(t("Paso") + ": " + HANDS[hand], opt("paso"),
        () => send("/action", { event: "paso", player: legal.player, hand: hand }), { class: "big paso", dataset: { hand: hand } }, refusals, "Paso")));
    const why = [...refusals].map(([what, reason]) => t(what) + " (" + reason + ")").join(" · ");
    box.replaceChildren(...[ // replaceChildren writes a null as the text "null": leave them out
      h("h2", {}, legal.player + ": " + t("¿qué dice?")),
      opt("bid").allowed ? null : h("small", { class: "reason" }, "art. " + opt("bid").article + ": " + opt("bid").reason),
      h("div", { class: "row faces" }, ...faceButtons),
      pintasWhy(legal.pintas_not || {}),
      h("div", { class: "row qtys" }, ...qtyButtons),
      des, actions,
      why ? h("p", { class: "reason", id: "refusals" }, why) : null].filter(Boolean));
  }

  // Why the greyed pintas take no bid, in one line (the engine's article and reason, for the last of them).
  function pintasWhy(refused) {
    const faces = Object.keys(refused);
    if (!faces.length) return null;
    const last = refused[faces[faces.length - 1]];
    return h("small", { class: "reason", id: "pintas-why" },
      faces.map((f) => FACE[f]).join(", ") + ": art. " + last.article + ": " + last.reason);
  }

  const doubtful = (d) => d.uncertain && !(d.corrected || d.confirmed);
  // The doubtful dice whose face could change the ruling: only those are asked (art. 6-8 over every face each may
  // show, the server's proposal); a reading without that list asks them all.
  let deciding = null;
  const asked = (d) => doubtful(d) && (deciding === null || deciding.has(d.id));
  const dieLabel = (d) => (d.face === null ? "?" : PIPS[d.face] + " " + d.face) + (d.confidence === null ? "" : " " + window.Cacho.percent(d.confidence));

  function dieButton(player, d, canEdit) {
    const picking = picker && picker.player === player && picker.die === d.id;
    const cls = "rdie" + (asked(d) ? " doubtful" : doubtful(d) ? " left" : "") + (d.corrected ? " corrected" : "") + (d.face === null ? " unset" : "") + (picking ? " picking" : "");
    return h("button", {
      class: cls, dataset: { id: d.id, player: player, face: d.face === null ? "" : d.face },
      disabled: !canEdit,
      onclick: () => { picker = { player: player, die: d.id }; draw(); },
    }, dieLabel(d));
  }

  // Why the camera doubts each die still to settle, in words on screen (a touchscreen has no tooltips).
  function doubts(dice) {
    const open = dice.filter((d) => asked(d) && (d.reasons || []).length);
    const left = dice.filter((d) => doubtful(d) && !asked(d));
    const items = open.map((d) => h("li", {}, dieLabel(d) + ": " + d.reasons.join("; ")));
    if (left.length) {
      items.push(h("li", { class: "left-note" }, (left.length === 1 ? t("1 dado dudoso no puede cambiar el fallo") :
        left.length + " " + t("dados dudosos no pueden cambiar el fallo")) + ": " + t("quedan como se leyeron")));
    }
    return items.length ? h("ul", { class: "why" }, ...items) : null;
  }

  // The face picker, over the foot of the screen wherever the die was tapped: it says which die, what was read and
  // why it is doubted.
  function drawPicker(r) {
    const p = picker;
    const dice = r.players[p.player] || [];
    const index = dice.findIndex((d) => d.id === p.die);
    const d = index < 0 ? null : dice[index];
    const what = d === null
      ? p.player + " · " + t("dado nuevo")
      : p.player + " · " + t("dado") + " " + (index + 1) + " " + t("de") + " " + dice.length + ": " +
        (d.read === null ? t("sin lectura") : t("leído") + " " + PIPS[d.read] + " " + d.read) +
        (d.confidence === null ? "" : " (" + window.Cacho.percent(d.confidence) + ")");
    return h("div", { class: "picker", id: "picker", role: "dialog", "aria-label": what },
      dieZoom(r, d),
      h("p", { class: "picker-die" }, what),
      d && (d.reasons || []).length ? h("p", { class: "why" }, d.reasons.join("; ")) : null,
      h("p", {}, t("¿Qué cara muestra?")),
      h("div", { class: "row" }, ...[1, 2, 3, 4, 5, 6].map((f) => h("button", {
        class: "face", dataset: { face: f },
        onclick: async () => { picker = null; await send("/die", { player: p.player, die: p.die, face: f }); },
      }, PIPS[f] + " " + f)),
        p.die ? h("button", { class: "remove", onclick: async () => { picker = null; await send("/die", { player: p.player, die: p.die, face: null }); } }, t("quitar")) : null,
        h("button", { onclick: () => { picker = null; draw(); } }, t("cancelar"))));
  }

  // A region of the photo (x, y, w, h in its pixels) as the background of a box of the same shape on screen.
  function photoRegion(r, x, y, w, hh, cls, extra) {
    const [W, H] = r.size;
    const pos = (at, size, whole) => (whole > size ? 100 * at / (whole - size) : 0);
    return h("div", Object.assign({
      class: cls,
      style: "background-image:url('" + (r.photo_raw_url || r.photo_url) + "');background-size:" + (100 * W / w) + "% " + (100 * H / hh) + "%;" +
        "background-position:" + pos(x, w, W) + "% " + pos(y, hh, H) + "%;aspect-ratio:" + (w / hh),
    }, extra || {}));
  }

  // The region round a player's dice, half a die's side of felt about them, between 5:4 and 16:5 (the crop's
  // height is fixed, its width follows: the dice as large as the row allows) and inside the photo where it fits;
  // null when none of the dice has a box.
  function seatRegion(r, dice) {
    const boxes = dice.filter((d) => d.box).map((d) => d.box);
    if (!boxes.length || !r.size || !r.photo_url) return null;
    const [W, H] = r.size;
    const margin = Math.max(...boxes.map((b) => Math.max(b[2] - b[0], b[3] - b[1]))) / 2;
    let x = Math.min(...boxes.map((b) => b[0])) - margin, y = Math.min(...boxes.map((b) => b[1])) - margin;
    let w = Math.max(...boxes.map((b) => b[2])) + margin - x, hh = Math.max(...boxes.map((b) => b[3])) + margin - y;
    if (w < 1.25 * hh) { x -= (1.25 * hh - w) / 2; w = 1.25 * hh; }
    if (w > 3.2 * hh) { y -= (w / 3.2 - hh) / 2; hh = w / 3.2; }
    x = Math.max(0, Math.min(x, W - w)); y = Math.max(0, Math.min(y, H - hh));
    return [x, y, w, hh];
  }

  // A player's dice as the photo shows them, cropped and large, each die's box a tap that opens it.
  function seatCrop(r, name, dice) {
    const region = seatRegion(r, dice);
    if (region === null) return h("div", { class: "crop empty" });
    const [x, y, w, hh] = region;
    const crop = photoRegion(r, x, y, w, hh, "crop", { dataset: { name: name } });
    for (const d of dice) {
      if (!d.box) continue;
      const [x1, y1, x2, y2] = d.box;
      crop.appendChild(h("button", {
        class: "box" + (asked(d) ? " doubtful" : ""), dataset: { id: d.id },
        style: "left:" + (100 * (x1 - x) / w) + "%;top:" + (100 * (y1 - y) / hh) + "%;width:" + (100 * (x2 - x1) / w) + "%;height:" + (100 * (y2 - y1) / hh) + "%",
        "aria-label": name + " " + d.face, onclick: () => { picker = { player: name, die: d.id }; draw(); },
      }));
    }
    return crop;
  }

  // The die tapped, zoomed: three of its sides round it.
  function dieZoom(r, d) {
    if (!d || !d.box || !r.size || !r.photo_url) return null;
    const [x1, y1, x2, y2] = d.box;
    const side = 3 * Math.max(x2 - x1, y2 - y1);
    const [W, H] = r.size;
    const x = Math.max(0, Math.min((x1 + x2 - side) / 2, W - side)), y = Math.max(0, Math.min((y1 + y2 - side) / 2, H - side));
    const zoom = photoRegion(r, x, y, side, side, "zoom", { role: "img", "aria-label": t("el dado, de cerca") });
    zoom.appendChild(h("span", {
      class: "mark",
      style: "left:" + (100 * (x1 - x) / side) + "%;top:" + (100 * (y1 - y) / side) + "%;width:" + (100 * (x2 - x1) / side) + "%;height:" + (100 * (y2 - y1) / side) + "%",
    }));
    return zoom;
  }

  function drawReading() {
    const box = $("reading");
    const c = state.challenge;
    root.classList.toggle("challenged", !!c);
    if (!c) { box.hidden = true; picker = null; return; }
    box.hidden = false;
    const r = state.reading;
    const ready = !tv && !!r && r.state === "ready";
    box.classList.toggle("ready", ready);
    // every player's row on the 7-inch screen: the crops shrink as the players grow
    box.style.setProperty("--crop-h", (c.needed.length <= 3 ? 84 : Math.max(44, Math.floor(252 / c.needed.length))) + "px");
    deciding = r && r.proposal && Array.isArray(r.proposal.deciding) ? new Set(r.proposal.deciding) : null;
    const title = t({ dudo: "¡Dudo!", calzo: "¡Calzo!", paso: "¡Dudo del paso!" }[c.kind]);
    const what = c.kind === "paso" ? c.target + " " + t("declaró") + " " + c.hand : (c.bid ? c.bid.player + ": " + c.bid.text : "");
    const heading = h("h2", { id: "challenge" }, title + " " + c.challenger + " → " + c.target + " (art. " + c.article + ")");
    if (tv) {
      box.replaceChildren(heading, h("p", {}, what), h("p", { class: "big-text" }, t("Levanten los cachos: ") + c.needed.join(", ")),
        ...(r && r.photo_url ? [h("img", { class: "photo", src: r.photo_url, alt: "lectura" })] : []));
      return;
    }
    const buttons = h("div", { class: "row reread" },
      h("button", { class: "big primary", id: "read-btn", disabled: !state.can_read || (r && r.state === "reading"), onclick: () => send("/read") },
        r && r.state === "ready" && r.source === "camera" ? t("Leer de nuevo") : t("Leer los dados")),
      h("button", { class: "big", id: "manual-btn", onclick: () => send("/manual") }, t("Entrar a mano")));
    // read: the challenge, the bid and the buttons on one line, so that the dice and «Confirmar» fit the screen
    const items = ready
      ? [h("div", { class: "challenge-line" }, heading, h("p", { class: "what" }, what), buttons)]
      : [heading, h("p", {}, what), h("p", { class: "big-text" }, t("Levanten los cachos: ") + c.needed.join(", ")), buttons];
    if (!state.can_read) items.push(h("small", { class: "reason" }, t("Cámara") + ": " + state.camera.message));
    if (r) {
      items.push(h("p", { class: "reading-state", id: "reading-state", dataset: { state: r.state } },
        r.state === "reading" ? t("Esperando la lectura…") + " (" + r.message + ")" : r.message));
      const photo = r.photo_url ? fullPhoto(r) : null;
      if (!ready) {
        if (photo) items.push(photo);
      } else {
        const whys = [];
        for (const name of c.needed) {
          const dice = r.players[name] || [];
          const want = (state.players.find((p) => p.name === name) || {}).dice;
          items.push(h("div", { class: "rplayer", dataset: { name: name } },
            seatCrop(r, name, dice),
            h("span", { class: "name" }, name + " (" + dice.length + "/" + want + ")"),
            ...dice.map((d) => dieButton(name, d, true)),
            h("button", { class: "add-die", "aria-label": t("+ dado"), onclick: () => { picker = { player: name, die: null }; draw(); } }, "+")));
          const why = doubts(dice);
          if (why) whys.push(h("div", { class: "rwhy", dataset: { name: name } }, h("strong", {}, name + ": "), why));
        }
        if (picker) items.push(drawPicker(r));
        const plan = r.proposal;
        const verdict = h("div", { class: "verdict" });
        if (plan.ruling) {
          verdict.appendChild(h("p", { class: "ruling-preview", id: "ruling-preview" }, plan.ruling.message));
          if (plan.ruling.count) verdict.appendChild(h("p", { class: "count" }, t("Cuenta: ") + countText(plan.ruling.count)));
          const changes = Object.entries(plan.ruling.changes).map(([n, d]) => n + " " + signed(d));
          if (changes.length) verdict.appendChild(h("p", { class: "changes" }, changes.join(" · ")));
        }
        if (plan.blockers.length) verdict.appendChild(h("ul", { class: "blockers", id: "blockers" }, ...plan.blockers.map((m) => h("li", {}, m))));
        // once ruled, back to the top: the next player's controls are there
        verdict.appendChild(h("button", { class: "big primary", id: "confirm-btn", disabled: !plan.ok, onclick: async () => { if (await send("/confirm")) window.scrollTo(0, 0); } }, t("Confirmar y aplicar")));
        items.push(verdict);
        // below the fold: why each die is doubted, what the capture reports, and the whole photo
        items.push(...whys);
        if (r.problems && r.problems.length) items.push(h("ul", { class: "problems" }, ...r.problems.map((m) => h("li", {}, m))));
        if (photo) items.push(photo);
      }
    }
    box.replaceChildren(...items);
  }

  // The whole photo with every die's box, a tap on a box opens that die.
  function fullPhoto(r) {
    const frame = h("div", { class: "photo-frame" }, h("img", { class: "photo", src: r.photo_url, alt: t("lectura de los dados") }));
    if (!r.size) return frame;
    for (const [name, dice] of Object.entries(r.players)) {
      for (const d of dice) {
        if (!d.box) continue;
        const [x1, y1, x2, y2] = d.box;
        frame.appendChild(h("button", {
          class: "box" + (asked(d) ? " doubtful" : ""),
          style: "left:" + (100 * x1 / r.size[0]) + "%;top:" + (100 * y1 / r.size[1]) + "%;width:" + (100 * (x2 - x1) / r.size[0]) + "%;height:" + (100 * (y2 - y1) / r.size[1]) + "%",
          title: name + ": " + d.face, "aria-label": name + " " + d.face,
          onclick: () => { picker = { player: name, die: d.id }; draw(); },
        }));
      }
    }
    return frame;
  }

  // The count, aces apart when they were wild: "3 quinas + 2 ases = 5".
  // «1 cuadra + 2 ases = 3»: each count with the form its number takes
  function countText(c) {
    const naturals = window.Cacho.count(c.naturals, ONE[c.face], FACE[c.face]);
    return c.aces === null ? naturals : naturals + " + " + window.Cacho.count(c.aces, ONE[1], FACE[1]) + " = " + c.total;
  }

  // a die won or lost, signed as Spanish prints it: +1, −1 (the minus sign, not a hyphen)
  const signed = (d) => (d >= 0 ? "+" + d : "\u2212" + Math.abs(d));

  function drawRuling() {
    const box = $("ruling");
    const r = state.last_ruling;
    if (!r || state.challenge) { box.hidden = true; return; } // the cups lifted now come first, on both screens
    box.hidden = false;
    const changes = Object.entries(r.changes).map(([n, d]) => n + " " + signed(d));
    const items = [h("h2", {}, t("Último fallo") + " (art. " + r.article + ")"), h("p", { id: "last-ruling", class: "ruling-text" }, r.message)];
    if (r.count) {
      items.push(h("p", { class: "count" }, t("Cuenta: ") + countText(r.count)));
    }
    if (changes.length) items.push(h("p", {}, changes.join(" · ")));
    if (r.eliminated.length) items.push(h("p", { class: "out" }, t("Eliminado: ") + r.eliminated.join(", ")));
    if (r.photo) items.push(h("img", { class: "photo", src: r.photo, alt: "foto del fallo" }));
    box.replaceChildren(...items);
  }

  function drawOdds() {
    const box = $("odds");
    if (!box) return;
    const o = state.odds;
    if (!o) { box.hidden = true; return; }
    box.hidden = false;
    box.replaceChildren(
      h("h2", {}, t("Probabilidad de que la apuesta sea cierta")),
      h("p", { class: "odds-value", id: "odds-true" }, window.Cacho.percent(o.true)),
      h("p", {}, t("exacta (calzo)") + ": " + window.Cacho.percent(o.exact) + " · " + o.dice + " " + t("dados") + " · " + (o.aces_wild ? t("ases comodín") : t("ases no comodín"))));
  }

  function drawTools() {
    const list = $("history");
    if (list) list.replaceChildren(...state.history.map((line) => h("li", {}, line)));
    const undo = $("undo");
    if (undo) undo.disabled = !state.can_undo;
  }

  // The turn timer (art. 11) counts down on every screen; at zero it says «¡Tiempo!», counts the time over, and
  // sounds once where the coordinator left the sound on.
  function drawTimer() {
    const el = $("timer");
    if (!el || !state) return;
    const clock = state.timer;
    const serverNow = Date.now() / 1000 - clockSkew;
    const elapsed = Math.max(0, clock.elapsed + (clock.running && clock.since ? serverNow - clock.since : 0));
    const left = clock.limit - elapsed;
    const up = left <= 0;
    const s = up ? Math.floor(-left) : Math.ceil(left);
    const shown = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    el.textContent = up ? t("¡Tiempo!") + " +" + shown : shown;
    el.classList.toggle("over", up);
    el.dataset.state = up ? "up" : clock.running ? "running" : "stopped";
    if (up && clock.running && lastLeft !== null && lastLeft > 0 && clock.sound) sound(el);
    lastLeft = left;
    const toggle = $("timer-sound");
    if (toggle) {
      toggle.textContent = clock.sound ? t("Sonido: sí") : t("Sonido: no");
      toggle.setAttribute("aria-pressed", String(clock.sound));
    }
  }

  let audio = null;
  function sound(el) {
    el.dataset.sounded = String(Number(el.dataset.sounded || 0) + 1);
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === "suspended") audio.resume();
      for (const at of [0, 0.35, 0.7]) {
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.frequency.value = 880;
        gain.gain.value = 0.25;
        osc.connect(gain).connect(audio.destination);
        osc.start(audio.currentTime + at);
        osc.stop(audio.currentTime + at + 0.2);
      }
    } catch (e) { /* a screen with no sound: «¡Tiempo!» says it */ }
  }

  function draw() {
    if (!state) return;
    drawPlayers(); drawStatus(); drawControls(); drawReading(); drawRuling(); drawOdds(); drawTools(); drawTimer();
    badge(state.camera);
    root.dataset.seq = state.seq;
  }

  if (!tv) {
    $("undo").addEventListener("click", () => send("/undo"));
    const clockOp = async (body) => {
      const res = await api(base + "/timer", body);
      if (!res.ok) { page.showError(res.data.error); return; }
      clockSkew = Date.now() / 1000 - res.data.now;
      state.timer = res.data;
      drawTimer();
    };
    for (const op of ["start", "pause", "reset"]) $("timer-" + op).addEventListener("click", () => clockOp({ op: op }));
    $("timer-sound").addEventListener("click", () => clockOp({ op: "sound", on: !state.timer.sound }));
  }
  setInterval(drawTimer, 500);
  page.follow(id);
})();
