// neardup's page: upload progress and drag-and-drop, a passage's source shown beside the
// text, next/previous passage. Everything works without this script; it only makes the page
// quicker to use.
"use strict";

// Outline every piece of a passage (a passage cut by others is drawn in several pieces).
function neardupOutline(anchorId) {
  const pieces = document.querySelectorAll('a.frag[data-anchor="' + anchorId + '"]');
  pieces.forEach(function (a) { a.classList.add("active"); });
  return pieces;
}

function neardupClearOutline() {
  document.querySelectorAll("a.frag.active").forEach(function (a) { a.classList.remove("active"); });
}

function neardupShowSource(index, targetId) {
  const panes = document.querySelectorAll(".sources .pane.source");
  panes.forEach(function (pane) {
    const on = pane.dataset.source === String(index);
    pane.classList.toggle("shown", on);
    pane.classList.toggle("hidden", !on);
  });
  neardupClearOutline();
  if (!targetId) { return; }
  const anchor = document.getElementById(targetId);
  if (!anchor) { return; }
  neardupOutline(targetId);
  anchor.scrollIntoView({ block: "center" });
}

// The passages of the checked text in reading order, each once: next/previous go through them.
function neardupPassageNav() {
  const nav = document.getElementById("passnav");
  if (!nav) { return; }
  const seen = {};
  const order = [];
  document.querySelectorAll("#query a.frag").forEach(function (a) {
    const id = a.dataset.anchor;
    if (id && !seen[id]) { seen[id] = true; order.push(a); }
  });
  if (order.length === 0) { return; }
  nav.hidden = false;
  const at = document.getElementById("passage-at");
  let current = -1;
  function go(step) {
    current = (current + step + order.length) % order.length;
    const link = order[current];
    at.textContent = (current + 1) + " / " + order.length;
    link.click();
    neardupOutline(link.dataset.anchor);
    link.scrollIntoView({ block: "center" });
  }
  document.getElementById("next-passage").addEventListener("click", function () { go(1); });
  document.getElementById("prev-passage").addEventListener("click", function () { go(-1); });
  at.textContent = order.length + "";
}

// Drop a file on the check form: it goes into the form's file field (the field stays usable).
function neardupDropZone() {
  const zone = document.getElementById("drop");
  const input = document.getElementById("file");
  if (!zone || !input || !window.DataTransfer) { return; }
  const hint = document.getElementById("drop-hint");
  if (hint) { hint.hidden = false; }
  const form = zone.closest("form");
  ["dragenter", "dragover"].forEach(function (kind) {
    form.addEventListener(kind, function (event) {
      event.preventDefault();
      zone.classList.add("over");
    });
  });
  form.addEventListener("dragleave", function (event) {
    if (!form.contains(event.relatedTarget)) { zone.classList.remove("over"); }
  });
  form.addEventListener("drop", function (event) {
    event.preventDefault();
    zone.classList.remove("over");
    const files = event.dataTransfer && event.dataTransfer.files;
    if (!files || files.length === 0) { return; }
    const chosen = new DataTransfer();
    chosen.items.add(files[0]);
    input.files = chosen.files;
    if (hint) { hint.textContent = files[0].name; }
  });
}

// Whether a file chosen in the form is by itself over the limit (then the refusal speaks of
// the file, not of the text in the field).
function neardupFileTooLarge(form, limit) {
  let found = false;
  form.querySelectorAll("input[type=file]").forEach(function (input) {
    for (const file of input.files) { if (file.size > limit) { found = true; } }
  });
  return found;
}

// A file too large for one request is refused as soon as it is chosen, not after the upload.
function neardupFileLimit() {
  const limit = Number(document.body.dataset.maxBody || 0);
  if (limit <= 0) { return; }
  document.querySelectorAll("form.upload input[type=file]").forEach(function (input) {
    input.addEventListener("change", function () {
      if (neardupFileTooLarge(input.form, limit)) { neardupSay(document.body.dataset.tooLargeFile); }
    });
  });
}

// Dates in the reader's own form and time zone (the server wrote them in UTC as a fallback).
function neardupLocalDates() {
  const lang = document.documentElement.lang || undefined;
  document.querySelectorAll("time.local[datetime]").forEach(function (node) {
    const when = new Date(node.getAttribute("datetime"));
    if (isNaN(when.getTime())) { return; }
    try {
      node.textContent = when.toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
    } catch (e) { /* the UTC fallback stays */ }
  });
}

function neardupInit() {
  document.documentElement.classList.add("js");
  neardupLocalDates();
  neardupFileLimit();
  const panes = document.querySelectorAll(".sources .pane.source");
  if (panes.length > 0) { neardupShowSource(panes[0].dataset.source, null); }
  // a passage in the checked text: show its source and the passage in it
  document.querySelectorAll("#query a.frag").forEach(function (link) {
    link.addEventListener("click", function (event) {
      const target = link.getAttribute("href").slice(1);
      const match = /^b-(\d+)-/.exec(target);
      if (!match) { return; }
      event.preventDefault();
      neardupShowSource(match[1], target);
      neardupOutline(link.dataset.anchor);
    });
  });
  // a passage in a source: bring its place in the checked text into view
  document.querySelectorAll(".sources a.frag").forEach(function (link) {
    link.addEventListener("click", function (event) {
      const target = document.getElementById(link.getAttribute("href").slice(1));
      if (!target) { return; }
      event.preventDefault();
      neardupClearOutline();
      neardupOutline(link.dataset.anchor);
      neardupOutline(target.id);
      target.scrollIntoView({ block: "center" });
    });
  });
  document.querySelectorAll("a.source-link").forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      neardupShowSource(link.dataset.source, null);
    });
  });
  document.querySelectorAll("form.upload").forEach(function (form) {
    form.addEventListener("submit", function (event) { neardupSubmit(form, event); });
  });
  neardupDropZone();
  neardupPassageNav();
}

// An error shown at the top of the page, the form and what was typed in it left as they are.
function neardupSay(message) {
  let box = document.getElementById("error");
  if (!box) {
    box = document.createElement("p");
    box.id = "error";
    box.className = "error";
    box.setAttribute("role", "alert");
    const main = document.querySelector("main");
    main.insertBefore(box, main.firstChild);
  }
  box.textContent = document.body.dataset.error + ": " + message;
  box.scrollIntoView({ block: "center" });
}

// The bytes a form would send (its texts in UTF-8 and its files), to refuse before sending.
function neardupFormBytes(form) {
  let total = 0;
  form.querySelectorAll("textarea").forEach(function (area) {
    total += new Blob([area.value]).size;
  });
  form.querySelectorAll("input[type=file]").forEach(function (input) {
    for (const file of input.files) { total += file.size; }
  });
  return total;
}

// Send a form with XMLHttpRequest to show the upload's progress, then show the answer.
function neardupSubmit(form, event) {
  const limit = Number(document.body.dataset.maxBody || 0);
  if (limit > 0 && neardupFormBytes(form) > limit) {
    event.preventDefault();
    neardupSay(neardupFileTooLarge(form, limit) ? document.body.dataset.tooLargeFile
      : document.body.dataset.tooLarge);
    return;
  }
  if (!window.XMLHttpRequest || !window.DOMParser) { return; }
  event.preventDefault();
  const box = document.getElementById("progress");
  const bar = box.querySelector(".bar span");
  const label = box.querySelector("p");
  const body = document.body;
  box.hidden = false;
  bar.style.width = "0%";
  label.textContent = body.dataset.uploading;
  const xhr = new XMLHttpRequest();
  xhr.open("POST", form.getAttribute("action"));
  xhr.upload.addEventListener("progress", function (e) {
    if (e.lengthComputable) {
      const share = Math.round(100 * e.loaded / e.total);
      bar.style.width = share + "%";
      label.textContent = body.dataset.uploading + " " + share + " %";
    }
  });
  const ticket = neardupTicket();
  let following = null;
  xhr.upload.addEventListener("load", function () {
    bar.style.width = "0%";
    label.textContent = body.dataset.processing;
    if (form.getAttribute("action") === "/check") { following = neardupFollow(ticket, bar, label); }
  });
  xhr.addEventListener("loadend", function () { if (following) { clearInterval(following); } });
  xhr.addEventListener("load", function () {
    const type = xhr.getResponseHeader("content-type") || "";
    if (type.indexOf("text/html") < 0) {  // not a page: say its message, keep the form
      box.hidden = true;
      let message = xhr.statusText;
      try { message = JSON.parse(xhr.responseText).message || message; } catch (e) { /* as is */ }
      neardupSay(message);
      return;
    }
    const doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
    // a kept check answers with a redirect to its own page: show its address, so it can be
    // sent and Back works
    if (xhr.status < 400 && xhr.responseURL && xhr.responseURL !== window.location.href) {
      window.history.pushState({ neardup: true }, "", xhr.responseURL);
    }
    document.title = doc.title;
    document.body.replaceWith(document.adoptNode(doc.body));
    window.scrollTo(0, 0);
    neardupInit();
  });
  xhr.addEventListener("error", function () {
    box.hidden = true;
    neardupSay(document.body.dataset.networkError);
  });
  const data = new FormData(form);
  data.append("progress", ticket);
  xhr.send(data);
}

// A random ticket the server tells this check's stages by (GET /progress/TICKET).
function neardupTicket() {
  const bytes = new Uint8Array(16);
  window.crypto.getRandomValues(bytes);
  return Array.from(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
}

// While the server checks: the stage it has reached, step k of n, and the share of stages done.
function neardupFollow(ticket, bar, label) {
  const body = document.body;
  let stages = {};
  try { stages = JSON.parse(body.dataset.stages || "{}"); } catch (e) { /* names stay out */ }
  function ask() {
    fetch("/progress/" + ticket, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (p) {
        if (!p || !p.step) { return; }
        const share = Math.round(100 * (p.step - 1) / p.steps);
        bar.style.width = share + "%";
        label.textContent = body.dataset.processingShare
          .replace("{step}", p.step).replace("{steps}", p.steps).replace("{share}", share)
          .replace("{stage}", stages[p.stage] || "");
      })
      .catch(function () { /* the answer itself will say what went wrong */ });
  }
  ask();
  return setInterval(ask, 400);
}

// Back after a check made by the script: load the page of that address.
window.addEventListener("popstate", function () { window.location.reload(); });

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", neardupInit);
} else {
  neardupInit();
}
