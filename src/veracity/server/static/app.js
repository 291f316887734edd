// veracity's page. Every text from the server or the user is put in the page with
// textContent or text nodes, never as markup. Offsets from the server count Unicode code
// points (Python), so texts are cut with Array.from, not String.slice (UTF-16).
"use strict";

const $ = (id) => document.getElementById(id);
const MARKS = { supported: "✓", unsupported: "✗", invalid_citation: "!", citation_attached: "+",
  uncited: "?", not_factual: "·", error: "⚠" };
let pastedSources = [];

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

function cut(text, start, end) {
  return Array.from(text).slice(start, end).join("");
}

function headers() {
  const h = { "Content-Type": "application/json", "Accept": "text/event-stream" };
  const token = $("token").value.trim();
  if (token) h["Authorization"] = "Bearer " + token;
  return h;
}

function errorText(body, status) {
  const error = body && body.error;
  return error ? error.message : "the server answered " + status;
}

// POST a JSON body and call onEvent(name, data) for each Server-Sent Event.
async function postStream(url, body, onEvent) {
  const response = await fetch(url, { method: "POST", headers: headers(), body: JSON.stringify(body) });
  if (!response.ok) {
    let payload = null;
    try { payload = await response.json(); } catch (e) { /* not JSON */ }
    throw new Error(errorText(payload, response.status));
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut_at;
    while ((cut_at = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut_at);
      buffer = buffer.slice(cut_at + 2);
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) onEvent(event, JSON.parse(data.join("\n")));
    }
  }
}

async function getJSON(url) {
  const h = headers();
  delete h["Content-Type"];
  h["Accept"] = "application/json";
  const response = await fetch(url, { headers: h });
  const payload = await response.json();
  if (!response.ok) throw new Error(errorText(payload, response.status));
  return payload;
}

// --- the cited document ------------------------------------------------------------------
async function showDocument(where) {
  // where: {doc_id, title, section, page, page_end, start, end}
  let text;
  let title = where.title || where.doc_id;
  const local = /^text-(\d+)$/.exec(where.doc_id);
  if (local && pastedSources.length) {
    text = pastedSources[Number(local[1]) - 1] || "";
  } else {
    const doc = await getJSON("/v1/documents/" + encodeURIComponent(where.doc_id));
    text = doc.text;
    title = doc.title || doc.id;
  }
  const panel = $("document");
  $("doc-title").textContent = title;
  const parts = [];
  if (where.section && where.section.length) parts.push("section: " + where.section.join(" › "));
  if (where.page !== null && where.page !== undefined) {
    parts.push("page " + where.page + (where.page_end && where.page_end !== where.page ? "–" + where.page_end : ""));
  }
  parts.push("characters " + where.start + "–" + where.end);
  $("doc-where").textContent = parts.join(" · ");
  const pre = $("doc-text");
  pre.replaceChildren();
  const mark = el("mark", { id: "cited", tabindex: "-1" }, cut(text, where.start, where.end));
  pre.append(document.createTextNode(cut(text, 0, where.start)), mark,
             document.createTextNode(cut(text, where.end)));
  panel.hidden = false;
  mark.scrollIntoView({ block: "center" });
  mark.focus({ preventScroll: true });
}

function openButton(where, label) {
  const button = el("button", { type: "button", class: "marker" }, label);
  button.addEventListener("click", () => {
    showDocument(where).catch((e) => { $("doc-where").textContent = e.message; });
  });
  return button;
}

// --- ask ---------------------------------------------------------------------------------
function sentenceNode(s) {
  const node = el("span", { class: "sentence status-" + s.status, dataset: { index: s.index } });
  const base = s.span[0];
  const written = s.citations.filter((c) => c.span).sort((a, b) => a.span[0] - b.span[0]);
  let at = 0;
  for (const c of written) {
    const start = c.span[0] - base;
    const end = c.span[1] - base;
    if (start < at) continue;
    node.append(document.createTextNode(cut(s.text, at, start)));
    const button = openButton(c, cut(s.text, start, end));
    button.setAttribute("aria-label", "citation " + c.marker + ": " + (c.title || c.doc_id));
    node.append(button);
    at = end;
  }
  node.append(document.createTextNode(cut(s.text, at)));
  for (const c of s.citations.filter((c) => !c.span)) {
    const button = openButton(c, "+[" + c.marker + "]");
    button.setAttribute("aria-label", "citation attached by the verifier: " + (c.title || c.doc_id));
    node.append(button);
  }
  const mark = el("span", { class: "mark", title: s.status.replace("_", " ") }, MARKS[s.status] || "");
  node.append(mark, document.createTextNode(" "));
  return node;
}

async function ask(event) {
  event.preventDefault();
  const question = $("question").value;
  const answer = $("answer");
  answer.replaceChildren();
  $("ask-status").textContent = "answering…";
  $("ask-button").disabled = true;
  const started = performance.now();
  try {
    await postStream("/v1/ask/stream", { question }, (name, data) => {
      if (name === "sentence") answer.append(sentenceNode(data));
      else if (name === "answer") {
        answer.replaceChildren();
        if (data.status !== "answered") answer.append(document.createTextNode(data.text));
        for (const s of data.sentences) answer.append(sentenceNode(s));
        const why = data.abstention && data.abstention.abstain ? " (abstained: " + data.abstention.reason + ")" : "";
        $("ask-status").textContent = data.status + why + " in " + ((performance.now() - started) / 1000).toFixed(1) + " s";
      } else if (name === "error") throw new Error(errorText(data, "an error"));
    });
  } catch (e) {
    $("ask-status").textContent = "error: " + e.message;
    $("ask-status").className = "error";
  } finally {
    $("ask-button").disabled = false;
  }
}

// --- verify ------------------------------------------------------------------------------
function passageNode(j, against) {
  const box = el("div", { class: "passage" + (against ? " against" : "") });
  const score = against ? "P(contradicted) " + j.contradicted.toFixed(2) : "P(supported) " + j.supported.toFixed(2);
  box.append(el("p", {}, (against ? "contradicts: " : "supports: ") + (j.title || j.doc_id) + " · " + score));
  box.append(el("p", {}, j.text));
  box.append(openButton(j, "show in the document"));
  return box;
}

function showClaim(claim) {
  const detail = $("claim-detail");
  detail.replaceChildren(el("h3", {}, claim.label + ": " + claim.text));
  for (const layer of claim.layers) {
    if (layer.detail) detail.append(el("p", {}, layer.layer + ": " + layer.detail));
  }
  if (!claim.citations.length && !claim.anti_citations.length) {
    detail.append(el("p", {}, "no passage supports or contradicts it"));
  }
  for (const j of claim.citations) detail.append(passageNode(j, false));
  for (const j of claim.anti_citations) detail.append(passageNode(j, true));
  detail.focus();
}

const ORDER = ["contradicted", "error", "unsupported", "supported"];

function verifiedSentence(s) {
  const worst = s.claims.map((c) => c.label).sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b))[0];
  const node = el("span", { class: "sentence" + (worst ? " verdict-" + worst : "") }, s.text);
  $("verified").append(node, document.createTextNode(" "));
  for (const claim of s.claims) {
    const button = el("button", { type: "button", class: "claim verdict-" + claim.label,
                                  dataset: { label: claim.label } },
                      claim.label + " · " + claim.text);
    button.addEventListener("click", () => showClaim(claim));
    $("claims").append(el("li", {}, button));
  }
}

async function verify(event) {
  event.preventDefault();
  const pasted = document.querySelector("input[name=against]:checked").value === "pasted";
  pastedSources = pasted ? $("verify-sources").value.split(/^\s*---\s*$/m).map((s) => s.trim()).filter(Boolean) : [];
  const body = { answer: $("verify-answer").value };
  if (pasted) body.sources = pastedSources;
  $("verified").replaceChildren();
  $("claims").replaceChildren();
  $("claim-detail").replaceChildren();
  $("verify-status").textContent = "verifying…";
  $("verify-status").className = "";
  $("verify-button").disabled = true;
  try {
    await postStream("/v1/verify/stream", body, (name, data) => {
      if (name === "sentence") verifiedSentence(data);
      else if (name === "report") {
        const s = data.summary;
        $("verify-status").textContent = s.claims + " claims: " + s.supported + " supported, " +
          s.contradicted + " contradicted, " + s.unsupported + " unsupported, " + s.skipped + " sentences skipped";
      } else if (name === "error") throw new Error(errorText(data, "an error"));
    });
  } catch (e) {
    $("verify-status").textContent = "error: " + e.message;
    $("verify-status").className = "error";
  } finally {
    $("verify-button").disabled = false;
  }
}

// --- views -------------------------------------------------------------------------------
function showView(name) {
  for (const view of ["ask", "verify"]) {
    $("view-" + view).hidden = view !== name;
    $("tab-" + view).setAttribute("aria-pressed", String(view === name));
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("ask-form").addEventListener("submit", ask);
  $("verify-form").addEventListener("submit", verify);
  $("tab-ask").addEventListener("click", () => showView("ask"));
  $("tab-verify").addEventListener("click", () => showView("verify"));
  $("doc-close").addEventListener("click", () => { $("document").hidden = true; });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") $("document").hidden = true; });
  for (const radio of document.querySelectorAll("input[name=against]")) {
    radio.addEventListener("change", () => {
      $("verify-sources").hidden = document.querySelector("input[name=against]:checked").value !== "pasted";
    });
  }
  fetch("/v1/health").then((r) => r.json()).then((h) => { $("token-box").hidden = !h.auth; }).catch(() => {});
});
