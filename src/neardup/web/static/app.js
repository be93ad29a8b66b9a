// neardup's page: upload progress, and a passage's source shown beside the text.
// Everything works without this script; it only makes the page quicker to read.
"use strict";

function neardupShowSource(index, targetId) {
  const panes = document.querySelectorAll(".sources .pane.source");
  panes.forEach(function (pane) {
    const on = pane.dataset.source === String(index);
    pane.classList.toggle("shown", on);
    pane.classList.toggle("hidden", !on);
  });
  document.querySelectorAll("a.frag.active").forEach(function (a) { a.classList.remove("active"); });
  if (!targetId) { return; }
  const anchor = document.getElementById(targetId);
  if (!anchor) { return; }
  const frag = anchor.nextElementSibling;
  if (frag) { frag.classList.add("active"); }
  anchor.scrollIntoView({ block: "center" });
}

function neardupInit() {
  document.documentElement.classList.add("js");
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
      link.classList.add("active");
    });
  });
  // a passage in a source: bring its place in the checked text into view
  document.querySelectorAll(".sources a.frag").forEach(function (link) {
    link.addEventListener("click", function (event) {
      const target = document.getElementById(link.getAttribute("href").slice(1));
      if (!target) { return; }
      event.preventDefault();
      document.querySelectorAll("a.frag.active").forEach(function (a) { a.classList.remove("active"); });
      link.classList.add("active");
      if (target.nextElementSibling) { target.nextElementSibling.classList.add("active"); }
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
    neardupSay(document.body.dataset.tooLarge);
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
  xhr.upload.addEventListener("load", function () {
    bar.style.width = "100%";
    label.textContent = body.dataset.processing;
  });
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
    document.title = doc.title;
    document.body.replaceWith(document.adoptNode(doc.body));
    window.scrollTo(0, 0);
    neardupInit();
  });
  xhr.addEventListener("error", function () {
    label.textContent = "network error";
  });
  xhr.send(new FormData(form));
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", neardupInit);
} else {
  neardupInit();
}
