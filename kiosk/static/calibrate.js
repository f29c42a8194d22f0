// Calibration: live preview, the seat markers found on a full frame, and seat zones drawn by hand.
"use strict";
(function () {
  const { api, h, t } = window.Cacho;
  const box = document.getElementById("calibrate");
  if (!box) return;
  const preview = document.getElementById("preview");
  const canvas = document.getElementById("zones");
  const ctx = canvas.getContext("2d");
  let config = JSON.parse(box.dataset.config || "{}");
  const zones = {};
  for (const seat of config.seats || []) if (seat.zone) zones[seat.seat] = seat.zone;
  let live = true;

  setInterval(() => { if (live) preview.src = "/camera/preview.jpg?t=" + Date.now(); }, 700);

  function drawZones() {
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    if (preview.complete && preview.naturalWidth) ctx.drawImage(preview, 0, 0, canvas.width, canvas.height);
    for (const [seat, zone] of Object.entries(zones)) {
      ctx.strokeStyle = "#00c8ff"; ctx.lineWidth = 3; ctx.beginPath();
      zone.forEach(([x, y], i) => (i ? ctx.lineTo(x * canvas.width, y * canvas.height) : ctx.moveTo(x * canvas.width, y * canvas.height)));
      ctx.closePath(); ctx.stroke();
      const [cx, cy] = zone[0];
      ctx.fillStyle = "#00c8ff"; ctx.font = "28px sans-serif"; ctx.fillText(seat, cx * canvas.width + 6, cy * canvas.height + 28);
    }
  }
  preview.addEventListener("load", drawZones);
  canvas.addEventListener("click", (e) => {
    const rect = canvas.getBoundingClientRect();
    const seat = document.getElementById("zone-seat").value;
    (zones[seat] = zones[seat] || []).push([(e.clientX - rect.left) / rect.width, (e.clientY - rect.top) / rect.height]);
    drawZones();
  });
  document.getElementById("zone-clear").addEventListener("click", () => { delete zones[document.getElementById("zone-seat").value]; drawZones(); });
  document.getElementById("zone-save").addEventListener("click", async () => {
    const seats = Object.entries(zones).filter(([, z]) => z.length >= 3).map(([s, z]) => ({ seat: Number(s), zone: z }));
    const body = { version: config.version || 1, mode: "auto", marker_mm: config.marker_mm || 50, seats: seats };
    const res = await api("/calibrate/zones", body);
    document.getElementById("markers-result").textContent = res.ok ? "Zonas guardadas" : res.data.error;
  });
  document.getElementById("find-markers").addEventListener("click", async () => {
    const seats = document.getElementById("seats").value.split(",").map((s) => Number(s.trim())).filter(Boolean);
    const out = document.getElementById("markers-result");
    out.textContent = "Buscando…";
    const res = await api("/calibrate/markers", { seats: seats });
    if (!res.ok) { out.textContent = res.data.error; return; }
    live = false;
    preview.src = res.data.image + "?t=" + Date.now();
    out.textContent = "Marcadores vistos: " + (res.data.markers.join(", ") || "ninguno") +
      (res.data.missing.length ? " · faltan: " + res.data.missing.join(", ") : " · todos") +
      (res.data.problems.length ? " · " + res.data.problems.map((p) => p.message).join("; ") : "") +
      " · " + describeTilt(res.data.tilt);
  });

  // Where the camera's vertical meets the frame, as the dice will be read from it (vision.seats.camera_tilt).
  function describeTilt(tilt) {
    if (!tilt) return t("nadir: el centro de la imagen (hacen falta 2 marcadores que lo digan)");
    return t("cámara inclinada") + " " + tilt.tilt_deg.toFixed(1) + "°, " + t("altura") + " " + Math.round(tilt.height_mm / 10) +
      " cm, " + t("lente de") + " " + Math.round(tilt.hfov_deg) + "° (" + t("nadir medido con") + " " + tilt.markers + " " + t("marcadores") + ")";
  }
})();
