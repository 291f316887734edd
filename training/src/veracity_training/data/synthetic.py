"""Synthetic claims from raw Wikipedia articles (MiniCheck-style multi-sentence reasoning).

The premise is a window of 1-3 consecutive paragraphs of one article (at most ~500 words).

Multi-sentence claims (``multi_sentence`` supported / ``multi_sentence_removed`` neither): 2-3
sentences of the window are lightly rewritten (sentence-initial pronouns resolved to the article's
subject, parentheticals and some appositives or trailing clauses dropped, a few synonyms) and
fused into one claim. The negative pairs the same claim with the window minus exactly one of the
sentences used, checked to carry a name, number or word found nowhere else in the window.
``compression`` (supported) is one sentence with a clause dropped.

Perturbations of one sentence of the window: ``entity_swap``, ``number_change`` and
``negation`` (contradicted); ``other_article`` (neither: a similar sentence from another article);
``added_clause`` (neither: a true sentence plus a clause taken from another article - the
partially supported case); ``paraphrase_edit`` (supported: date format, coordination order,
fronted phrase moved, synonym, parenthetical dropped).
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from veracity.text.verbs import AUXILIARIES
from veracity_training.data.articles import (
    MAX_SENTENCE_WORDS,
    MIN_SENTENCE_WORDS,
    Article,
    Window,
    make_windows,
)
from veracity_training.data.perturb import (
    change_number,
    compress,
    drop_discourse_marker,
    front_to_back,
    negate,
    paraphrase,
    passive_to_active,
    swap_entity,
    synonym,
)
from veracity_training.data.schema import DataLabel, Row
from veracity_training.data.sources import digest
from veracity_training.data.text import (
    FUNCTION_WORDS,
    capitalise_first,
    content_tokens,
    drop_parentheticals,
    ensure_period,
    entities,
    novel_tokens,
    word_count,
)

__all__ = ["build_wikipedia", "fuse", "resolve"]

_EXTRAPOSED = re.compile(r"^It (?:is|was|has been|had been) (?:\w+ )?\w+ (?:that|to|whether|if)\b")
_UNRESOLVABLE = re.compile(
    r"^(They|Their|Them|This|These|That|Those|Such|Both|The latter|The former|Another|Other|"
    r"Here|There|Some|Many|Most|One of|Each|All|We|I|You|Our|My)\b"
)


_BROKEN = re.compile(
    r"\s[,.;:]|\(\s*[;,]|\b(?:in|on|at|of|from|to|by|and|the|a|an|was|is)\s*[,.;:)]|\$ \)|\(\s*\)"
    # a measurement lost in the dump: "located approximately north of"
    r"|\b(?:approximately|about|roughly|around)\s+(?:north|south|east|west|northeast|"
    r"northwest|southeast|southwest)\b"
)


_FRONTED_PRONOUN = re.compile(
    r"^((?:In|On|At|During|After|Before|By|From|Since|Following|Upon|Later|Then|Eventually)\b"
    r"[^,]{0,60}, )(?=(?:he|she|it|his|her|its)\b)"
)


def resolve(sentence: str, article: Article, previous: str | None, *, name: str = "") -> str | None:
    """The sentence with an initial He/She/It/His/Her/Its replaced by the article's subject (or
    ``name``), or ``None`` when its first word refers to something the sentence alone cannot
    name, or when the sentence lost words in the dump ("In , he was promoted")."""
    if _UNRESOLVABLE.match(sentence) or _EXTRAPOSED.match(sentence) or _BROKEN.search(sentence):
        return None
    fronted = _FRONTED_PRONOUN.match(sentence)
    if fronted:
        # "In 1994, he ran ..." -> resolve the pronoun after the fronted phrase the same way.
        lead = fronted.group(1)
        rest = resolve(capitalise_first(sentence[len(lead) :]), article, previous, name=name)
        if rest is None:
            return None
        return lead + (rest if rest[:1].isupper() and rest.split(" ", 1)[0] != "The" else
                       rest[0].lower() + rest[1:])  # fmt: skip
    first = sentence.split(" ", 1)[0]
    pronoun = article.pronoun
    subject = name or article.subject
    if first in {"He", "She", "His", "Her", "It", "Its"}:
        base = {"His": "He", "Her": "She", "Its": "It"}.get(first, first).lower()
        if base != pronoun:
            return None
        surname = article.subject.split()[-1]
        if previous is not None and not (
            surname in previous or previous.split(" ", 1)[0] in {"He", "She", "It", "His", "Her"}
        ):
            return None
        replacement = subject if first in {"He", "She", "It"} else f"{subject}'s"
        if first == "Her" and re.match(r"Her \w+ (?:is|was|were|are)\b", sentence) is None:
            return None  # "Her" could be an object pronoun in odd sentences; keep it simple
        return replacement + sentence[len(first) :]
    return sentence


@dataclass(frozen=True)
class _Part:
    """One sentence of the window, rewritten for use inside a claim."""

    key: tuple[int, int]
    original: str
    text: str


def _parts(window: Window, rng: random.Random) -> list[_Part]:
    out: list[_Part] = []
    name = window.article.name_in(window.text())
    for p, s, sentence in window.sentences():
        previous = window.article.paragraphs[p][s - 1] if s > 0 else None
        resolved = resolve(sentence, window.article, previous, name=name)
        if resolved is None or "?" in resolved or ": " in resolved or resolved.count('"') % 2:
            continue
        text = compress(drop_discourse_marker(resolved), rng)
        if re.match(r"(?:He|She|It|They|His|Her|Its|Their)\b", text):
            continue
        # Light rewording, so that a claim is rarely a verbatim copy of the premise.
        if rng.random() < 0.6:
            text = passive_to_active(text) or text
        if rng.random() < 0.4:
            text = front_to_back(text) or text
        if rng.random() < 0.4:
            text = synonym(text, rng) or text
        n = word_count(text)
        if MIN_SENTENCE_WORDS <= n <= MAX_SENTENCE_WORDS and text[-1:] in ".!":
            out.append(_Part((p, s), sentence, text))
    return out


def _strip_end(text: str) -> str:
    return text.rstrip().rstrip(".!").rstrip()


def _lower_start(text: str, lower_words: frozenset[str]) -> str:
    """Lower-case the first word when it is a common word (the article writes it in lower case
    elsewhere), so that it can follow a comma: "Yeast enzymes" -> "yeast enzymes"."""
    first = text.split(" ", 1)[0]
    if first.lower() in lower_words or first.lower() in FUNCTION_WORDS:
        return first.lower() + text[len(first) :]
    return text


def fuse(
    parts: list[str],
    subject: str,
    rng: random.Random,
    lower_words: frozenset[str] = frozenset(),
) -> str:
    """Join 2-3 sentences into one claim.

    Sentences that start with the subject share it ("X was born in Y and moved to Z"); one of them
    may become a relative clause ("X, who was born in Y, moved to Z"); other sentences are joined
    with ", and" or a semicolon.
    """
    bodies = [_strip_end(p) for p in parts]
    prefix = f"{subject} "
    same = bool(subject) and all(b.startswith(prefix) for b in bodies)
    if same:
        predicates = [b[len(prefix) :] for b in bodies]
        relative_ok = (
            len(predicates) == 2
            and "," not in predicates[1]
            and predicates[1].split(" ", 1)[0] in AUXILIARIES
            and word_count(predicates[1]) <= 12
        )
        if relative_ok and rng.random() < 0.4:
            who = "who" if subject[:1].isupper() and " " in subject else "which"
            return ensure_period(f"{subject}, {who} {predicates[1]}, {predicates[0]}")
        if len(predicates) == 2:
            return ensure_period(f"{subject} {predicates[0]} and {predicates[1]}")
        return ensure_period(f"{subject} {', '.join(predicates[:-1])}, and {predicates[-1]}")
    out = bodies[0]
    for body in bodies[1:]:
        joiner = rng.choice([", and ", "; ", ", and ", ", while "])
        if joiner == ", while " and not body.startswith(prefix):
            joiner = ", and "
        out += joiner + _lower_start(body, lower_words)
    return ensure_period(out)


def _names_of(window: Window) -> set[str]:
    return {name for _, _, t in window.sentences() for _, _, name in entities(t)}


@dataclass
class _Bank:
    """Sentences and clauses of every article, for the negatives that borrow from elsewhere."""

    sentences: list[tuple[str, str]]  # (doc_id, sentence)
    index: dict[str, list[int]]
    idf: dict[str, float]
    clauses: dict[tuple[str, str], list[tuple[str, str]]]  # (pronoun, category) -> (doc, vp)
    category: dict[str, str]  # doc_id -> category


_CLAUSE = re.compile(r"^(He|She|It) ((?:was|is|had|has|later|also|then|became|won|moved|joined"
                     r"|served|received|played|returned|died|married|released|published|founded"
                     r"|opened|closed|built|sold|bought|appeared|signed|worked|left|led|lost)\b"
                     r"[^;:]*?)\.$")  # fmt: skip


def _bank(articles: list[Article]) -> _Bank:
    rows: list[tuple[str, str]] = []
    clauses: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for article in articles:
        category = (article.pronoun, article.category)
        for paragraph in article.paragraphs:
            for s, sentence in enumerate(paragraph):
                previous = paragraph[s - 1] if s else None
                resolved = resolve(sentence, article, previous)
                n = word_count(sentence)
                if resolved and 8 <= n <= 30 and resolved[-1:] == ".":
                    rows.append((article.doc_id, drop_parentheticals(resolved)))
                plain = drop_parentheticals(sentence)
                match = _CLAUSE.match(plain)
                if match and not _EXTRAPOSED.match(plain) and 4 <= word_count(match.group(2)) <= 16:
                    vp = match.group(2)
                    if re.search(r"\b[A-Z]\.(?:[A-Z]\.)*$", vp + "."):
                        continue  # cut at an abbreviation ("serving U.S."): not a whole clause
                    same = match.group(1).lower() == article.pronoun
                    if same and not re.search(r"\b(they|them|their|this|these|those|it|its)\b", vp):
                        clauses[category].append((article.doc_id, vp))
                        clauses[(article.pronoun, "*")].append((article.doc_id, vp))
    df: Counter[str] = Counter()
    tokens_of = [content_tokens(text) for _, text in rows]
    for tokens in tokens_of:
        df.update(tokens)
    n = max(len(rows), 1)
    idf = {t: math.log(n / c) for t, c in df.items()}
    index: dict[str, list[int]] = defaultdict(list)
    for i, tokens in enumerate(tokens_of):
        for token in tokens:
            if 2 <= df[token] <= 200:
                index[token].append(i)
    categories = {a.doc_id: a.category for a in articles}
    return _Bank(rows, dict(index), idf, dict(clauses), categories)


def _similar(bank: _Bank, window: Window, premise: str) -> list[int]:
    """Sentences of other articles that share at least two rare words with the premise, most
    similar first (IDF-weighted overlap)."""
    tokens = sorted(
        (t for t in content_tokens(premise) if t in bank.index),
        key=lambda t: (-bank.idf.get(t, 0.0), t),
    )[:80]
    scores: dict[int, float] = defaultdict(float)
    shared: Counter[int] = Counter()
    own = window.article.category
    for token in tokens:
        weight = bank.idf.get(token, 0.0)
        for i in bank.index[token]:
            doc_id = bank.sentences[i][0]
            if doc_id != window.article.doc_id:
                same_kind = bool(own) and bank.category.get(doc_id) == own
                scores[i] += weight * (2.0 if same_kind else 1.0)
                shared[i] += 1
    ranked = sorted((i for i in scores if shared[i] >= 2), key=lambda i: (-scores[i], i))
    return ranked[:40]


def _similar_sentence(
    bank: _Bank, similar: list[int], premise: str, rng: random.Random
) -> str | None:
    top = similar[:12]
    rng.shuffle(top)
    for i in top:
        text = bank.sentences[i][1]
        if len(novel_tokens(text, premise)) >= 2:
            return text
    return None


def _borrowed_clause(bank: _Bank, article: Article, premise: str, rng: random.Random) -> str | None:
    """A verb phrase ("was later sold to X") from another article of the same category (another
    city, album, footballer...), with at least two words the premise never uses."""
    pool = [
        vp
        for doc_id, vp in bank.clauses.get((article.pronoun, article.category), [])
        if doc_id != article.doc_id and article.category
    ]
    if not pool and article.pronoun in {"he", "she"}:
        # People share the shape of their lives: another person's "was born in X" or "married Y"
        # reads naturally and is still unsupported.
        pool = [
            vp
            for doc_id, vp in bank.clauses.get((article.pronoun, "*"), [])
            if doc_id != article.doc_id
        ]
    rng.shuffle(pool)
    for vp in pool[:10]:
        if len(novel_tokens(vp, premise)) >= 2:
            return vp
    return None


class _Collector:
    """Rows gathered so far, with a quota per kind."""

    def __init__(self, quotas: Mapping[str, int]) -> None:
        self.quotas = dict(quotas)
        self.counts: Counter[str] = Counter()
        self.rows: list[Row] = []
        self.seen: set[tuple[str, str]] = set()

    def room(self, kind: str) -> bool:
        return self.counts[kind] < self.quotas.get(kind, 0)

    def full(self) -> bool:
        return all(not self.room(kind) for kind in self.quotas)

    def add(self, kind: str, window: Window, premise: str, claim: str, label: DataLabel) -> bool:
        if (premise, claim) in self.seen or not self.room(kind):
            return False
        self.seen.add((premise, claim))
        self.counts[kind] += 1
        self.rows.append(
            Row(
                id=f"raw_wikipedia_bigbench-{kind}-{digest(premise + claim)}",
                premise=premise,
                hypothesis=claim,
                label=label,
                source="raw_wikipedia_bigbench",
                kind=kind,
                group=f"wiki:{window.article.doc_id}",
            )
        )
        return True


def build_wikipedia(
    articles: list[Article],
    *,
    quotas: Mapping[str, int],
    seed: int,
    stats: Counter[str],
    max_passes: int = 4,
) -> list[Row]:
    """Rows of every synthetic kind, windows visited in a seeded order until quotas are full."""
    rng = random.Random(f"{seed}:wikipedia")
    bank = _bank(articles)
    windows = [w for a in articles for w in make_windows(a, rng)]
    stats["articles"] = len(articles)
    stats["windows"] = len(windows)
    out = _Collector(quotas)
    for _ in range(max_passes):
        order = list(windows)
        rng.shuffle(order)
        for window in order:
            if out.full():
                break
            _window_rows(window, bank, rng, out, stats)
    return out.rows


def _window_rows(
    window: Window, bank: _Bank, rng: random.Random, out: _Collector, stats: Counter[str]
) -> None:
    """Every kind of row one window can give (each kind at most once per visit)."""
    premise = window.text()
    parts = _parts(window, rng)
    article = window.article
    if len(parts) >= 2 and (out.room("multi_sentence") or out.room("multi_sentence_removed")):
        k = 3 if len(parts) >= 3 and rng.random() < 0.35 else 2
        chosen = sorted(rng.sample(parts, k), key=lambda part: part.key)
        name = article.name_in(premise)
        claim = fuse([part.text for part in chosen], name, rng, article.lower_words)
        if word_count(claim) <= 70:
            out.add("multi_sentence", window, premise, claim, "supported")
            removable = []
            for part in chosen:
                rest = window.text(without=part.key)
                if word_count(rest) >= 15 and novel_tokens(part.text, rest):
                    removable.append(rest)
            if removable:
                out.add("multi_sentence_removed", window, rng.choice(removable), claim, "neither")
            else:
                stats["multi_sentence_no_removable_part"] += 1
    if not parts:
        return
    if out.room("compression"):
        part = rng.choice(parts)
        p, s = part.key
        previous = article.paragraphs[p][s - 1] if s > 0 else None
        resolved = resolve(part.original, article, previous, name=article.name_in(premise))
        short = compress(resolved, rng, force=True) if resolved else ""
        if resolved and short != resolved and word_count(short) >= MIN_SENTENCE_WORDS:
            out.add("compression", window, premise, short, "supported")
    if out.room("entity_swap"):
        sentence = rng.choice(parts).text
        swapped = swap_entity(sentence, list(article.names), rng, keep=article.subject)
        if swapped:
            out.add("entity_swap", window, premise, swapped, "contradicted")
    if out.room("number_change"):
        sentence = rng.choice(parts).text
        changed = change_number(sentence, rng, premise=premise)
        if changed:
            out.add("number_change", window, premise, changed, "contradicted")
    if out.room("negation"):
        sentence = rng.choice(parts).text
        negated = negate(sentence, rng)
        if negated:
            out.add("negation", window, premise, negated, "contradicted")
    if out.room("paraphrase_edit"):
        names = _names_of(window)
        for candidate in rng.sample(parts, min(3, len(parts))):
            p, s = candidate.key
            previous = article.paragraphs[p][s - 1] if s > 0 else None
            resolved = resolve(candidate.original, article, previous, name=article.name_in(premise))
            edited = paraphrase(resolved, rng, names) if resolved else None
            if edited and out.add("paraphrase_edit", window, premise, edited[0], "supported"):
                stats[f"paraphrase:{edited[1]}"] += 1
                break
    similar = _similar(bank, window, premise) if out.room("other_article") else []
    if out.room("other_article"):
        other = _similar_sentence(bank, similar, premise, rng)
        if other:
            out.add("other_article", window, premise, other, "neither")
    if out.room("added_clause"):
        name = article.name_in(premise)
        base = rng.choice(parts).text
        vp = _borrowed_clause(bank, article, premise, rng)
        if vp and base.startswith(name):
            claim = ensure_period(f"{_strip_end(base)}, and {vp}")
            if word_count(claim) <= 60:
                out.add("added_clause", window, premise, claim, "neither")
