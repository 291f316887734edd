"""GAuGE without a generative model: answers bred from the seeds' own sentences.

The genetic representation is a list of :class:`Gene` s, each a prose sentence of a seed
passage with its exact span there (:func:`veracity.text.prose.prose_span`: no headings, list
words, navigation, table rows or code), read on its own (the claim pipeline's rule
decontextualizer turns a clause-initial "It" or "He" into the name it points to) and scored
once for relevance to the query by the fitness's own relevance model. :func:`build_pool` makes
the :class:`SentencePool` of every seed's sentences, near-duplicates removed. A member's text
is its sentences joined, best first: prose that cites each sentence's source by construction.

The operators play the parts of the paper's LLM prompts:

- :class:`Cross` (crossover of two parents): the most query-relevant sentences of both;
- :class:`Mutate` (random mutation): one sentence replaced by, or one added from, the next most
  relevant sentence of the seeds that the member lacks, or one sentence dropped;
- :class:`Trim` (a finer mutation): one clause trimmed from one sentence (a parenthesis, an
  opening phrase before a comma, a trailing clause after a comma or semicolon);
- :class:`Compress` (plays "summarize"): the parent's more relevant half, each sentence
  trimmed of the clauses that hold no word of the query.

An operator returns ``None`` when it has nothing new to make (no clause to trim, no sentence
left to add); the loop then simply has one offspring fewer.

>>> from veracity.testing import OverlapRelevanceScorer
>>> seeds = ["The waggle dance tells nestmates where food is. It was decoded by Karl von Frisch.",
...          "Wasps build paper nests. Honeybees dance in the dark hive."]
>>> pool = build_pool("why do honeybees dance", seeds, OverlapRelevanceScorer())
>>> [gene.text for gene in pool.genes][1:3]
['The waggle dance tells nestmates where food is.', \
'The waggle dance was decoded by Karl von Frisch.']
>>> render(Compress().breed([pool.genome(1)], pool, random.Random(0)) or ())
'Honeybees dance in the dark hive.'
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from veracity.errors import InputError, OptionError
from veracity.generate.extractive import content_terms
from veracity.models.relevance.base import RelevanceScorer
from veracity.text.prose import MIN_WORDS, prose_spans
from veracity.text.sentences import split_sentences
from veracity.types import Span
from veracity.verify.claims.decontextualize import RuleDecontextualizer
from veracity.verify.claims.draft import Draft

__all__ = [
    "MAX_SENTENCES",
    "SENTENCE_OPERATORS",
    "Compress",
    "Cross",
    "Gene",
    "Mutate",
    "SentenceOperator",
    "SentencePool",
    "Trim",
    "build_pool",
    "render",
    "trims",
]

#: The most sentences an offspring holds (a seed's own genome may hold more).
MAX_SENTENCES = 5
#: Two sentences whose content words overlap this much (Jaccard) say the same thing: the less
#: relevant one leaves the pool.
DUPLICATE_OVERLAP = 0.8
#: A sentence joins the pool when its relevance logit is above this (the reranker's own
#: decision boundary) or it is among the :data:`POOL_KEEP` most relevant: the pool holds the
#: query-relevant sentences, and at least a few.
MIN_RELEVANCE = 0.0
POOL_KEEP = 3
#: Opening words that point back to a sentence the reader will not see: a sentence that still
#: opens with one after decontextualization cannot stand alone in an answer.
_DANGLING = re.compile(
    r"^(?:it|they|its|their|them|this|these|those|such|both|another|"
    r"the latter|the former)\b(?!-)|^(?:\W*\w+\W+){0,5}?(?:he|she|his|her|"
    r"him)\b",
    re.IGNORECASE,
)

_SPACE = re.compile(r"\s+")
_PARENTHESIS = re.compile(r"\s*\([^()]{1,200}\)")
_LEAD = re.compile(r"^([^,;:]{3,60}),\s+(?=\w)")
_TAIL = re.compile(r"(?:,|;|\s[-–—])\s+[^,;]{3,}?([.!?]?[\"'”’)]*)$")


@dataclass(frozen=True, slots=True)
class Gene:
    """One sentence of an answer: ``passage[span]`` of seed ``seed`` (0-based) is its source
    as written, ``text`` how it reads in the answer (``edits`` say how the two differ), and
    ``relevance`` the relevance model's logit of the source sentence for the query."""

    seed: int
    span: Span
    text: str
    relevance: float
    edits: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[int, int, int]:
        """Its source sentence: two genes with one key are one sentence, however trimmed."""
        return (self.seed, self.span.start, self.span.end)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "start": self.span.start,
            "end": self.span.end,
            "text": self.text,
            "relevance": self.relevance,
            "edits": list(self.edits),
        }


def render(genes: Sequence[Gene]) -> str:
    """The answer a genome reads as: its sentences joined by spaces."""
    return " ".join(gene.text for gene in genes)


def _ordered(genes: Sequence[Gene]) -> tuple[Gene, ...]:
    """One gene per source sentence, most relevant first (then seed rank, then position)."""
    seen: dict[tuple[int, int, int], Gene] = {}
    for gene in genes:
        seen.setdefault(gene.key, gene)
    return tuple(sorted(seen.values(), key=lambda g: (-g.relevance, g.seed, g.span.start)))


@dataclass(frozen=True)
class SentencePool:
    """Every prose sentence of the seeds for ``query``, most relevant first (``genes``);
    ``skipped`` counts the sentences left out, by reason (``heading``, ``duplicate`` ...)."""

    query: str
    seeds: tuple[str, ...]
    genes: tuple[Gene, ...]
    skipped: tuple[tuple[str, int], ...] = ()

    def genome(self, seed: int) -> tuple[Gene, ...]:
        """Seed ``seed`` as a member: its pool sentences, in its own order."""
        return tuple(sorted((g for g in self.genes if g.seed == seed), key=lambda g: g.span.start))

    def best_missing(self, genes: Sequence[Gene]) -> Gene | None:
        """The most relevant pool sentence that ``genes`` do not hold, or ``None``."""
        held = {gene.key for gene in genes}
        return next((gene for gene in self.genes if gene.key not in held), None)


def build_pool(
    query: str,
    seeds: Sequence[str],
    relevance: RelevanceScorer,
    *,
    decontextualize: bool = True,
    min_relevance: float | None = MIN_RELEVANCE,
    keep: int = POOL_KEEP,
) -> SentencePool:
    """The :class:`SentencePool` of ``seeds`` (ranked best first) for ``query``: their prose
    sentences, each read on its own, scored by ``relevance`` in one call; left out (and
    counted in ``skipped``): near-duplicates (a repeated sentence, or one whose content words
    are mostly another's), a sentence that still opens with a reference to one before it
    ("She", "These") after decontextualization, and one whose relevance is at most
    ``min_relevance`` unless it is among the ``keep`` most relevant (``None``: keep all)."""
    if not isinstance(query, str) or not query.strip():
        raise InputError(f"the query {query!r} is empty; pass the question to answer")
    seeds = tuple(seeds)
    skipped: dict[str, int] = {}
    found: list[tuple[int, Span, str, tuple[str, ...]]] = []
    decontextualizer = RuleDecontextualizer()
    for index, passage in enumerate(seeds):
        spans = []
        for prose, reason in prose_spans(passage, split_sentences(passage)):
            if prose is None:
                skipped[reason or "not prose"] = skipped.get(reason or "not prose", 0) + 1
            else:
                spans.append(prose)
        drafts = [
            Draft(i, _SPACE.sub(" ", span.of(passage)).strip(), span, span)
            for i, span in enumerate(spans)
        ]
        if decontextualize:
            drafts = list(decontextualizer.run(drafts))
        for span, draft in zip(spans, drafts, strict=True):
            if _DANGLING.match(draft.text):
                skipped["unresolved reference"] = skipped.get("unresolved reference", 0) + 1
            else:
                found.append((index, span, draft.text, draft.edits))
    logits = relevance.run(query, [text for _, _, text, _ in found]).logits() if found else []
    ranked = sorted(
        zip(found, logits, strict=True), key=lambda item: (-item[1], item[0][0], item[0][1].start)
    )
    genes: list[Gene] = []
    kept_terms: list[frozenset[str]] = []
    for (seed, span, text, edits), logit in ranked:
        terms = frozenset(content_terms(text))
        if any(_overlap(terms, other) >= DUPLICATE_OVERLAP for other in kept_terms):
            skipped["duplicate"] = skipped.get("duplicate", 0) + 1
            continue
        if min_relevance is not None and logit <= min_relevance and len(genes) >= keep:
            skipped["off the question"] = skipped.get("off the question", 0) + 1
            continue
        kept_terms.append(terms)
        genes.append(Gene(seed, span, text, float(logit), tuple(edits)))
    return SentencePool(query, seeds, tuple(genes), tuple(sorted(skipped.items())))


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 1.0 if a == b else 0.0
    return len(a & b) / len(a | b)


def _words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def _close(text: str) -> str:
    """``text`` with one final period where its end mark was cut."""
    text = text.rstrip(" ,;:-–—")
    return text if re.search(r"[.!?][\"'”’)]*$", text) else text + "."


def trims(text: str) -> list[tuple[str, str]]:
    """Each way to trim one clause off the sentence ``text``: ``(trimmed, edit)``, the
    trimmed sentence still at least :data:`MIN_WORDS` words.

    >>> [t for t, _ in trims("In 1852, Langstroth (a pastor) patented the hive, which spread.")]
    ['In 1852, Langstroth patented the hive, which spread.', \
'Langstroth (a pastor) patented the hive, which spread.', \
'In 1852, Langstroth (a pastor) patented the hive.']
    """
    options: list[tuple[str, str]] = []
    for match in _PARENTHESIS.finditer(text):
        options.append(
            (text[: match.start()] + text[match.end() :], f"trimmed: {match.group().strip()!r}")
        )
    lead = _LEAD.match(text)
    if lead is not None:
        rest = text[lead.end() :]
        options.append((rest[:1].upper() + rest[1:], f"trimmed: {lead.group(1)!r}"))
    tail = _TAIL.search(text)
    if tail is not None and tail.start() > 0:
        cut = text[tail.start() : tail.start(1)].strip(" ,;-–—")
        options.append((_close(text[: tail.start()]), f"trimmed: {cut!r}"))
    return [
        (trimmed, edit)
        for trimmed, edit in options
        if _words(trimmed) >= MIN_WORDS and trimmed != text
    ]


def _trimmed(gene: Gene, text: str, edit: str) -> Gene:
    return replace(gene, text=text, edits=(*gene.edits, edit))


class SentenceOperator(Protocol):
    """Breeds one offspring from ``arity`` parent genomes, or ``None`` when it has nothing new
    to make; every random choice comes from ``rng``."""

    name: str
    arity: int

    def breed(
        self, parents: Sequence[tuple[Gene, ...]], pool: SentencePool, rng: random.Random
    ) -> tuple[Gene, ...] | None: ...


def _check_size(max_sentences: int) -> int:
    if not isinstance(max_sentences, int) or max_sentences < 1:
        raise OptionError(
            "max_sentences",
            max_sentences,
            "an integer of 1 or more",
            f"Use e.g. max_sentences={MAX_SENTENCES}.",
        )
    return max_sentences


class Cross:
    """The most query-relevant sentences of two parents: between the smaller parent's count
    (at least one) and ``max_sentences`` of them, that number drawn at random."""

    name = "cross"
    arity = 2

    def __init__(self, *, max_sentences: int = MAX_SENTENCES) -> None:
        self.max_sentences = _check_size(max_sentences)

    def breed(
        self, parents: Sequence[tuple[Gene, ...]], pool: SentencePool, rng: random.Random
    ) -> tuple[Gene, ...] | None:
        union = _ordered([gene for parent in parents for gene in parent])
        if not union:
            return None
        smallest = max(1, min(len(parent) for parent in parents))
        most = min(self.max_sentences, len(union))
        return union[: rng.randint(min(smallest, most), most)]


class Mutate:
    """One sentence replaced by the most relevant seed sentence the member lacks, that
    sentence added (when the member has fewer than ``max_sentences``), or one sentence dropped
    (when it has more than one); the change drawn at random among those possible."""

    name = "mutate"
    arity = 1

    def __init__(self, *, max_sentences: int = MAX_SENTENCES) -> None:
        self.max_sentences = _check_size(max_sentences)

    def breed(
        self, parents: Sequence[tuple[Gene, ...]], pool: SentencePool, rng: random.Random
    ) -> tuple[Gene, ...] | None:
        genes = list(parents[0])
        new = pool.best_missing(genes)
        moves = []
        if new is not None and genes:
            moves.append("replace")
        if new is not None and len(genes) < self.max_sentences:
            moves.append("add")
        if len(genes) > 1:
            moves.append("drop")
        if not moves:
            return None
        move = rng.choice(moves)
        if move == "add" and new is not None:
            genes.append(new)
        elif move == "replace" and new is not None:
            genes[rng.randrange(len(genes))] = new
        else:
            del genes[rng.randrange(len(genes))]
        return _ordered(genes)[: max(self.max_sentences, 1)]


class Trim:
    """One clause trimmed off one sentence (see :func:`trims`), both chosen at random."""

    name = "trim"
    arity = 1

    def breed(
        self, parents: Sequence[tuple[Gene, ...]], pool: SentencePool, rng: random.Random
    ) -> tuple[Gene, ...] | None:
        genes = list(parents[0])
        options = [(i, option) for i, gene in enumerate(genes) for option in trims(gene.text)]
        if not options:
            return None
        i, (text, edit) = rng.choice(options)
        genes[i] = _trimmed(genes[i], text, edit)
        return tuple(genes)


class Compress:
    """Query-focused compression (GAuGE's "summarize"): the parent's more relevant half of its
    sentences (at least one), each trimmed of every clause that holds no content word of the
    query, within ``max_words``."""

    name = "compress"
    arity = 1

    def __init__(self, *, max_words: int = 80) -> None:
        if not isinstance(max_words, int) or max_words < MIN_WORDS:
            raise OptionError("max_words", max_words, f"an integer of {MIN_WORDS} or more")
        self.max_words = max_words

    def breed(
        self, parents: Sequence[tuple[Gene, ...]], pool: SentencePool, rng: random.Random
    ) -> tuple[Gene, ...] | None:
        ranked = _ordered(parents[0])
        if not ranked:
            return None
        query = set(content_terms(pool.query))
        kept: list[Gene] = []
        words = 0
        for gene in ranked[: max(1, (len(ranked) + 1) // 2)]:
            gene = _focused(gene, query)
            if kept and words + _words(gene.text) > self.max_words:
                break
            kept.append(gene)
            words += _words(gene.text)
        return tuple(kept)


def _focused(gene: Gene, query: set[str]) -> Gene:
    """``gene`` trimmed, clause by clause, of what holds no query word (while anything does)."""
    changed = True
    while changed:
        changed = False
        for text, edit in trims(gene.text):
            removed = set(content_terms(gene.text)) - set(content_terms(text))
            if not removed & query:
                gene = _trimmed(gene, text, edit)
                changed = True
                break
    return gene


#: The offline operators, chosen uniformly by the loop.
SENTENCE_OPERATORS: tuple[SentenceOperator, ...] = (Cross(), Mutate(), Trim(), Compress())
