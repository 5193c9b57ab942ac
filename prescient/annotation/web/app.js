// The annotation page (served by prescient.annotation.server; no external asset, works
// offline). Untrusted text (article, question, choices) is only ever inserted with
// textContent, never as HTML; the server's Content-Security-Policy forbids inline
// scripts as a second line of defence.
"use strict";
(function () {
  let state = null;        // {annotator, items, rubric, ratings}
  let saved = {};          // item_id -> scores, as confirmed by the server
  let drafts = {};         // item_id -> scores being edited (kept in this browser)
  let idx = 0;
  let focus = 0;
  let retryTimer = null;
  const $ = (id) => document.getElementById(id);
  const keys = () => state.rubric.principles.map((p) => p.key);
  const draftKey = () => "prescient:drafts:" + state.annotator;

  function readStore(key) {
    try { return JSON.parse(window.localStorage.getItem(key) || "{}") || {}; }
    catch (e) { return {}; }
  }
  function writeStore(key, value) {
    try { window.localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode */ }
  }
  function text(id, value) { $(id).textContent = value == null ? "" : String(value); }
  function current(itemId) { return drafts[itemId] || saved[itemId] || {}; }
  function complete(scores) { return keys().every((k) => scores[k] === 0 || scores[k] === 1 || scores[k] === 2); }
  function ratedCount() { return state.items.filter((it) => saved[it.item_id]).length; }
  function same(a, b) { return keys().every((k) => a[k] === b[k]); }

  function status(message, isError) {
    const s = $("save-status");
    s.textContent = message;
    s.classList.toggle("error", !!isError);
  }

  function renderProgress() {
    const n = state.items.length;
    const r = ratedCount();
    text("rated-count", r);
    text("total", n);
    $("progress").style.width = (n ? (100 * r) / n : 0) + "%";
    document.body.dataset.rated = String(r);
  }

  function buildForm() {
    const form = $("scores");
    form.textContent = "";
    text("scale", "Scale: " + state.rubric.scale);
    state.rubric.principles.forEach((p, i) => {
      const fs = document.createElement("fieldset");
      fs.id = "principle-" + p.key;
      const lg = document.createElement("legend");
      lg.textContent = (i + 1) + ". " + p.name;
      fs.appendChild(lg);
      const desc = document.createElement("p");
      desc.textContent = p.description;
      fs.appendChild(desc);
      const points = p.points || {};
      [0, 1, 2].forEach((v) => {
        const label = document.createElement("label");
        const input = document.createElement("input");
        input.type = "radio";
        input.name = "score-" + p.key;
        input.id = "score-" + p.key + "-" + v;
        input.value = String(v);
        input.addEventListener("change", () => { focus = i; setScore(p.key, v); });
        label.appendChild(input);
        const b = document.createElement("b");
        b.textContent = " " + v;
        label.appendChild(b);
        if (points[String(v)]) {
          const span = document.createElement("span");
          span.className = "anchor";
          span.textContent = " \u2014 " + points[String(v)];
          label.appendChild(span);
        }
        fs.appendChild(label);
      });
      (p.examples || []).forEach((ex) => {
        const exP = document.createElement("p");
        exP.className = "example";
        exP.textContent = "Example of 0 points: " + ex;
        fs.appendChild(exP);
      });
      fs.addEventListener("click", () => { focus = i; renderFocus(); });
      form.appendChild(fs);
    });
  }

  function renderFocus(scroll) {
    keys().forEach((k, i) => $("principle-" + k).classList.toggle("focus", i === focus));
    if (scroll) $("principle-" + keys()[focus]).scrollIntoView({ block: "nearest" });
  }

  function renderItem() {
    const item = state.items[idx];
    $("summary").hidden = true;
    $("item-view").hidden = false;
    text("position", idx + 1);
    text("item-id", item.item_id);
    text("qtype", item.qtype === "mc" ? "multiple choice" : "true/false");
    text("resolution-date", item.resolution_date);
    const art = item.article || {};
    text("article-title", art.title);
    text("article-date", art.date);
    text("article-source", art.source_domain || "");
    const a = $("article-url");
    if (typeof art.url === "string" && /^https?:\/\//i.test(art.url)) {
      a.href = art.url; a.textContent = "source";
    } else { a.removeAttribute("href"); a.textContent = ""; }
    text("article-text", art.text);
    text("question", item.question);
    const ol = $("choices");
    ol.textContent = "";
    if (item.qtype === "mc") {
      (item.choices || []).forEach((c) => {
        const li = document.createElement("li");
        li.textContent = c;
        if (c === item.answer) li.className = "answer";
        ol.appendChild(li);
      });
    }
    text("answer", item.answer);
    renderScores();
    renderProgress();
    $("back").disabled = idx === 0;
    $("next").disabled = false;
    $("article-text").scrollTop = 0;
  }

  function renderScores() {
    const item = state.items[idx];
    const s = current(item.item_id);
    keys().forEach((k) => {
      [0, 1, 2].forEach((v) => { $("score-" + k + "-" + v).checked = s[k] === v; });
      $("principle-" + k).classList.toggle("unset", !(k in s));
    });
    renderFocus();
  }

  function renderSummary() {
    $("item-view").hidden = true;
    $("summary").hidden = false;
    $("back").disabled = state.items.length === 0;
    $("next").disabled = true;
    const n = state.items.length;
    const r = ratedCount();
    text("summary-text", "You rated " + r + " of " + n + " items." +
      (r === n ? " All done: thank you. You can close this page." : ""));
    const tbody = $("summary-table").querySelector("tbody");
    tbody.textContent = "";
    state.rubric.principles.forEach((p) => {
      const counts = [0, 0, 0];
      state.items.forEach((it) => { const s = saved[it.item_id]; if (s) counts[s[p.key]] += 1; });
      const tr = document.createElement("tr");
      [p.name, counts[0], counts[1], counts[2]].forEach((v) => {
        const td = document.createElement("td"); td.textContent = String(v); tr.appendChild(td);
      });
      tbody.appendChild(tr);
    });
    const ul = $("unrated");
    ul.textContent = "";
    state.items.forEach((it, i) => {
      if (saved[it.item_id]) return;
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = "Item " + (i + 1) + ": " + it.question;
      b.addEventListener("click", () => { idx = i; focus = 0; renderItem(); });
      li.appendChild(b);
      ul.appendChild(li);
    });
    renderProgress();
  }

  function showingSummary() { return !$("summary").hidden; }

  async function post(itemId, scores) {
    const resp = await fetch("/api/rating", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ item_id: itemId, scores: scores }),
    });
    const body = await resp.json().catch(() => ({}));
    if (!resp.ok) throw new Error(body.error || ("HTTP " + resp.status));
    return body;
  }

  async function save(itemId, scores) {
    try {
      const body = await post(itemId, scores);
      saved[itemId] = Object.assign({}, scores);
      if (drafts[itemId] && same(drafts[itemId], scores)) delete drafts[itemId];
      writeStore(draftKey(), drafts);
      status("Saved item " + itemId + " at " + new Date(body.saved_at).toLocaleTimeString());
      if (showingSummary()) renderSummary(); else renderProgress();
      return true;
    } catch (e) {
      const offline = e instanceof TypeError;
      status((offline ? "Not saved: the server is unreachable. " : "Not saved: " + e.message + ". ")
        + "Your answer is kept in this browser and will be retried.", true);
      scheduleRetry();
      return false;
    }
  }

  function scheduleRetry() {
    if (retryTimer) return;
    retryTimer = window.setTimeout(() => { retryTimer = null; flushDrafts(); }, 3000);
  }

  async function flushDrafts() {
    for (const [itemId, scores] of Object.entries(drafts)) {
      if (!complete(scores)) continue;
      if (saved[itemId] && same(saved[itemId], scores)) { delete drafts[itemId]; continue; }
      if (!(await save(itemId, scores))) return;
    }
    writeStore(draftKey(), drafts);
  }

  function setScore(key, value) {
    const item = state.items[idx];
    const s = Object.assign({}, current(item.item_id));
    s[key] = value;
    drafts[item.item_id] = s;
    writeStore(draftKey(), drafts);
    const i = keys().indexOf(key);
    if (i === focus && focus < keys().length - 1) focus += 1;
    renderScores();
    if (complete(s)) save(item.item_id, s);
    else status("Item " + item.item_id + ": " + keys().filter((k) => !(k in s)).length + " principle(s) left");
  }

  function go(delta) {
    if (showingSummary()) {
      if (delta < 0) { idx = state.items.length - 1; renderItem(); }
      return;
    }
    const next = idx + delta;
    if (next >= state.items.length) { renderSummary(); return; }
    if (next < 0) return;
    idx = next;
    focus = 0;
    renderItem();
  }

  function onKey(ev) {
    if (!state || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const k = ev.key;
    let handled = true;
    if (showingSummary()) {
      if (k === "ArrowLeft" || k === "p") go(-1); else handled = false;
    } else if (k === "0" || k === "1" || k === "2") {
      setScore(keys()[focus], Number(k));
      renderFocus(true);
    } else if (k === "ArrowDown" || k === "j") {
      focus = Math.min(focus + 1, keys().length - 1); renderFocus(true);
    } else if (k === "ArrowUp" || k === "k") {
      focus = Math.max(focus - 1, 0); renderFocus(true);
    } else if (k === "ArrowRight" || k === "n" || k === "Enter") {
      go(1);
    } else if (k === "ArrowLeft" || k === "p") {
      go(-1);
    } else if (k === "s") {
      renderSummary();
    } else {
      handled = false;
    }
    if (handled) ev.preventDefault();
  }

  async function start() {
    const resp = await fetch("/api/state");
    if (!resp.ok) { status("Cannot load the packet: HTTP " + resp.status, true); return; }
    state = await resp.json();
    saved = state.ratings || {};
    drafts = readStore(draftKey());
    text("annotator", state.annotator);
    buildForm();
    $("back").addEventListener("click", () => go(-1));
    $("next").addEventListener("click", () => go(1));
    $("summary-btn").addEventListener("click", renderSummary);
    $("summary-back").addEventListener("click", () => go(-1));
    document.addEventListener("keydown", onKey, true);
    const first = state.items.findIndex((it) => !saved[it.item_id]);
    status(ratedCount() + " item(s) already rated; resuming.");
    document.body.dataset.ready = "1";
    if (first < 0 && state.items.length) { idx = state.items.length - 1; renderSummary(); }
    else { idx = Math.max(first, 0); renderItem(); }
    flushDrafts();
  }

  document.addEventListener("DOMContentLoaded", () => {
    start().catch((e) => status("Cannot start: " + e.message, true));
  });
})();
