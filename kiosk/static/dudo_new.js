// New Dudo table: the opener list follows the players typed; the one-die roll-off of art. 3.
(function () {
  const players = document.getElementById("players");
  const opener = document.getElementById("opener");
  const box = document.getElementById("sorteo-box");
  const rollsBox = document.getElementById("sorteo-rolls");
  const result = document.getElementById("sorteo-result");
  const hidden = document.getElementById("sorteo");
  let rolls = [];
  let contenders = [];

  function names() {
    return players.value.split("\n").map((s) => s.trim()).filter(Boolean);
  }
  function refreshOpener() {
    const keep = opener.value;
    opener.innerHTML = "";
    for (const name of names()) {
      const o = document.createElement("option");
      o.value = o.textContent = name;
      opener.appendChild(o);
    }
    if (names().includes(keep)) opener.value = keep;
  }
  players.addEventListener("input", () => { refreshOpener(); resetSorteo(); });
  refreshOpener();

  function resetSorteo() {
    rolls = []; contenders = []; hidden.value = ""; box.hidden = true; opener.disabled = false;
    rollsBox.innerHTML = ""; result.textContent = "";
  }
  function newRound() {
    const round = {};
    rolls.push(round);
    const div = document.createElement("div");
    div.className = "sorteo-round";
    const title = document.createElement("p");
    title.textContent = "Tirada " + rolls.length + ": " + contenders.join(", ");
    div.appendChild(title);
    for (const name of contenders) {
      const row = document.createElement("div");
      row.className = "row";
      const label = document.createElement("span");
      label.className = "who"; label.textContent = name;
      row.appendChild(label);
      for (let f = 1; f <= 6; f++) {
        const b = document.createElement("button");
        b.type = "button"; b.className = "face"; b.textContent = f;
        b.dataset.player = name; b.dataset.face = f;
        b.setAttribute("aria-label", name + " " + f);
        b.addEventListener("click", () => {
          round[name] = f;
          row.querySelectorAll("button").forEach((x) => x.classList.toggle("chosen", x === b));
          check(round);
        });
        row.appendChild(b);
      }
      div.appendChild(row);
    }
    rollsBox.appendChild(div);
  }
  function check(round) {
    if (Object.keys(round).length < contenders.length) return;
    const best = Math.max(...Object.values(round));
    const top = contenders.filter((n) => round[n] === best);
    if (top.length === 1) {
      hidden.value = JSON.stringify(rolls);
      opener.value = top[0]; opener.disabled = true;
      result.textContent = "Parte " + top[0] + " (art. 3)";
    } else if (rolls[rolls.length - 1] === round) {
      contenders = top;
      result.textContent = "Empate: relanzan " + top.join(", ");
      newRound();
    }
  }
  document.getElementById("start-sorteo").addEventListener("click", () => {
    resetSorteo();
    contenders = names();
    if (contenders.length < 2) { result.textContent = "Hacen falta al menos 2 jugadores"; box.hidden = false; return; }
    box.hidden = false;
    newRound();
  });
  document.getElementById("check-markers").addEventListener("click", async () => {
    // The seats in play are 1..N in the players' clockwise order: each needs its marker in view.
    const out = document.getElementById("markers-result");
    const seats = names().map((_, i) => i + 1);
    out.textContent = "Buscando marcadores…";
    const res = await window.Cacho.api("/calibrate/markers", { seats: seats });
    if (!res.ok) { out.textContent = res.data.error; return; }
    const who = (seat) => seat + " (" + (names()[seat - 1] || "sin jugador") + ")";
    out.textContent = "Marcadores vistos: " + (res.data.markers.map(who).join(", ") || "ninguno") +
      (res.data.missing.length ? " · FALTAN: " + res.data.missing.map(who).join(", ") : " · están todos");
  });
  document.getElementById("new-table").addEventListener("submit", () => { opener.disabled = false; });
})();
