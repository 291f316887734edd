"""Answers made of the passages' own sentences: a deterministic "generator" that needs no LLM.

:class:`ExtractiveAnswerer` picks, from ranked passages, the sentences that best answer a
question, each with the index of its passage and its exact character span there.
:class:`ExtractiveGenerator` answers from retrieved hits with it, in the place of a chat model
(``--llm extractive``): the sentences, each cited ``[n]`` with its hit's number, or
``defaults.EXTRACTIVE_REFUSAL`` when none qualifies, then checked as a model's answer is. No
prompt is written, so none is parsed back.

How sentences are chosen (all ties broken by passage order, then position, so runs repeat):

1. Sentences come from :func:`veracity.text.sentences.split_sentences`. Questions (ending in ``?``)
   and sentences with no content word beyond the question's are never chosen: they restate the
   question rather than answer it. Nor is anything that is not prose
   (:func:`veracity.text.prose.prose_span`): headings, list items that are not sentences, page
   navigation, table rows, code; a heading line glued to the paragraph below is cut off it.
2. ``lexical`` = the IDF-weighted share of the question's content words (lower-cased, stop words
   removed, Snowball-stemmed) that the sentence holds; IDF is taken over the given sentences.
   Only sentences that share a content word with the question are candidates (at most
   ``max_candidates``, best lexical first).
3. With a ``PairScorer`` injected, every candidate is scored in one batch with the sentence as
   premise and the question as hypothesis, and ``score = (1 - w) * lexical + w * P(supported)``
   with ``w = scorer_weight``; without one, ``score = lexical``.
4. Sentences are taken in order of ``score - rank_penalty * passage`` (the passages come ranked,
   and the retriever's order is evidence too), up to ``max_sentences``, each with
   ``score >= min_score``; a sentence whose text repeats one already kept is skipped. After the
   first, a sentence from a passage none of the kept ones came from needs at least
   ``other_passage_share`` of the first one's score: more of the passage that answers is
   welcome, a loose match elsewhere is not, while a strong one (another part of the question,
   another source's answer) still comes in. Chosen on dev data (shipped verifier): on the 300
   answerable ClapNQ questions (hybrid top 5 of its 600 passages) the share of chosen sentences
   that an annotator chose as answer sentences rose from 0.44 to 0.49 and the share of the
   annotators' sentences found from 0.49 to 0.51; on QuoteSum, whose answers draw on several
   sources, the share of the reference's per-source short answers that the answer holds stayed
   at 0.68-0.69.

>>> answerer = ExtractiveAnswerer(max_sentences=1)
>>> answer = answerer.run("How fast do honeybee wings beat?",
...                       ["Bees live in hives. Honeybee wings beat 230 times per second."])
>>> answer.text, answer.sentences[0].span
('Honeybee wings beat 230 times per second.', Span(start=20, end=61))
"""

from __future__ import annotations

import functools
import math
import re
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from veracity import defaults
from veracity.errors import ClaimTooLongError, InputError, OptionError
from veracity.generate.check import CitationChecker, checker_of
from veracity.text.citations import indexed_word
from veracity.text.prose import prose_spans
from veracity.text.refusal import detect_refusal
from veracity.text.sentences import question_focus, split_sentences
from veracity.types import Answer, GenerationProvenance, Hit, Span, Timings

if TYPE_CHECKING:
    from veracity.models.pairs.base import PairScorer

__all__ = [
    "OTHER_PASSAGE_SHARE",
    "RANK_PENALTY",
    "ExtractedSentence",
    "ExtractiveAnswer",
    "ExtractiveAnswerer",
    "ExtractiveGenerator",
    "cite",
]

#: Sentence selection (see the module docstring, step 4): how much each place down the passage
#: ranking lowers a sentence's standing, and the share of the first sentence's score that a
#: sentence from another passage needs.
RANK_PENALTY = 0.05
OTHER_PASSAGE_SHARE = 0.6

_WORD = re.compile(r"\w+")
_STOP = frozenset(
    "a an the and or but if of at by for with about against between into through during before "
    "after above below to from up down in out on off over under again further then once here "
    "there when where why how all any both each few more most other some such no nor not only own "
    "same so than too very can will just should now is are was were be been being have has had "
    "having do does did doing it its he she they them his her their this that these those which "
    "who whom whose what as i you we our your my me him us also would could may might shall "
    "must tell give name please explain describe".split()
)


@functools.lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


def content_terms(text: str) -> list[str]:
    """Lower-cased, stemmed words of ``text`` that are not stop words, in order.

    >>> content_terms("How fast do the wings beat?")
    ['fast', 'wing', 'beat']
    """
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOP]
    return list(_stemmer().stemWords(words))


@dataclass(frozen=True, slots=True)
class ExtractedSentence:
    """A chosen sentence: ``span`` indexes ``passages[passage]`` (0-based ``passage``).

    ``lexical`` is its share of the question's weighted terms, ``supported`` the injected
    scorer's P(supported) (``None`` without a scorer) and ``score`` what it was ranked by, before
    the passage-rank penalty.
    """

    passage: int
    span: Span
    text: str
    score: float
    lexical: float
    supported: float | None = None


@dataclass(frozen=True, slots=True)
class ExtractiveAnswer:
    """The sentences chosen for ``question``, best first; none means "not answerable".

    ``candidates`` counts the sentences that shared a word with the question; ``model_id``
    names the answerer (and its scorer, when one was used).
    """

    question: str
    passages: tuple[str, ...]
    sentences: tuple[ExtractedSentence, ...]
    candidates: int
    model_id: str

    @property
    def text(self) -> str:
        """The chosen sentences joined by spaces (``""`` when none was chosen)."""
        return " ".join(sentence.text for sentence in self.sentences)

    @property
    def answered(self) -> bool:
        return bool(self.sentences)


@dataclass(frozen=True, slots=True)
class _Candidate:
    passage: int
    span: Span
    text: str
    terms: frozenset[str]


class ExtractiveAnswerer:
    """Chooses the sentences of ranked passages that best answer a question (see module doc)."""

    def __init__(
        self,
        *,
        max_sentences: int = defaults.EXTRACTIVE_MAX_SENTENCES,
        min_score: float = defaults.EXTRACTIVE_MIN_SCORE,
        scorer: PairScorer | None = None,
        scorer_weight: float = defaults.EXTRACTIVE_SCORER_WEIGHT,
        max_candidates: int = defaults.EXTRACTIVE_MAX_CANDIDATES,
        rank_penalty: float = RANK_PENALTY,
        other_passage_share: float = OTHER_PASSAGE_SHARE,
    ) -> None:
        if not (isinstance(max_sentences, int) and max_sentences >= 1):
            raise OptionError("max_sentences", max_sentences, "1 or more")
        if not (isinstance(max_candidates, int) and max_candidates >= max_sentences):
            raise OptionError(
                "max_candidates",
                max_candidates,
                f"an integer at least max_sentences ({max_sentences})",
            )
        for name, value in (
            ("min_score", min_score),
            ("scorer_weight", scorer_weight),
            ("rank_penalty", rank_penalty),
            ("other_passage_share", other_passage_share),
        ):
            if not (isinstance(value, int | float) and 0.0 <= value <= 1.0):
                raise OptionError(name, value, "a number from 0 to 1")
        self.max_sentences = max_sentences
        self.min_score = float(min_score)
        self.scorer = scorer
        self.scorer_weight = float(scorer_weight)
        self.max_candidates = max_candidates
        self.rank_penalty = float(rank_penalty)
        self.other_passage_share = float(other_passage_share)
        self.model_id = "extractive" if scorer is None else f"extractive+{scorer.model_id}"

    def load(self) -> ExtractiveAnswerer:
        """Load the injected scorer, if any; calling it again does nothing more."""
        if self.scorer is not None:
            self.scorer.load()
        return self

    def run(self, question: str, passages: Sequence[str]) -> ExtractiveAnswer:
        """The best sentences of ``passages`` (ranked, best first) for ``question``."""
        if not isinstance(question, str) or not question.strip():
            raise InputError(f"the question {question!r} is empty; pass the question to answer")
        if isinstance(passages, str):
            raise InputError(
                "passages must be a sequence of strings, not one string: wrap a "
                "single passage as run(question, [passage])"
            )
        passages = tuple(passages)
        question_terms = set(content_terms(question))
        pool = [c for c in _sentences(passages) if _eligible(c, question_terms)]
        idf = _idf(question_terms, pool)
        total = sum(idf.values())
        ranked: list[tuple[float, _Candidate]] = []
        for candidate in pool:
            shared = question_terms & candidate.terms
            if shared and total > 0:
                ranked.append((sum(idf[t] for t in shared) / total, candidate))
        ranked.sort(key=lambda item: (-item[0], item[1].passage, item[1].span.start))
        ranked = ranked[: self.max_candidates]
        supported = self._support(question, [c.text for _, c in ranked])
        scored = []
        for (lexical, candidate), support in zip(ranked, supported, strict=True):
            score = (
                lexical
                if support is None
                else (1 - self.scorer_weight) * lexical + self.scorer_weight * support
            )
            scored.append(
                ExtractedSentence(
                    candidate.passage, candidate.span, candidate.text, score, lexical, support
                )
            )
        scored.sort(
            key=lambda s: (-(s.score - self.rank_penalty * s.passage), s.passage, s.span.start)
        )
        chosen = self._choose(scored)
        return ExtractiveAnswer(question, passages, tuple(chosen), len(ranked), self.model_id)

    def _choose(self, ordered: list[ExtractedSentence]) -> list[ExtractedSentence]:
        chosen: list[ExtractedSentence] = []
        seen: set[str] = set()
        for sentence in ordered:
            key = " ".join(sentence.text.lower().split())
            if sentence.score < self.min_score or key in seen:
                continue
            if (
                chosen
                and sentence.passage not in {s.passage for s in chosen}
                and sentence.score < self.other_passage_share * chosen[0].score
            ):
                continue
            seen.add(key)
            chosen.append(sentence)
            if len(chosen) == self.max_sentences:
                break
        return chosen

    def _support(self, question: str, sentences: list[str]) -> list[float | None]:
        if self.scorer is None or not sentences:
            return [None] * len(sentences)
        focus = question_focus(question)
        try:
            scores = self.scorer.run(sentences, [focus] * len(sentences)).scores
        except ClaimTooLongError as exc:
            part = "the question" if focus == question else f"its asking sentence {focus!r}"
            raise InputError(
                f"the question is too long to compare with the passages: {part} has "
                f"{exc.tokens} tokens and the verifier reads at most {exc.budget}. Ask it in "
                "fewer words (the background can go in a shorter sentence, or be left out)"
            ) from exc
        return [None if s.error else s.supported for s in scores]


def _sentences(passages: tuple[str, ...]) -> Iterator[_Candidate]:
    for index, passage in enumerate(passages):
        if not isinstance(passage, str):
            raise InputError(f"passage {index} is a {type(passage).__name__}, not a string")
        for prose, _ in prose_spans(passage, split_sentences(passage)):
            if prose is not None:  # headings, navigation, table rows, code are no answer
                text = prose.of(passage)
                yield _Candidate(index, prose, text, frozenset(content_terms(text)))


def _eligible(candidate: _Candidate, question_terms: set[str]) -> bool:
    return not candidate.text.rstrip().endswith("?") and bool(candidate.terms - question_terms)


def _idf(terms: set[str], pool: list[_Candidate]) -> dict[str, float]:
    frequency = Counter(t for c in pool for t in c.terms & terms)
    return {t: math.log(1 + (len(pool) + 1) / (frequency[t] + 1)) for t in terms}


# --- citing: the answer as the text a grounded generator would write -------------------------

#: Citation-like markers inside source text, e.g. Wikipedia's "[3]"; removed from the reply so
#: they are never read as citations of context blocks. Brackets attached to a word stay: they may
#: be the source's own words (``heap[0]``, ``argv[1]``), and the citation checker reads a word
#: with brackets copied from its block as text.
_SOURCE_MARKER = re.compile(r"\s*(\[\d+(?:\s*[,;–-]\s*\d+)*\])")
_TAIL = re.compile(r"[.!?…]*[\"'”’)\]]*$")


def cite(sentence: str, number: int) -> str:
    """``sentence`` with its own bracketed numbers removed (not those attached to a word, which
    may be an index such as ``heap[0]``) and ``[number]`` before its final punctuation.

    >>> cite("Bees dance in the dark.[4] [5]", 2)
    'Bees dance in the dark [2].'
    >>> cite("The least item is heap[0].", 2)
    'The least item is heap[0] [2].'
    """
    clean = _SOURCE_MARKER.sub(
        lambda m: m.group() if indexed_word(sentence, m.start(1), m.end(1)) else "", sentence
    ).strip()
    tail = _TAIL.search(clean)
    cut = tail.start() if tail else len(clean)
    return f"{clean[:cut].rstrip()} [{number}]{clean[cut:]}"


class ExtractiveGenerator:
    """Answers from given hits with no chat model: :class:`ExtractiveAnswerer` picks the best
    sentences, each cited ``[n]`` with its hit's number (hits are numbered from 1, as the
    grounded prompt numbers its blocks), and the citation checker checks them as it checks a
    model's answer. With no sentence to give, the answer is ``refusal``.

    It takes the place of :class:`~veracity.generate.grounded.GroundedGenerator` for ``--llm
    extractive``: no prompt is written or read, so the answer's provenance names no prompt,
    temperature or seed.

    >>> from veracity.testing import TablePairScorer
    >>> from veracity.types import Chunk, Hit
    >>> hits = [Hit(Chunk(f"d#{i}", "d", i, t, 0, len(t)), 1.0, i + 1, "bm25")
    ...         for i, t in enumerate(["Ants march.", "Bees dance at dawn."])]
    >>> scorer = TablePairScorer({("Bees dance at dawn.", "Bees dance at dawn."): (0.9, 0.0, 0.1)})
    >>> ExtractiveGenerator(ExtractiveAnswerer(), scorer).run("When do bees dance?", hits).text
    'Bees dance at dawn [2].'
    """

    def __init__(
        self,
        answerer: ExtractiveAnswerer,
        scorer: PairScorer | CitationChecker,
        *,
        tau: float | None = None,
        attach: bool | None = None,
        refusal: str = defaults.EXTRACTIVE_REFUSAL,
    ) -> None:
        if not isinstance(answerer, ExtractiveAnswerer):
            raise InputError(
                f"answerer must be an ExtractiveAnswerer, got {type(answerer).__name__}"
            )
        if not isinstance(refusal, str) or not refusal.strip():
            raise OptionError("refusal", refusal, "a non-empty reply for unanswerable questions")
        self.answerer = answerer
        self.checker = checker_of(scorer, tau=tau, attach=attach)
        self.refusal = refusal
        self.model_id = answerer.model_id

    @property
    def tau(self) -> float:
        return self.checker.tau

    def load(self) -> ExtractiveGenerator:
        """Load the answerer's scorer and the verifier (once)."""
        self.answerer.load()
        self.checker.load()
        return self

    def write(self, question: str, hits: Sequence[Hit]) -> str:
        """The answer's text: the chosen sentences, each cited ``[n]``, or ``refusal``."""
        if not isinstance(question, str) or not question.strip():
            raise InputError(f"the question {question!r} is empty; ask something")
        if not hits:
            raise InputError(
                "no hits were given, so there is nothing to answer from: "
                "retrieve first, or abstain (Asker does) when retrieval finds nothing"
            )
        passages = [hit.chunk.text.strip() for hit in hits]
        answer = self.answerer.run(question.strip(), passages)
        pieces = [cite(s.text, s.passage + 1) for s in answer.sentences]
        return " ".join(pieces) if pieces else self.refusal

    def run(self, question: str, hits: Sequence[Hit]) -> Answer:
        """Choose, then check: at most one batched verifier call for the choice and one for
        the citations."""
        self.load()
        sources = tuple(hits)
        started = time.perf_counter()
        text = self.write(question, sources)
        generated = time.perf_counter() - started
        refusal = detect_refusal(text)
        if refusal is not None:
            return Answer(
                question=question,
                text=text,
                sources=sources,
                refused=True,
                refusal=refusal,
                provenance=self._provenance("", ""),
                timings=Timings(generate=generated),
            )
        started = time.perf_counter()
        checked = self.checker.run(text, sources)
        verified = time.perf_counter() - started
        return Answer(
            question=question,
            text=text,
            sentences=checked.sentences,
            citations=checked.citations,
            invalid_citations=checked.invalid,
            sources=sources,
            provenance=self._provenance(checked.verifier, checked.verifier_version),
            timings=Timings(generate=generated, verify=verified),
        )

    def _provenance(self, verifier: str, version: str) -> GenerationProvenance:
        return GenerationProvenance(
            model=self.model_id,
            prompt_id="",
            prompt_version=0,
            temperature=0.0,
            seed=None,
            max_tokens=None,
            finish_reason="stop",
            verifier=verifier or self.checker.scorer.model_id,
            verifier_version=version,
            tau=self.tau,
        )
