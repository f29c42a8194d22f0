// New Dudo table: the opener list follows the players typed; the one-die roll-off of art. 3.
(function () {
  const players = document.getElementById("players");
  const opener = document.getElementById("opener");
  const box = document.getElementById("sorteo-box");
  const rollsBox = document.getElementById("sorteo-rolls");
  const result = document.getElementById("sorteo-result");
  const hidden = document.getElementById("sorteo");
  const t = window.Cacho.t;
  let rolls = [];
  let throwers = [];  // who throws in each round
  let status = "";  // where the roll-off stands, as last shown

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
    rolls = []; throwers = []; status = ""; hidden.value = ""; box.hidden = true; opener.disabled = false;
    rollsBox.innerHTML = ""; result.textContent = "";
  }
  function newRound(who) {
    const round = {};
    rolls.push(round);
    throwers.push(who);
    const div = document.createElement("div");
    div.className = "sorteo-round";
    const title = document.createElement("p");
    title.textContent = t("Tirada") + " " + rolls.length + ": " + who.join(", ");
    div.appendChild(title);
    for (const name of who) {
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
          settle();
        });
        row.appendChild(b);
      }
      div.appendChild(row);
    }
    rollsBox.appendChild(div);
  }
  // Every throw, a correction of an earlier one too, settles the roll-off again from its first round (art. 3):
  // a later round stays only while the tie that called it stands; the form always carries the throws on screen.
  function settle() {
    opener.disabled = false;
    result.textContent = "";
    for (let i = 0; i < rolls.length; i++) {
      const round = rolls[i];
      const who = throwers[i];
      if (who.some((n) => round[n] === undefined)) break;
      const best = Math.max(...who.map((n) => round[n]));
      const top = who.filter((n) => round[n] === best);
      if (top.length === 1) {
        dropAfter(i);
        opener.value = top[0]; opener.disabled = true;
        result.textContent = t("Parte") + " " + top[0] + " (art. 3)";
        break;
      }
      result.textContent = t("Empate: relanzan") + " " + top.join(", ");
      if (i + 1 < rolls.length && throwers[i + 1].join("\n") === top.join("\n")) continue;
      dropAfter(i);
      newRound(top);
      break;
    }
    hidden.value = JSON.stringify(rolls);
    status = result.textContent;
  }
  function dropAfter(index) {
    while (rolls.length > index + 1) {
      rolls.pop(); throwers.pop();
      rollsBox.lastElementChild.remove();
    }
  }
  function decided() {
    return opener.disabled;
  }
  document.getElementById("start-sorteo").addEventListener("click", () => {
    resetSorteo();
    box.hidden = false;
    if (names().length < 2) { result.textContent = t("Hacen falta al menos 2 jugadores"); return; }
    newRound(names());
  });
  document.getElementById("check-markers").addEventListener("click", async () => {
    // The seats in play are 1..N in the players' clockwise order: each needs its marker in view.
    const out = document.getElementById("markers-result");
    const seats = names().map((_, i) => i + 1);
    out.textContent = t("Buscando marcadores…");
    const res = await window.Cacho.api("/calibrate/markers", { seats: seats });
    if (!res.ok) { out.textContent = res.data.error; return; }
    const who = (seat) => seat + " (" + (names()[seat - 1] || t("sin jugador")) + ")";
    out.textContent = t("Marcadores vistos") + ": " + (res.data.markers.map(who).join(", ") || t("ninguno")) +
      (res.data.missing.length ? " · " + t("FALTAN") + ": " + res.data.missing.map(who).join(", ") : " · " + t("están todos"));
  });
  document.getElementById("new-table").addEventListener("submit", (e) => {
    if (rolls.length && !decided()) {  // a roll-off begun and not settled: its throws do not name who opens yet
      e.preventDefault();
      result.textContent = t("Falta terminar el sorteo") + (status ? ": " + status : "");
      result.scrollIntoView({ block: "center" });
      return;
    }
    opener.disabled = false;
  });
})();
