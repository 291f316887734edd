// veracity's page. Every text from the server or the user is put in the page with
// textContent or text nodes, never as markup. Offsets from the server count Unicode code
// points (Python), so texts are cut with Array.from, not String.slice (UTF-16).
"use strict";

const $ = (id) => document.getElementById(id);
const MARKS = { supported: "✓", contradicted: "≠", unsupported: "✗", invalid_citation: "!", citation_attached: "+",
  uncited: "?", not_factual: "·", error: "⚠" };

// Characters that change what a text shows without being seen: bidi controls (U+202E shows
// "TERCES" as "SECRET"), zero-width and other format characters, fillers. They are shown as
// visible marks, never applied, so that the reader sees what the verifier read.
const INVISIBLE = /[\p{Cf}\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0]/u;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, "gu");

function codePoint(ch) {
  return "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
}

// A text as nodes: its invisible characters as marks ("⟨U+202E⟩"), the rest as text.
function shown(text) {
  const fragment = document.createDocumentFragment();
  let at = 0;
  for (const match of text.matchAll(INVISIBLE_ALL)) {
    if (match.index > at) fragment.append(document.createTextNode(text.slice(at, match.index)));
    const mark = document.createElement("span");
    mark.className = "invisible";
    mark.title = "invisible character " + codePoint(match[0]) + ", shown, not applied";
    mark.textContent = "⟨" + codePoint(match[0]) + "⟩";
    fragment.append(mark);
    at = match.index + match[0].length;
  }
  if (at < text.length) fragment.append(document.createTextNode(text.slice(at)));
  return fragment;
}

function showText(node, text) {
  node.replaceChildren(shown(text));
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    node.append(typeof child === "string" ? shown(child) : child);
  }
  return node;
}

function cut(text, start, end) {
  return Array.from(text).slice(start, end).join("");
}

function headers(accept = "text/event-stream") {
  const h = { "Content-Type": "application/json", "Accept": accept };
  const token = $("token").value.trim();
  if (token) h["Authorization"] = "Bearer " + token;
  return h;
}

function errorText(body, status) {
  if (status === 401) {
    $("token-box").hidden = false;
    $("token").focus();
    return $("token").value.trim()
      ? "the token is not this server's: type the right one in the Token box at the top of the page, then try again"
      : "this server needs its token: type it in the Token box at the top of the page, then try again";
  }
  const error = body && body.error;
  return error ? error.message : "the server answered " + status;
}

// A view's status line: a message, red only while it reports an error.
function setStatus(id, text, isError = false) {
  $(id).textContent = text;
  $(id).className = isError ? "error" : "";
}

// POST a JSON body and call onEvent(name, data) for each Server-Sent Event.
async function postStream(url, body, onEvent) {
  const response = await fetch(url, { method: "POST", headers: headers(), body: JSON.stringify(body) });
  if (!response.ok) await readJSON(response);  // throws with the server's message
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

async function readJSON(response) {
  let payload = null;
  try { payload = await response.json(); } catch (e) { /* not JSON */ }
  if (!response.ok) throw new Error(errorText(payload, response.status));
  return payload;
}

async function getJSON(url) {
  const h = headers("application/json");
  delete h["Content-Type"];
  return readJSON(await fetch(url, { headers: h }));
}

async function postJSON(url, body) {
  return readJSON(await fetch(url, { method: "POST", headers: headers("application/json"),
                                     body: JSON.stringify(body) }));
}

// --- the cited document ------------------------------------------------------------------
// How a document is named where titles may repeat: its title and its id (a path-free name).
function docName(title, id) {
  return title && title !== id ? title + " (" + id + ")" : id;
}

// The most characters marked for one citation: a sentence of a 48,000-character line is not
// highlighted whole.
const MOST_MARKED = 400;

function wordsOf(text) {
  return text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) || [];
}

// The spans to highlight in a passage [start, end) of `text`: the verifier's evidence, cut to
// the passage and in order (the whole passage when the verifier named none); with the `claim`
// it supports, only the sentence of that evidence that shares the most words with the claim
// (the verifier reads a window of several), at most MOST_MARKED characters around the first of
// them.
function highlights(where, text = null, claim = null) {
  const spans = (where.evidence || [])
    .map(([a, b]) => [Math.max(a, where.start), Math.min(b, where.end)])
    .filter(([a, b]) => a < b)
    .sort((x, y) => x[0] - y[0]);
  const read = spans.length ? spans : [[where.start, where.end]];
  if (!claim || text === null) return read;
  const words = new Set(wordsOf(claim));
  const chars = Array.from(text);
  let best = null;
  for (const [a, b] of read) {
    const piece = chars.slice(a, b).join("");
    for (const m of piece.matchAll(/[^.!?\n]+[.!?]*/gu)) {
      const lead = m[0].length - m[0].trimStart().length;
      const start = a + Array.from(piece.slice(0, m.index + lead)).length;
      const sentence = m[0].trim();
      const score = new Set(wordsOf(sentence).filter((w) => words.has(w))).size;
      if (sentence && (best === null || score > best.score)) {
        best = { start, end: start + Array.from(sentence).length, score, sentence };
      }
    }
  }
  if (best === null || best.score === 0) return read;
  if (best.end - best.start <= MOST_MARKED) return [[best.start, best.end]];
  // the window of MOST_MARKED characters that holds the most of the claim's words
  const letters = Array.from(best.sentence);
  const found = [];
  for (const m of best.sentence.toLowerCase().matchAll(/[\p{L}\p{N}]{3,}/gu)) {
    if (words.has(m[0])) found.push([Array.from(best.sentence.slice(0, m.index)).length, m[0]]);
  }
  let from = 0;
  let most = -1;
  for (const [at] of found) {
    const start = Math.max(0, Math.min(at - 100, letters.length - MOST_MARKED));
    const inside = new Set(found.filter(([i]) => i >= start && i < start + MOST_MARKED).map(([, w]) => w));
    if (inside.size > most) [from, most] = [start, inside.size];
  }
  return [[best.start + from, best.start + from + MOST_MARKED]];
}

// Show the passage `where` ({doc_id, title, section, page, page_end, start, end, evidence}) in
// its document: the passage shaded (#cited), the sentences that support the claim marked.
// `pasted` holds the texts of the request `where` comes from when it was checked against
// pasted sources (ids text-1, ...); otherwise the document is the index's.
async function showDocument(where, pasted = null, claim = null) {
  let text;
  let title;
  const parts = [];
  const local = /^text-(\d+)$/.exec(where.doc_id);
  if (pasted && local) {
    text = pasted[Number(local[1]) - 1] || "";
    title = "pasted source " + local[1];
  } else {
    const doc = await getJSON("/v1/documents/" + encodeURIComponent(where.doc_id));
    text = doc.text;
    title = doc.title || doc.id;
    parts.push("document " + doc.id);  // titles may repeat; ids do not
  }
  const panel = $("document");
  showText($("doc-title"), title);
  if (where.section && where.section.length) parts.push("section: " + where.section.join(" › "));
  if (where.page !== null && where.page !== undefined) {
    parts.push("page " + where.page + (where.page_end && where.page_end !== where.page ? "–" + where.page_end : ""));
  }
  parts.push("characters " + where.start + "–" + where.end);
  showText($("doc-where"), parts.join(" · "));
  const pre = $("doc-text");
  pre.replaceChildren();
  const passage = el("span", { id: "cited", class: "passage-in-document", tabindex: "-1" });
  let at = where.start;
  for (const [a, b] of highlights(where, text, claim)) {
    if (a < at) continue;
    passage.append(shown(cut(text, at, a)), el("mark", {}, cut(text, a, b)));
    at = b;
  }
  passage.append(shown(cut(text, at, where.end)));
  pre.append(shown(cut(text, 0, where.start)), passage,
             shown(cut(text, where.end)));
  panel.hidden = false;
  // Scroll the document's text, not the page: its title and place stay in view above it.
  panel.scrollIntoView({ block: "nearest" });
  const first = passage.querySelector("mark");
  const offset = first.getBoundingClientRect().top - pre.getBoundingClientRect().top;
  pre.scrollTop += offset - Math.max(0, (pre.clientHeight - first.offsetHeight) / 2);
  passage.focus({ preventScroll: true });
}

function openButton(where, label, pasted = null, claim = null) {
  const button = el("button", { type: "button", class: "marker" }, label);
  button.addEventListener("click", () => {
    showDocument(where, pasted, claim).catch((e) => { $("doc-where").textContent = e.message; });
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
    node.append(shown(cut(s.text, at, start)));
    const button = openButton(c, cut(s.text, start, end), null, s.text);
    button.setAttribute("aria-label", "citation " + c.marker + ": " + (c.title || c.doc_id));
    node.append(button);
    at = end;
  }
  node.append(shown(cut(s.text, at)));
  for (const c of s.citations.filter((c) => !c.span)) {
    const button = openButton(c, "+[" + c.marker + "]", null, s.text);
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
  setStatus("ask-status", "answering…");
  $("ask-button").disabled = true;
  const started = performance.now();
  try {
    await postStream("/v1/ask/stream", { question }, (name, data) => {
      if (name === "sentence") answer.append(sentenceNode(data));
      else if (name === "answer") {
        answer.replaceChildren();
        if (data.status !== "answered") answer.append(shown(data.text));
        for (const s of data.sentences) answer.append(sentenceNode(s));
        const why = data.abstention && data.abstention.abstain ? " (abstained: " + data.abstention.reason + ")" : "";
        setStatus("ask-status", data.status + why + " in " + ((performance.now() - started) / 1000).toFixed(1) + " s");
      } else if (name === "error") throw new Error(errorText(data, "an error"));
    });
  } catch (e) {
    failed("ask-status", e);
  } finally {
    $("ask-button").disabled = false;
  }
}

// --- verify ------------------------------------------------------------------------------
function passageNode(j, against, pasted, claim = null) {
  const box = el("div", { class: "passage" + (against ? " against" : "") });
  const score = against ? "P(contradicted) " + j.contradicted.toFixed(2) : "P(supported) " + j.supported.toFixed(2);
  const name = pasted && /^text-\d+$/.test(j.doc_id) ? "pasted source " + j.doc_id.slice(5) : docName(j.title, j.doc_id);
  box.append(el("p", {}, (against ? "contradicts: " : "supports: ") + name + " · " + score));
  box.append(el("p", {}, j.text));
  box.append(openButton(j, "show in the document", pasted, claim));
  return box;
}

function showClaim(claim, pasted) {
  const detail = $("claim-detail");
  detail.replaceChildren(el("h3", {}, claim.label + ": " + claim.text));
  const unsupported = claim.unsupported_spans || [];
  if (unsupported.length) {
    const line = el("p", { class: "unsupported-words" }, "not supported by its passages: ");
    unsupported.forEach((u, i) => {
      if (i) line.append(document.createTextNode(", "));
      line.append(el("mark", { class: "unsupported-span" }, u.text));
    });
    detail.append(line);
  }
  for (const layer of claim.layers) {
    if (layer.detail) detail.append(el("p", {}, layer.layer + ": " + layer.detail));
  }
  if (!claim.citations.length && !claim.anti_citations.length) {
    detail.append(el("p", {}, "no passage supports or contradicts it"));
  }
  for (const j of claim.citations) detail.append(passageNode(j, false, pasted, claim.text));
  for (const j of claim.anti_citations) detail.append(passageNode(j, true, pasted, claim.text));
  detail.focus();
}

const ORDER = ["contradicted", "error", "unsupported", "supported"];

// The parts of sentence `s` that a span detector found unsupported ([start, end) into s.text,
// in order, overlaps joined): the claims' unsupported_spans index the answer.
function unsupportedParts(s) {
  const base = s.span[0];
  const parts = s.claims.flatMap((c) => c.unsupported_spans || [])
    .map((u) => [u.start - base, u.end - base])
    .filter(([a, b]) => a < b)
    .sort((x, y) => x[0] - y[0]);
  const joined = [];
  for (const [a, b] of parts) {
    const last = joined[joined.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else joined.push([a, b]);
  }
  return joined;
}

const NOT_CHECKABLE = ["fragment", "vague", "unreadable"];

function verifiedSentence(s, pasted) {
  const worst = s.claims.map((c) => c.label).sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b))[0];
  const node = el("span", { class: "sentence" + (worst ? " verdict-" + worst : "") });
  if (s.skipped) {
    // fragment, vague, unreadable: veracity.types.NOT_CHECKABLE
    const why = NOT_CHECKABLE.includes(s.skipped.reason) ? "not checkable" : "skipped";
    node.title = why + " (" + s.skipped.reason + ")";
  }
  let at = 0;
  for (const [a, b] of unsupportedParts(s)) {
    node.append(shown(cut(s.text, at, a)),
                el("mark", { class: "unsupported-span", title: "no passage supports these words" },
                   cut(s.text, a, b)));
    at = b;
  }
  node.append(shown(cut(s.text, at)));
  $("verified").append(node, document.createTextNode(" "));
  for (const claim of s.claims) {
    const button = el("button", { type: "button", class: "claim verdict-" + claim.label,
                                  dataset: { label: claim.label } },
                      claim.label + " · " + claim.text);
    button.addEventListener("click", () => showClaim(claim, pasted));
    $("claims").append(el("li", {}, button));
  }
}

// --- what an answer is checked against (one fieldset, moved into the verify or repair form) --
let documentsLoaded = false;

async function loadDocuments() {
  if (documentsLoaded) return;
  const pick = $("doc-pick");
  pick.replaceChildren(el("p", {}, "loading the documents…"));
  try {
    const listed = await getJSON("/v1/documents");
    pick.replaceChildren();
    for (const doc of listed.documents) {
      const box = el("input", { type: "checkbox", value: doc.id });
      pick.append(el("label", {}, box, " " + docName(doc.title, doc.id) + ", " + doc.chars + " characters"));
    }
    if (!listed.documents.length) pick.append(el("p", {}, "this index holds no documents"));
    documentsLoaded = true;
  } catch (e) {
    pick.replaceChildren(el("p", { class: "error" }, "could not list the documents: " + e.message));
  }
}

function showAgainst() {
  const against = document.querySelector("input[name=against]:checked").value;
  $("verify-sources").hidden = against !== "pasted";
  $("doc-pick").hidden = against !== "picked";
  if (against === "picked") loadDocuments();
}

// The sources part of a verify or repair request; throws when the choice is incomplete.
function againstBody() {
  const against = document.querySelector("input[name=against]:checked").value;
  if (against === "pasted") {
    const pasted = $("verify-sources").value.split(/^\s*---\s*$/m).map((s) => s.trim()).filter(Boolean);
    if (!pasted.length) throw new Error("paste at least one source, or check against the server's documents");
    return { sources: pasted };
  }
  if (against === "picked") {
    const ids = Array.from($("doc-pick").querySelectorAll("input:checked")).map((box) => box.value);
    if (!ids.length) throw new Error("pick at least one document, or check against all of them");
    return { doc_ids: ids };
  }
  return {};
}

function failed(status, e) {
  setStatus(status, "error: " + e.message, true);
}

async function verify(event) {
  event.preventDefault();
  let body;
  try {
    body = { answer: $("verify-answer").value, ...againstBody() };
  } catch (e) {
    failed("verify-status", e);
    return;
  }
  $("verified").replaceChildren();
  $("claims").replaceChildren();
  $("claim-detail").replaceChildren();
  setStatus("verify-status", "verifying…");
  $("verify-button").disabled = true;
  const pasted = body.sources || null;
  try {
    await postStream("/v1/verify/stream", body, (name, data) => {
      if (name === "sentence") verifiedSentence(data, pasted);
      else if (name === "report") {
        const s = data.summary;
        setStatus("verify-status", s.claims + " claims: " + s.supported + " supported, " +
          s.contradicted + " contradicted, " + s.unsupported + " unsupported, " + s.skipped + " sentences skipped");
      } else if (name === "error") throw new Error(errorText(data, "an error"));
    });
  } catch (e) {
    failed("verify-status", e);
  } finally {
    $("verify-button").disabled = false;
  }
}

// --- repair ------------------------------------------------------------------------------
// The original answer with each edit shown in place: what was removed struck through (<del>),
// what was put in underlined (<ins>); a flagged claim outlined. Spans index the original.
function diffNode(result) {
  const pieces = result.edits.map((e) => ({ start: e.original[0], end: e.original[1], edit: e }));
  for (const c of result.claims) {
    if (c.action === "flagged" && c.claim.span) {
      pieces.push({ start: c.claim.span[0], end: c.claim.span[1], flagged: c });
    }
  }
  pieces.sort((a, b) => a.start - b.start || (a.edit ? -1 : 1));
  const node = el("p", {});
  let at = 0;
  for (const piece of pieces) {
    if (piece.start < at) continue;
    node.append(shown(cut(result.original, at, piece.start)));
    if (piece.edit) {
      const e = piece.edit;
      if (e.before) node.append(el("del", { title: e.kind + ": " + e.reason }, e.before));
      if (e.after) node.append(el("ins", { title: e.kind + ": " + e.reason }, e.after));
    } else {
      node.append(el("span", { class: "flagged", title: "flagged: " + piece.flagged.reason },
                     cut(result.original, piece.start, piece.end)));
    }
    at = piece.end;
  }
  node.append(shown(cut(result.original, at)));
  return node;
}

function showRepairedClaim(c, pasted) {
  const detail = $("edit-detail");
  detail.replaceChildren(el("h3", {}, c.action + ": " + c.claim.text));
  detail.append(el("p", {}, c.reason));
  if (c.edit) detail.append(el("p", {}, "“" + c.edit.before + "” → “" + c.edit.after + "” (" + c.edit.method + ")"));
  if (c.proposed) detail.append(el("p", {}, "proposed and not applied: " + c.proposed));
  if (c.failure) detail.append(el("p", { class: "error" }, c.failure));
  if (c.questions.length) detail.append(el("p", {}, "researched with: " + c.questions.join(" · ")));
  for (const j of c.supporting) detail.append(passageNode(j, false, pasted, c.claim.text));
  for (const j of c.contradicting) detail.append(passageNode(j, true, pasted, c.claim.text));
  detail.focus();
}

function percent(share) {
  return share === null ? "—" : (100 * share).toFixed(0) + "%";
}

async function repair(event) {
  event.preventDefault();
  let body;
  try {
    body = { answer: $("repair-answer").value, policy: $("repair-policy").value, ...againstBody() };
  } catch (e) {
    failed("repair-status", e);
    return;
  }
  for (const id of ["repaired", "edits", "edit-detail"]) $(id).replaceChildren();
  $("repaired-text").textContent = "";
  repairedText = "";
  $("copy-status").textContent = "";
  $("repaired-result").hidden = true;
  setStatus("repair-status", "repairing…");
  $("repair-button").disabled = true;
  const pasted = body.sources || null;
  try {
    const result = await postJSON("/v1/repair", body);
    $("repaired").append(diffNode(result));
    repairedText = result.text;
    showText($("repaired-text"), result.text);
    $("repaired-result").hidden = false;
    for (const c of result.claims) {
      const button = el("button", { type: "button", class: "claim action-" + c.action,
                                    dataset: { action: c.action } },
                        c.action + " · " + c.claim.text);
      button.addEventListener("click", () => showRepairedClaim(c, pasted));
      $("edits").append(el("li", {}, button));
    }
    const s = result.summary;
    const before = result.attribution_before;
    const after = result.attribution_after;
    const notes = result.notes.length ? " · " + result.notes.join(" · ") : "";
    setStatus("repair-status", (result.refused ? "refused" : s.edits + (s.edits === 1 ? " edit" : " edits")) + ": " +
      s.revised + " revised, " + s.deleted + " deleted, " + s.flagged + " flagged, " + s.kept +
      " kept · supported before " + percent(before.share) + ", after " + percent(after.share) + notes);
  } catch (e) {
    failed("repair-status", e);
  } finally {
    $("repair-button").disabled = false;
  }
}

// Copy the repaired answer: the clipboard where the browser allows it, else the text selected
// for the reader to copy.
let repairedText = "";  // the repaired answer as written (the page shows its marks)

async function copyRepaired() {
  const text = repairedText;
  try {
    await navigator.clipboard.writeText(text);
    $("copy-status").textContent = "copied";
  } catch (e) {
    const range = document.createRange();
    range.selectNodeContents($("repaired-text"));
    window.getSelection().removeAllRanges();
    window.getSelection().addRange(range);
    $("copy-status").textContent = "selected: press Ctrl+C (⌘C) to copy";
  }
}

// --- views -------------------------------------------------------------------------------
function showView(name) {
  for (const view of ["ask", "verify", "repair"]) {
    $("view-" + view).hidden = view !== name;
    $("tab-" + view).setAttribute("aria-pressed", String(view === name));
  }
  const slot = document.querySelector("#view-" + name + " .sources-slot");
  if (slot) slot.append($("against"));
}

document.addEventListener("DOMContentLoaded", () => {
  $("ask-form").addEventListener("submit", ask);
  $("verify-form").addEventListener("submit", verify);
  $("repair-form").addEventListener("submit", repair);
  for (const view of ["ask", "verify", "repair"]) {
    $("tab-" + view).addEventListener("click", () => showView(view));
  }
  $("copy-repaired").addEventListener("click", copyRepaired);
  $("doc-close").addEventListener("click", () => { $("document").hidden = true; });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") $("document").hidden = true; });
  for (const radio of document.querySelectorAll("input[name=against]")) {
    radio.addEventListener("change", showAgainst);
  }
  fetch("/v1/health").then((r) => r.json()).then((h) => { $("token-box").hidden = !h.auth; }).catch(() => {});
});
