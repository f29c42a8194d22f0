// Shared by every page: fetch with the CSRF token, live updates (SSE), the camera badge, a DOM helper.
"use strict";
window.Cacho = (function () {
  const token = () => document.querySelector('meta[name="csrf-token"]').content;

  // POST (or METHOD) JSON; never throws: a kiosk that does not answer comes back as status 0 with its error.
  async function api(url, body, method) {
    let res;
    try {
      res = await fetch(url, {
        method: method || "POST",
        headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": token() },
        body: body === undefined ? "{}" : JSON.stringify(body),
        credentials: "same-origin",
      });
    } catch (e) {
      offline(true);
      return { ok: false, status: 0, data: { error: t("El kiosco no responde: revise que esté encendido y vuelva a intentarlo") } };
    }
    let data = null;
    try { data = await res.json(); } catch (e) { data = { error: "respuesta inesperada del kiosco (" + res.status + ")" }; }
    return { ok: res.ok, status: res.status, data: data };
  }

  async function get(url) {
    const res = await fetch(url, { headers: { "Accept": "application/json" }, credentials: "same-origin" });
    return res.json();
  }

  // h("button", {class: "big", onclick: f}, "text", child...) -> element (text is never parsed as HTML)
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(el.dataset, v);
      else if (v === true) el.setAttribute(k, "");
      else el.setAttribute(k, v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return el;
  }

  // A stream the kiosk refuses (503: as many live pages as it serves are open) is closed by the browser for good:
  // this page asks again every 15 s, and redraws each time meanwhile.
  function listen(topics, onMessage) {
    let source = null;
    let stopped = false;
    function open() {
      source = new EventSource("/events?topics=" + encodeURIComponent(topics.join(",")));
      for (const topic of topics) source.addEventListener(topic, (e) => onMessage(topic, JSON.parse(e.data)));
      source.onerror = () => {
        document.body.dataset.stream = "closed";
        offline(true);
        if (source.readyState === EventSource.CLOSED && !stopped) setTimeout(() => { if (!stopped) { onMessage("retry", {}); open(); } }, 15000);
      };
      // data-stream on <body>: "open" once the live stream is up (what the end-to-end tests wait for), else "closed".
      source.onopen = () => { document.body.dataset.stream = "open"; offline(false); onMessage("open", {}); };
    }
    open();
    return () => { stopped = true; if (source) source.close(); };
  }

  function badge(health) {
    const el = document.getElementById("camera-badge");
    if (!el || !health) return;
    el.dataset.state = health.state;
    const age = health.age_s === null ? "—" : num(health.age_s, 1) + " s";
    const label = { ok: t("Cámara"), error: t("Cámara: error"), none: t("Sin cámara"), starting: t("Cámara…") }[health.state] || health.state;
    el.textContent = label + (health.state === "ok" ? " · " + num(health.fps, 1) + " fps · " + age : "");
    el.title = health.message + (health.reader ? " · " + t("lector") + ": " + readerState(health.reader) : "");
    // Which models folder reads the dice (the stock one, or one adapted to the table's dice): a tap teaches more.
    const models = document.getElementById("models-badge");
    if (models && health.models !== undefined && health.reader !== "none") {
      models.hidden = false;
      models.dataset.models = health.models;
      models.dataset.state = health.reader === "error" ? "error" : (health.models === "stock" ? "none" : "ok");
      models.textContent = t("Dados") + ": " + modelsName(health.models);
      models.title = health.models;
    }
  }

  // The kiosk does not answer (stopped, restarting, out of the network): the header and the camera badge say so,
  // as nothing the camera shows reaches this page; the next answer puts them back.
  function offline(on) {
    document.body.classList.toggle("offline", on);
    const el = document.getElementById("camera-badge");
    if (on && el) {
      el.dataset.state = "offline";
      el.textContent = t("Sin conexión con el kiosco");
    }
  }

  async function pollBadge() {
    try { badge(await get("/camera/health")); offline(false); } catch (e) { offline(true); }
  }
  document.addEventListener("DOMContentLoaded", () => { pollBadge(); setInterval(pollBadge, 3000); });

  // One table's page (BASE: "/dudo/3", "/bolivia/5"), drawn from BASE/state.json and kept live:
  // show(state, sent) draws a state (sent: the answer to one of this page's own changes); seq() is the event
  // number on screen. Several refreshes can be under way at once (one per live event) and answers can come back
  // out of order: one asked before the state on screen (a newer refresh's, or a tap's answer) is stale and is
  // not drawn.
  function tablePage(base, tv, show, seq) {
    let asked = 0;
    let drawn = 0;

    function showError(message) {
      const el = document.getElementById("error");
      if (!el) return;
      el.textContent = message || "";
      el.hidden = !message;
    }

    async function refresh() {
      const mine = ++asked;
      let fresh;
      try { fresh = await get(base + "/state.json" + (tv ? "?view=tv" : "")); } catch (e) { offline(true); return; }
      if (mine <= drawn) return;
      drawn = mine;
      await show(fresh, false);
    }

    // POST a change with the event number on screen; a refusal is shown (and a stale page redrawn). One at a time:
    // a tap while a change is under way (a double tap) is dropped, not sent with the same, soon stale, number.
    let sending = false;
    async function send(path, body) {
      if (sending) return false;
      sending = true;
      try { return await post(path, body); } finally { sending = false; }
    }

    async function post(path, body) {
      const before = asked;
      const res = await api(base + path, Object.assign({ seq: seq() }, body || {}));
      if (!res.ok) {
        showError(res.data.error || "error");
        if (res.status === 409 || res.status === 400) await refresh();
        return false;
      }
      showError("");
      if (res.data && res.data.seq !== undefined) { drawn = Math.max(drawn, before); await show(res.data, true); }
      return true;
    }

    // Redraw on every change of the table or the camera, from now on.
    function follow(id) {
      listen(["table:" + id, "camera"], (topic, data) => {
        if (topic === "camera") badge(data);
        refresh();
      });
      refresh();
    }

    return { refresh, send, showError, follow };
  }

  // The page's language: the Spanish text is the key; English where kiosk/i18n.py has it.
  function t(text) {
    return (window.CACHO_LANG === "en" && window.CACHO_EN && window.CACHO_EN[text]) || text;
  }

  // A number with `digits` decimals as the page's language writes it (13,3 in Spanish, 13.3 in English).
  function num(value, digits) {
    return value.toLocaleString(window.CACHO_LANG === "en" ? "en-US" : "es-CL", { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
  }

  // A share (0.92) as the page's language writes a percentage: «92 %» in Spanish, «92%» in English.
  function percent(share) {
    return new Intl.NumberFormat(window.CACHO_LANG === "en" ? "en-US" : "es", { style: "percent", maximumFractionDigits: 0 }).format(share);
  }

  // «1 carta», «3 cartas»: the count and the form its plural rule takes in the page's language (`one`, `other`
  // already in that language).
  function count(n, one, other) {
    const rule = new Intl.PluralRules(window.CACHO_LANG === "en" ? "en-US" : "es").select(n);
    return n + " " + (rule === "one" ? one : other);
  }

  // A time stamp (ISO 8601, UTC) as people read it, in the browser's time zone: «desde las 22:06» today, «desde el
  // 1 de diciembre, 22:06» another day (since 22:06, since December 1, 22:06 in English); the text itself if no date.
  function since(stamp) {
    const when = new Date(stamp);
    if (!stamp || isNaN(when)) return stamp || "";
    const locale = window.CACHO_LANG === "en" ? "en-US" : "es";
    const time = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(when);
    if (when.toDateString() === new Date().toDateString()) return t("desde las") + " " + time;
    return t("desde el") + " " + new Intl.DateTimeFormat(locale, { day: "numeric", month: "long" }).format(when) + ", " + time;
  }
  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("[data-since]").forEach((el) => { el.textContent = since(el.dataset.since); });
  });

  // A models folder as a coordinator reads it: «de fábrica», or for a folder named by when it was adapted
  // (20261201-220906, the kiosk's clock) «adaptado hoy, 22:09» or «adaptado el 1 de diciembre, 22:09»; any
  // other name as it is.
  function modelsName(name) {
    if (name === "stock") return t("de fábrica");
    const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/.exec(name || "");
    if (!m) return name || "";
    const when = new Date(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
    const locale = window.CACHO_LANG === "en" ? "en-US" : "es";
    const time = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(when);
    if (when.toDateString() === new Date().toDateString()) return t("adaptado hoy") + ", " + time;
    return t("adaptado el") + " " + new Intl.DateTimeFormat(locale, { day: "numeric", month: "long" }).format(when) + ", " + time;
  }

  // What the reader is doing, in words (the health's loading | ready | error | none).
  const READER_STATES = { loading: "cargando", ready: "listo", error: "con error", none: "sin lector" };
  function readerState(state) {
    return READER_STATES[state] ? t(READER_STATES[state]) : state;
  }

  // A form's own checks (a field left empty, a number out of range) said in the page's language, not the
  // browser's: Chromium answers in its own («Please fill out this field.») whatever the page's language.
  function validityText(field) {
    const v = field.validity;
    if (v.valueMissing) return t("Complete este campo.");
    if (v.rangeUnderflow) return t("El valor debe ser al menos") + " " + field.min + ".";
    if (v.rangeOverflow) return t("El valor debe ser como mucho") + " " + field.max + ".";
    if (v.stepMismatch || v.badInput) return t("Escriba un número entero.");
    if (v.typeMismatch || v.patternMismatch) return t("El valor no tiene la forma pedida.");
    if (v.tooShort) return t("Es demasiado corto.");
    return "";
  }
  document.addEventListener("invalid", (e) => {
    const field = e.target;
    if (!field.setCustomValidity) return;
    field.setCustomValidity("");
    if (!field.validity.valid) field.setCustomValidity(validityText(field));
  }, true);
  document.addEventListener("input", (e) => { if (e.target.setCustomValidity) e.target.setCustomValidity(""); }, true);

  // A card as the picker shows it, rank and suit symbol ("5♥"), from its code ("5H"); "?" for none.
  const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  function cardName(code) {
    if (!code) return "?";
    const suit = SUIT_SYMBOLS[code.slice(-1)];
    return suit ? code.slice(0, -1) + suit : code;
  }

  // A reader's text with every card code in it written as cardName writes it ("dice 3S" -> "dice 3♠").
  function cardsIn(text) {
    return String(text).replace(/\b(10|[2-9AJQK])([SHDC])\b/g, (_, rank, suit) => rank + SUIT_SYMBOLS[suit]);
  }

  return { api, get, h, listen, badge, t, num, percent, count, since, modelsName, tablePage, cardName, cardsIn };
})();
