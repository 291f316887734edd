"""Check examples/questions.jsonl against the sample corpus.

Standard library plus pypdf only. Run from anywhere:

    python examples/check_questions.py            # exit status 0 when everything holds
    python examples/check_questions.py -v         # also list every question

For each question it checks:

* the record has the expected fields and types, and ids are unique;
* an answerable question has an answer, at least one doc_id and evidence;
  an unanswerable one has answer null, doc_ids [] and evidence null;
* every doc_id resolves: a path relative to sample_corpus/, or the id of a
  line in a *.jsonl file there;
* the evidence (and each entry of the optional evidence_by_doc map) occurs
  verbatim in the named document's text:
    - .md / .txt: the raw file text, exactly;
    - .html: the text with tags stripped and entities unescaped, whitespace collapsed;
    - .pdf: the text pypdf extracts, whitespace collapsed (line wrapping is layout);
    - JSONL line: the line's "text" field, exactly;
* the optional must_not_appear strings occur nowhere in the corpus
  (case-insensitive), a guard for questions that must stay unanswerable.

It also reports the corpus make-up (documents by format, words per document)
and the question breakdown.
"""

from __future__ import annotations

import argparse
import collections
import html
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "sample_corpus"
QUESTIONS = HERE / "questions.jsonl"

REQUIRED = {"id": str, "question": str, "answerable": bool, "doc_ids": list}


def collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


class _TextOnly(HTMLParser):
    """Collect text nodes, skipping <head>-only content except the <title>."""

    BLOCK: ClassVar[set[str]] = {
        "p",
        "li",
        "h1",
        "h2",
        "h3",
        "h4",
        "title",
        "ul",
        "ol",
        "div",
        "br",
        "tr",
        "td",
    }

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_text(raw: str) -> str:
    parser = _TextOnly()
    parser.feed(raw)
    return html.unescape("".join(parser.parts))


def pdf_text(path: Path) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(str(path)).pages)


def load_corpus() -> tuple[dict[str, tuple[str, str]], collections.Counter[str]]:
    """Map doc_id -> (format, text). JSONL lines are keyed by their id."""
    docs: dict[str, tuple[str, str]] = {}
    formats: collections.Counter[str] = collections.Counter()
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(CORPUS).as_posix()
        ext = path.suffix.lower().lstrip(".")
        if ext in ("md", "txt"):
            docs[rel] = (ext, path.read_text(encoding="utf-8"))
        elif ext == "html":
            docs[rel] = (ext, html_text(path.read_text(encoding="utf-8")))
        elif ext == "pdf":
            docs[rel] = (ext, pdf_text(path))
        elif ext == "jsonl":
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                rec = json.loads(line)
                for key in ("id", "title", "text", "metadata"):
                    if key not in rec:
                        raise SystemExit(f"{rel}:{n}: missing {key!r}")
                bad = {k: v for k, v in rec["metadata"].items() if isinstance(v, (dict, list))}
                if bad:
                    raise SystemExit(f"{rel}:{n}: metadata must be flat, got {bad}")
                if rec["id"] in docs:
                    raise SystemExit(f"{rel}:{n}: duplicate id {rec['id']!r}")
                docs[rec["id"]] = ("jsonl", rec["text"])
                formats["jsonl line"] += 1
            formats["jsonl file"] += 1
            continue
        else:
            raise SystemExit(f"unexpected file in corpus: {rel}")
        formats[ext] += 1
    return docs, formats


def contains(fmt: str, text: str, evidence: str) -> bool:
    if fmt in ("md", "txt", "jsonl"):
        return evidence in text
    return collapse(evidence) in collapse(text)  # html, pdf


def check(verbose: bool) -> int:
    docs, formats = load_corpus()
    errors: list[str] = []
    kinds: collections.Counter[str] = collections.Counter()
    ids: set[str] = set()
    lowered = "\n".join(t for _, t in docs.values()).lower()
    lines = [ln for ln in QUESTIONS.read_text(encoding="utf-8").splitlines() if ln.strip()]

    for n, line in enumerate(lines, 1):
        try:
            q = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {n}: not JSON ({exc})")
            continue
        qid = q.get("id", f"line {n}")
        for key, typ in REQUIRED.items():
            if not isinstance(q.get(key), typ):
                errors.append(f"{qid}: field {key!r} missing or not {typ.__name__}")
        for key in ("answer", "evidence"):
            if key not in q:
                errors.append(f"{qid}: field {key!r} missing")
        if qid in ids:
            errors.append(f"{qid}: duplicate id")
        ids.add(qid)
        kinds[q.get("kind", "unlabelled")] += 1

        if q.get("answerable"):
            if not q.get("answer") or not q.get("doc_ids") or not q.get("evidence"):
                errors.append(f"{qid}: answerable but answer/doc_ids/evidence empty")
                continue
            pairs = [(q["doc_ids"][0], q["evidence"])]
            by_doc = q.get("evidence_by_doc") or {}
            if by_doc and set(by_doc) != set(q["doc_ids"]):
                errors.append(f"{qid}: evidence_by_doc keys differ from doc_ids")
            pairs += list(by_doc.items())
            for doc_id, ev in pairs:
                if doc_id not in docs:
                    errors.append(f"{qid}: unknown doc_id {doc_id!r}")
                    continue
                fmt, text = docs[doc_id]
                if not contains(fmt, text, ev):
                    errors.append(f"{qid}: evidence not found in {doc_id}: {ev[:70]!r}")
            if verbose:
                print(f"  ok  {qid} [{q.get('kind')}] {', '.join(q['doc_ids'])}")
        else:
            if q.get("answer") is not None or q.get("doc_ids") or q.get("evidence") is not None:
                errors.append(f"{qid}: unanswerable but has answer/doc_ids/evidence")
            if verbose:
                print(f"  ok  {qid} [{q.get('kind')}] (no answer in corpus)")
        for phrase in q.get("must_not_appear") or []:
            if phrase.lower() in lowered:
                errors.append(f"{qid}: {phrase!r} appears in the corpus")

    words = {d: len(t.split()) for d, (_, t) in docs.items()}
    n_docs = len(docs)
    n_files = sum(v for k, v in formats.items() if k != "jsonl line")
    answerable = sum(1 for ln in lines if json.loads(ln).get("answerable") is True)
    print(f"corpus: {n_docs} documents in {n_files} files")
    print("  by format: " + ", ".join(f"{k} {v}" for k, v in sorted(formats.items())))
    print(
        f"  words per document: min {min(words.values())}, max {max(words.values())}, "
        f"total {sum(words.values())}"
    )
    print(f"questions: {len(lines)} ({answerable} answerable, {len(lines) - answerable} not)")
    print("  by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    if errors:
        print(f"FAILED: {len(errors)} problem(s)")
        for e in errors:
            print("  -", e)
        return 1
    print("OK: every evidence string was found in its document")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description="Check questions.jsonl against the sample corpus.")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every question")
    return check(ap.parse_args().verbose)


if __name__ == "__main__":
    sys.exit(main())
