// Bolivian Cacho: the coordinator's screen and the spectators' TV, drawn from /bolivia/<id>/state.json,
// and the setup form's partners switch. The DOM is built with Cacho.h: data is never parsed as HTML.
"use strict";
(function () {
  const { get, h, badge, num, tablePage } = window.Cacho;

  // ------------------------------------------------------------------ the setup form
  const form = document.getElementById("new-bolivia");
  if (form) {
    const partners = document.getElementById("v-partners");
    const sync = () => {
      document.getElementById("teams-box").hidden = !partners.checked;
      document.getElementById("players-box").hidden = partners.checked;
    };
    partners.addEventListener("change", sync);
    sync();
  }

  const root = document.getElementById("bolivia");
  if (!root) return;
  const id = root.dataset.table;
  const tv = root.dataset.view === "tv";
  const base = "/bolivia/" + id;
  const labelsEl = document.getElementById("bolivia-labels");
  const LABELS = labelsEl ? JSON.parse(labelsEl.textContent) : {};
  const L = (key) => LABELS[key] || key;
  const PIPS = { 1: "⚀", 2: "⚁", 3: "⚂", 4: "⚃", 5: "⚄", 6: "⚅" };
  const SHORT = { escalera: "Esc.", full: "Full", poker: "Póker", grande: "Grande" };
  // The cross hatch: 1-3 left, escalera/full/póker in the middle, 4-6 right; the grande underneath.
  const HATCH = [["balas", "escalera", "cuadras"], ["tontos", "full", "quinas"], ["trenes", "poker", "senas"]];
  let state = null;
  let selected = null; // positions (1-based) chosen to set aside, null: as the game has them
  let picker = null; // {die: id | null}
  let adviceOpen = tv;
  let advice = null;
  const $ = (sel) => document.getElementById(sel);

  // A refreshed state brings the advice along when it is open; the answer to a tap drops the dice chosen.
  async function show(fresh, sent) {
    state = fresh;
    if (sent) selected = null;
    else if (!tv && adviceOpen) advice = (await get(base + "/advice.json")).advice;
    draw();
  }
  const page = tablePage(base, tv, show, () => (state ? state.seq : null));
  const send = page.send;

  const labelOf = (value) => (state.categories.find((c) => c.value === value) || { label: value }).label;
  const face = (f) => (f === null || f === undefined ? "?" : PIPS[f] + " " + f);
  // A score as the pizarra writes it, with the points when the mark is not the points (5, O, X, $).
  const markText = (r) => r.mark + (r.mark !== String(r.points) ? " (" + r.points + ")" : "");
  const sameSet = (a, b) => a.length === b.length && a.every((x) => b.includes(x));

  function keptNow() {
    const a = state.attempt;
    return selected !== null ? selected : (a ? a.set_aside.slice() : []);
  }

  // ------------------------------------------------------------------ the turn and its dice

  function drawTurn() {
    const box = $("turn");
    const s = state;
    const a = s.attempt;
    const items = [];
    if (s.phase === "over") {
      items.push(h("p", { class: "turn-line", id: "turn-line" }, L("Fin de la partida")));
    } else if (a) {
      const bits = [L("Le toca a") + " " + a.player];
      const team = s.game.turn && s.game.turn.side !== a.player ? " (" + s.game.turn.side + ")" : "";
      bits[0] += team;
      bits.push(a.rolls ? L("Tirada") + " " + a.rolls + " " + L("de") + " 3" : L("Aún no tira"));
      if (a.declared) bits.push(L("declaró") + " " + a.declared_label);
      items.push(h("p", { class: "turn-line", id: "turn-line" }, bits.join(" · ")));
    } else if (s.game.turn) {
      items.push(h("p", { class: "turn-line", id: "turn-line" }, L("Le toca a") + " " + s.game.turn.side));
    }
    const roll = s.roll;
    if (roll && roll.dice && a) {
      const kept = keptNow();
      const locked = a.locked || [];
      const canSet = !tv && s.legal && s.legal.set_aside.allowed && !(s.reading && s.reading.state !== "failed");
      const retake = s.game.options.retomar_apartados;
      const dice = roll.dice.map((f, i) => {
        const pos = i + 1;
        const isKept = kept.includes(pos);
        const isLocked = locked.includes(pos) && !retake;
        return h("button", {
          class: "bdie" + (isKept ? " kept" : "") + (isLocked ? " locked" : ""),
          dataset: { pos: pos, face: f },
          disabled: !canSet || isLocked,
          title: isLocked ? L("ya apartado: no vuelve al cacho") : null,
          "aria-pressed": isKept ? "true" : "false",
          onclick: () => {
            const now = keptNow();
            selected = now.includes(pos) ? now.filter((p) => p !== pos) : now.concat([pos]).sort();
            draw();
          },
        }, h("span", { class: "pip" }, PIPS[f]), h("span", { class: "num" }, String(f)),
        isKept ? h("small", {}, L("apartado")) : null);
      });
      items.push(h("div", { class: "row dice", id: "roll-dice" }, ...dice));
      if (canSet) items.push(h("small", { class: "hint" }, L("Toque los dados para apartarlos")));
      if (roll.photo_url && !(s.reading && s.reading.photo_url)) items.push(photoFrame(roll.photo_url, roll.size, roll.boxes, null, "roll-photo"));
    }
    if (s.last_score && !tv) {
      const l = s.last_score;
      items.push(h("p", { class: "last-score", id: "last-score" },
        L("Última anotación") + ": " + (l.player || "") + " · " + l.label + " " + markText(l)));
    }
    box.replaceChildren(...items);
  }

  function photoFrame(url, size, boxes, reading, elId) {
    // The photo's size is known before it loads: the page does not jump, and the boxes sit right at once.
    const frame = h("div", { class: "photo-frame", id: elId },
      h("img", { class: "photo", src: url, alt: "tirada", width: size ? size[0] : null, height: size ? size[1] : null }));
    if (!size) return frame;
    const place = (b) => "left:" + (100 * b[0] / size[0]) + "%;top:" + (100 * b[1] / size[1]) + "%;width:" + (100 * (b[2] - b[0]) / size[0]) + "%;height:" + (100 * (b[3] - b[1]) / size[1]) + "%";
    if (reading) {
      const plan = reading.proposal;
      if (!tv && reading.state === "ready") {
        // Tapping the photo where a die lies that the camera missed adds it there (its place is then known).
        const img = frame.querySelector("img");
        img.classList.add("tappable");
        img.addEventListener("click", (e) => {
          const rect = img.getBoundingClientRect();
          const at = [(e.clientX - rect.left) / rect.width * size[0], (e.clientY - rect.top) / rect.height * size[1]];
          picker = { die: null, at: at.map((v) => Math.round(v * 10) / 10) };
          draw();
        });
        if (picker && picker.at) {
          const [x, y] = picker.at;
          frame.appendChild(h("span", { class: "tap-mark", style: "left:" + (100 * x / size[0]) + "%;top:" + (100 * y / size[1]) + "%" }));
        }
      }
      for (const d of reading.dice) {
        if (!d.box) continue;
        const pos = plan.order.indexOf(d.id) + 1;
        const moved = pos > 0 && plan.moved.includes(pos);
        frame.appendChild(h("button", {
          class: "box" + (d.uncertain && !(d.corrected || d.confirmed) ? " doubtful" : "") + (moved ? " moved" : ""),
          style: place(d.box), dataset: { id: d.id }, "aria-label": (pos || "?") + ": " + d.face,
          disabled: tv, onclick: () => { picker = { die: d.id }; draw(); },
        }, h("span", { class: "tag" }, pos ? String(pos) : "·")));
      }
    } else if (boxes) {
      boxes.forEach((b, i) => {
        if (b) frame.appendChild(h("span", { class: "box still", style: place(b) }, h("span", { class: "tag" }, String(i + 1))));
      });
    }
    return frame;
  }

  // ------------------------------------------------------------------ the reading awaiting confirmation

  function drawReading() {
    const box = $("reading");
    const r = state.reading;
    if (!r) { box.hidden = true; picker = null; return; }
    box.hidden = false;
    const items = [h("p", { class: "reading-state", id: "reading-state", dataset: { state: r.state } },
      r.state === "reading" ? L("Esperando la lectura…") + " (" + r.message + ")" : r.message)];
    if (r.photo_url) items.push(photoFrame(r.photo_url, r.size, null, r, "reading-photo"));
    if (tv) { box.replaceChildren(...items); return; }
    if (r.state === "ready") {
      const plan = r.proposal;
      const byId = Object.fromEntries(r.dice.map((d) => [d.id, d]));
      const chips = [];
      plan.order.forEach((dieId, i) => {
        const pos = i + 1;
        const d = dieId ? byId[dieId] : null;
        if (!d) { chips.push(h("span", { class: "rdie missing", dataset: { pos: pos } }, pos + ": —")); return; }
        chips.push(dieChip(d, pos, plan.moved.includes(pos)));
      });
      for (const dieId of plan.extra || []) chips.push(dieChip(byId[dieId], null, false));
      if (r.dice.length < 5) chips.push(h("button", { class: "add-die", id: "add-die", onclick: () => { picker = { die: null }; draw(); } }, L("+ dado")));
      items.push(h("div", { class: "row rdice", id: "reading-dice" }, ...chips));
      // why the camera doubts each die still to settle, in words on screen (a touchscreen has no tooltips)
      const open = r.dice.filter((d) => d.uncertain && !(d.corrected || d.confirmed) && (d.reasons || []).length);
      if (open.length) {
        items.push(h("ul", { class: "why", id: "reading-why" }, ...open.map((d) => h("li", {},
          (plan.order.indexOf(d.id) >= 0 ? plan.order.indexOf(d.id) + 1 + ": " : "") + face(d.face) + ": " + d.reasons.join("; ")))));
      }
      const blank = r.source === "manual" ? plan.order.map((dieId) => byId[dieId]).find((d) => d && d.face === null) : null;
      if (blank && !picker) {
        // By hand, one tap a die: the face goes to the next die still blank (a wrong one is tapped in the row and fixed).
        items.push(h("div", { class: "row add-faces", id: "add-faces" }, h("span", {}, L("Tocar cada dado") + ":"),
          ...[1, 2, 3, 4, 5, 6].map((f) => h("button", { class: "face", dataset: { face: f }, onclick: () => send("/die", { die: blank.id, face: f }) }, PIPS[f] + " " + f))));
      }
      if (picker) {
        const p = picker;
        items.push(h("div", { class: "picker", id: "picker", role: "dialog" },
          h("p", {}, L("¿Qué cara muestra?")),
          h("div", { class: "row" }, ...[1, 2, 3, 4, 5, 6].map((f) => h("button", {
            class: "face", dataset: { face: f },
            onclick: async () => { picker = null; await send("/die", p.at ? { die: null, face: f, at: p.at } : { die: p.die, face: f }); },
          }, PIPS[f] + " " + f)),
          p.die ? h("button", { class: "remove", id: "remove-die", onclick: async () => { picker = null; await send("/die", { die: p.die, face: null }); } }, L("quitar")) : null,
          h("button", { onclick: () => { picker = null; draw(); } }, L("cancelar")))));
      }
      if (r.problems && r.problems.length) items.push(h("ul", { class: "problems" }, ...r.problems.map((m) => h("li", {}, m))));
      if (plan.blockers.length) items.push(h("ul", { class: "blockers", id: "blockers" }, ...plan.blockers.map((m) => h("li", {}, m))));
    }
    const again = r.source === "camera" && r.state !== "reading";
    items.push(h("div", { class: "row" },
      r.state === "ready" ? h("button", { class: "big primary", id: "confirm-btn", disabled: !r.proposal.ok, onclick: () => send("/confirm") }, L("Confirmar tirada")) : null,
      again ? h("button", { class: "big", id: "reread-btn", disabled: !state.can_read, onclick: () => send("/read") }, L("Leer de nuevo")) : null,
      h("button", { class: "big", id: "cancel-btn", onclick: () => send("/cancel") }, L("Descartar lectura"))));
    box.replaceChildren(...items);
  }

  function dieChip(d, pos, moved) {
    const conf = d.confidence === null ? "" : " " + window.Cacho.percent(d.confidence);
    const cls = "rdie" + (d.uncertain && !(d.corrected || d.confirmed) ? " doubtful" : "") + (d.corrected ? " corrected" : "") +
      (d.face === null ? " unset" : "") + (moved ? " moved" : "") + (d.kept !== null && d.kept !== undefined ? " kept" : "");
    return h("button", {
      class: cls, dataset: { id: d.id, pos: pos || "", face: d.face === null ? "" : d.face },
      title: (d.reasons || []).join("; ") + (d.read !== null && d.corrected ? " · " + L("leído") + ": " + d.read : ""),
      onclick: () => { picker = { die: d.id }; draw(); },
    }, (pos ? pos + ": " : "") + face(d.face) + conf);
  }

  // ------------------------------------------------------------------ the coordinator's buttons

  function drawControls() {
    const box = $("controls");
    if (!box) return;
    const legal = state.legal;
    if (!legal || (state.reading && state.reading.state !== "failed")) { box.hidden = true; return; }
    box.hidden = false;
    const items = [];
    const a = state.attempt;
    if (state.phase === "attempt") {
      if (legal.roll.allowed) {
        const kept = keptNow();
        const pending = a && !sameSet(kept, a.set_aside) && legal.set_aside.allowed;
        const before = async () => (pending ? send("/action", { event: "set_aside", player: legal.player, positions: kept }) : true);
        items.push(h("div", { class: "row" },
          h("button", { class: "big primary", id: "read-btn", disabled: !state.can_read, onclick: async () => { if (await before()) await send("/read"); } }, L("Leer la tirada")),
          h("button", { class: "big", id: "manual-btn", onclick: async () => { if (await before()) await send("/manual"); } }, L("Entrar a mano")),
          pending ? h("button", { class: "big", id: "set-aside-btn", onclick: before }, L("Apartar") + " (" + kept.length + ")") : null));
        if (!state.can_read) items.push(h("small", { class: "reason" }, L("Sin cámara") + ": " + state.camera.message));
      } else if (a && a.rolls) {
        items.push(h("small", { class: "reason", id: "roll-reason" }, legal.roll.article + ": " + legal.roll.reason));
      }
      if (legal.declare.length) {
        const buttons = legal.declare.map((c) => h("button", {
          class: "cat", dataset: { cat: c }, onclick: () => send("/action", { event: "declare", player: legal.player, category: c }),
        }, labelOf(c)));
        if (a && a.declared) {
          items.push(h("details", { class: "change" }, h("summary", {}, L("Cambiar de categoría")),
            h("small", { class: "hint", id: "change-note" }, L("Al cambiar de categoría se vuelven a tirar los cinco dados")),
            h("div", { class: "row cats", id: "declare" }, ...buttons)));
        } else {
          items.push(h("h2", {}, L("Declarar")), h("div", { class: "row cats", id: "declare" }, ...buttons));
        }
      }
      if (legal.score.length) {
        items.push(h("div", { class: "row scores", id: "score" }, ...legal.score.map((sc) => h("button", {
          class: "big primary score" + (sc.instant_win ? " win" : ""), dataset: { cat: sc.category },
          onclick: () => send("/action", Object.assign({ event: "score", player: legal.player }, state.game.variant.includes("generala") ? { category: sc.category } : {})),
        }, L("Anotar") + " " + sc.label + ": " + markText(sc)))));
      }
    } else if (state.phase === "pick") {
      items.push(h("h2", {}, L("Elegir la tirada del equipo")));
      items.push(h("div", { class: "row", id: "pick" }, ...legal.candidates.map((c) => h("button", {
        class: "big", dataset: { member: c.member },
        onclick: () => send("/action", { event: "pick", player: c.member }),
      }, c.member + ": " + c.label + " " + markText(c)))));
    } else if (state.phase === "hatch") {
      const p = legal.pending;
      items.push(h("h2", {}, L("Elegir la pizarra") + ": " + p.label + " " + markText(p)));
      items.push(h("div", { class: "row", id: "hatch" }, ...legal.hatch.filter((o) => o.allowed).map((o) => h("button", {
        class: "big", dataset: { hatch: o.detail },
        onclick: () => send("/action", { event: "hatch", player: legal.player, hatch: Number(o.detail) }),
      }, L("Pizarra") + " " + o.detail + " (" + L("vale") + " " + o.detail + ")"))));
    }
    box.replaceChildren(...items);
  }

  // ------------------------------------------------------------------ ¿a qué voy?

  function drawAdvice() {
    const box = $("advice");
    const adv = tv ? state.advice : advice;
    if (!adviceOpen || !adv || state.phase === "over") { box.hidden = true; return; }
    box.hidden = false;
    const rows = adv.items.slice(0, tv ? 5 : 6).map((item) => {
      let what;
      if (item.instant_win) what = L("¡Grande de mano!");
      else if (item.action === "score") what = L("anote ya") + " (" + item.score_now + ")";
      else what = L("aparte") + " " + (item.keep.length ? item.keep.join(" ") : L("ninguno")) + " " + L("y tire") + " " + (5 - item.keep.length);
      return h("li", { class: item.category === adv.best ? "best" : "", dataset: { cat: item.category } },
        h("strong", {}, item.label), " · ", item.expected === null ? "" : L("esperado") + " " + num(item.expected, 1) + " · ", what);
    });
    box.replaceChildren(h("h2", {}, L("¿A qué voy?") + " · " + adv.player + " (" + L("Tirada") + " " + adv.roll + ")"),
      h("ol", { class: "advice-list", id: "advice-list" }, ...rows));
  }

  // ------------------------------------------------------------------ the pizarras

  function cellOf(hatch, cat, extra) {
    const cell = hatch.cells[cat];
    const info = state.categories.find((c) => c.value === cat);
    const tag = info.face ? String(info.face) : SHORT[cat];
    return h("div", {
      class: "cell" + (cell ? " filled" : "") + (cell && cell.mark === "X" ? " crossed" : "") + (extra || ""),
      dataset: { cat: cat, mark: cell ? cell.mark : "" }, title: info.label,
    }, h("span", { class: "tag" }, tag), h("span", { class: "mark" }, cell ? cell.mark : ""));
  }

  function drawPizarras() {
    const g = state.game;
    const ranking = g.result.ranking;
    const three = g.variant.includes("three_hatches");
    const onTurn = g.turn ? g.turn.side : null;
    const declared = state.attempt ? state.attempt.declared : null;
    // Nobody leads (and no game points show) before a point is written: at 0-0 every side would tie for first.
    const started = g.result.finished || g.sides.some((s) => s.total > 0);
    const cols = g.sides.map((side) => {
      const standing = ranking.find((r) => r.side === side.name);
      const leader = standing && standing.place === 1 && started;
      const crown = leader ? "★ " : "";
      const hatches = side.hatches.map((hatch, index) => {
        const mine = side.name === onTurn;
        const grid = HATCH.flat().map((cat) => cellOf(hatch, cat, mine && cat === declared ? " declared" : ""));
        let grande = hatch.cells.grande;
        const win = g.result.instant_win;
        // A grande de mano ends the game before it is written: it is drawn as the $ it is (docs/rulings.md).
        if (!grande && win && win.side === side.name && index === 0) grande = { mark: "$", points: 50, deMano: true };
        return h("div", { class: "pizarra", dataset: { hatch: index + 1 } },
          three ? h("div", { class: "hatch-title" }, L("Pizarra") + " " + (index + 1) + " · " + L("vale") + " " + (index + 1) + " · " + hatch.total) : null,
          h("div", { class: "hash" }, ...grid),
          h("div", { class: "grande" + (grande ? " filled" : "") + (mine && declared === "grande" ? " declared" : ""), dataset: { cat: "grande", mark: grande ? grande.mark : "" } },
            h("span", { class: "tag" }, grande && grande.deMano ? L("Grande de mano") : "Grande"),
            h("span", { class: "mark" }, grande ? grande.mark + (grande.mark === "$" && !grande.deMano ? " " + grande.points : "") : "")));
      });
      return h("div", {
        class: "side" + (side.name === onTurn ? " on-turn" : "") + (leader ? " leader" : ""), dataset: { side: side.name },
      },
        h("div", { class: "side-head" },
          h("span", { class: "name" }, crown + side.name),
          h("span", { class: "total", dataset: { total: side.total } }, String(side.total)),
          three && standing && started ? h("small", { class: "gp" }, standing.game_points + " pts") : null),
        ...hatches);
    });
    $("pizarras").replaceChildren(...cols);
  }

  function drawResult() {
    const box = $("result");
    const r = state.game.result;
    if (!r.finished) { box.hidden = true; return; }
    box.hidden = false;
    const items = [h("h2", {}, L("Fin de la partida"))];
    if (r.winners.length) items.push(h("p", { class: "winner", id: "winner" }, "★ " + (r.winners.length > 1 ? L("Ganadores") : L("Ganador")) + ": " + r.winners.join(", ")));
    if (r.playoff.length) items.push(h("p", { class: "winner" }, L("Empate: hay que desempatar") + ": " + r.playoff.join(", ")));
    items.push(h("ol", { id: "ranking" }, ...r.ranking.map((s) => h("li", { value: s.place }, s.side + ": " + s.total + " " + L("puntos") + (state.game.variant.includes("three_hatches") ? " · " + s.game_points + " pts" : "")))));
    for (const s of r.settlement) items.push(h("p", {}, s.loser + " · " + L("Paga") + " " + s.owes));
    box.replaceChildren(...items);
  }

  function drawCelebration() {
    const box = $("celebration");
    const win = state.game.result.instant_win;
    if (!win) { box.hidden = true; box.replaceChildren(); return; }
    if (box.dataset.side === win.side) return;  // once per game: a redraw never brings it back
    box.hidden = false;
    box.dataset.side = win.side;
    if (tv) setTimeout(() => { box.hidden = true; }, 10000);  // nobody taps a TV: it goes by itself
    const bits = [];
    for (let i = 0; i < 24; i++) {
      bits.push(h("span", { class: "confetti", style: "left:" + ((i * 37) % 100) + "%;animation-delay:" + ((i % 8) * 0.25) + "s" }, ["⚅", "★", "$", "✦"][i % 4]));
    }
    box.replaceChildren(...bits,
      h("div", { class: "celebration-card", id: "grande-de-mano" },
        h("p", { class: "celebration-title" }, L("¡Grande de mano!")),
        h("p", { class: "celebration-dice" }, win.dice.map((f) => PIPS[f]).join(" ")),
        h("p", { class: "celebration-who" }, (win.player === win.side ? "" : win.player + " · ") + L("Gana") + " " + win.side),
        tv ? null : h("button", { class: "big", onclick: () => { box.hidden = true; } }, "OK")));
  }

  function drawTools() {
    const list = $("history");
    if (list) list.replaceChildren(...state.history.map((line) => h("li", {}, line)));
    const undo = $("undo");
    if (undo) undo.disabled = !state.can_undo;
    const adviceBtn = $("advice-btn");
    if (adviceBtn) {
      adviceBtn.disabled = !(state.attempt && state.attempt.rolls);
      adviceBtn.textContent = adviceOpen && !adviceBtn.disabled ? L("Ocultar consejo") : L("¿A qué voy?");
    }
  }

  function draw() {
    if (!state) return;
    drawTurn(); drawReading(); drawControls(); drawAdvice(); drawPizarras(); drawResult(); drawCelebration(); drawTools();
    badge(state.camera);
    root.dataset.seq = state.seq;
    root.dataset.phase = state.phase;
  }

  if (!tv) {
    $("undo").addEventListener("click", () => send("/undo"));
    $("advice-btn").addEventListener("click", async () => {
      adviceOpen = !adviceOpen;
      if (adviceOpen) advice = (await get(base + "/advice.json")).advice;
      draw();
    });
  }
  page.follow(id);
})();
