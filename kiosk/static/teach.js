// «Enseñar los dados»: the labelled dice per face, a reading corrected by taps and confirmed, the adaptation
// (polled while it runs) and the models the camera reads with.
"use strict";
(function () {
  const { api, get, h, t } = window.Cacho;
  const PIPS = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
  let picked = null;
  let polling = null;

  const $ = (id) => document.getElementById(id);

  function showError(message) {
    $("error").textContent = message || "";
    $("error").hidden = !message;
  }

  async function send(path, body) {
    const res = await api("/ensenar/" + path, body || {});
    if (!res.ok) { showError(res.data.error || "error"); await refresh(); return; }
    showError("");
    draw(res.data);
  }

  function drawFaces(s) {
    const faces = $("faces");
    faces.replaceChildren();
    for (let f = 1; f <= 6; f++) {
      const n = s.counts[String(f)];
      faces.appendChild(h("div", { class: "face-count" + (n < s.min_per_face ? " short" : ""), dataset: { face: f } },
        h("span", { class: "pip" }, PIPS[f]), h("strong", {}, String(n))));
    }
    $("total").textContent = t("{n} de {m} dados").replace("{n}", s.total).replace("{m}", s.target);
    const parts = [];
    if (s.missing) parts.push(t("Faltan {n} dados").replace("{n}", s.missing));
    if (s.short_faces.length) parts.push(t("Faltan dados con la cara") + " " + s.short_faces.join(", ") + " (" + t("al menos") + " " + s.min_per_face + ")");
    $("missing").textContent = parts.join(". ");
    $("teach-adapt").disabled = !s.ready || s.job.state === "running";
  }

  function drawJob(job) {
    $("job").hidden = job.state === "idle";
    $("job-progress").value = job.progress || 0;
    $("job-message").textContent = job.message || "";
    $("job").dataset.state = job.state;
  }

  // the learning part (torch, ultralytics): the reader reads without it, the table learns only with it
  function drawLearnPart(part) {
    const box = $("learn-part");
    box.hidden = !part || (part.installed && part.state !== "done");
    if (box.hidden) return;
    box.dataset.state = part.state;
    const ask = t("Para aprender los dados de esta mesa falta la parte de aprendizaje (torch y ultralytics, {size}). El lector lee sin ella.").replace("{size}", part.size);
    $("learn-part-message").textContent = part.state === "idle" ? ask : part.message;
    $("learn-part-install").hidden = part.installed || part.state === "running";
    $("learn-part-lines").hidden = !part.lines.length;
    $("learn-part-lines").textContent = part.lines.join("\n");
  }

  function drawModels(m) {
    const name = window.Cacho.modelsName;
    let text = name(m.active);
    if (m.chosen !== m.active) text += " (" + t("cargando") + " " + name(m.chosen) + ")";
    $("models-active").textContent = text;
    $("models-active").dataset.models = m.active;
    $("models-active").title = m.active;
    $("models-stock").hidden = m.chosen === "stock";
    const latest = m.adapted[0];
    $("models-latest").hidden = !latest || m.chosen === latest;
    $("models-latest").dataset.name = latest || "";
    const e = m.evidence;
    $("models-evidence").textContent = !e || !e.dice ? t("todavía sin pruebas de esta mesa") :
      e.dice + " " + t("dados de prueba de esta mesa") + " · " + (e.alone !== null
        ? t("acepta sin contar los puntos desde") + " " + window.Cacho.percent(e.alone)
        : t("sin contar los puntos todavía pregunta: hacen falta") + " " + e.needed + " " + t("pruebas sin error"));
  }

  function drawReading(r) {
    const dice = $("teach-dice");
    dice.replaceChildren();
    $("teach-picker").hidden = true;
    $("teach-photo").hidden = !(r && r.photo_url);
    if (r && r.photo_url) $("teach-photo").src = r.photo_url + "?t=" + Date.now();
    $("reading-message").textContent = r ? (r.state === "ready" ? "" : t(r.message)) : "";
    $("teach-confirm").hidden = !(r && r.state === "ready");
    $("teach-cancel").hidden = !r || r.state === "reading";
    $("teach-confirm").disabled = !r || r.blockers.length > 0;
    $("teach-blockers").textContent = r ? r.blockers.join("; ") : "";
    if (!r || r.state !== "ready") return;
    r.dice.forEach((d, i) => {
      const label = (i + 1) + ": " + (d.face === null ? "?" : PIPS[d.face] + " " + d.face);
      const cls = "rdie" + (d.uncertain && !d.corrected && !d.confirmed ? " doubtful" : "") + (d.corrected ? " corrected" : "");
      dice.appendChild(h("button", { class: cls, dataset: { die: d.id }, onclick: () => pick(d, i + 1) }, label));
    });
  }

  function pick(d, number) {
    picked = d.id;
    const picker = $("teach-picker");
    picker.replaceChildren(h("span", { class: "picker-die" }, t("Dado") + " " + number));
    if (d.reasons && d.reasons.length) picker.appendChild(h("span", { class: "why" }, " " + d.reasons.join("; ")));
    const row = h("div", { class: "row" });
    for (let f = 1; f <= 6; f++) {
      row.appendChild(h("button", { class: "face" + (f === d.face ? " chosen" : ""), dataset: { face: f },
        onclick: () => send("die", { die: picked, face: f }) }, PIPS[f] + " " + f));
    }
    row.appendChild(h("button", { onclick: () => send("die", { die: picked, face: null }) }, t("Quitar")));
    picker.appendChild(row);
    picker.hidden = false;
  }

  function draw(s) {
    drawFaces(s);
    drawJob(s.job);
    drawLearnPart(s.learning_part);
    if (s.learning_part && !s.learning_part.installed) $("teach-adapt").disabled = true;
    drawModels(s.models);
    drawReading(s.reading);
    // polled while an adaptation or the learning part's installation runs
    const busy = s.job.state === "running" || (s.learning_part && s.learning_part.state === "running");
    if (busy && !polling) polling = setInterval(refresh, 1000);
    if (!busy && polling) { clearInterval(polling); polling = null; }
    $("teach-read").disabled = !s.can_read || (s.reading && s.reading.state === "reading");
    if (s.reading && s.reading.state === "reading") setTimeout(refresh, 700);
  }

  async function refresh() {
    try { draw(await get("/ensenar/state.json")); } catch (e) { /* the badge says the kiosk is offline */ }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("teach-read").addEventListener("click", () => send("read"));
    $("teach-confirm").addEventListener("click", () => send("confirm"));
    $("teach-cancel").addEventListener("click", () => send("cancel"));
    $("teach-adapt").addEventListener("click", () => send("adapt"));
    $("learn-part-install").addEventListener("click", () => send("aprendizaje"));
    $("models-stock").addEventListener("click", () => send("models", { name: null }));
    $("models-latest").addEventListener("click", () => send("models", { name: $("models-latest").dataset.name }));
    window.Cacho.listen(["camera"], (topic, data) => { if (topic === "camera") { window.Cacho.badge(data); refresh(); } });
    refresh();
  });
})();
