"""Answers made of the passages' own sentences: a deterministic "generator" that needs no LLM.

:class:`ExtractiveAnswerer` picks, from ranked passages, the sentences that best answer a
question, each with the index of its passage and its exact character span there.
:class:`ExtractiveReplier` puts it behind the ``ChatModel`` protocol: it reads the numbered
context blocks (``[1] ...``) and the question out of a grounded-generation prompt and replies with
those sentences, each cited ``[n]``, or with ``defaults.EXTRACTIVE_REFUSAL`` when none qualifies.
It is no language model, only a stand-in with a chat model's interface (``--llm extractive``);
its old name, ``ExtractiveChat``, still imports, with a ``DeprecationWarning``, until the next
release.

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
from collections import Counter
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from veracity import defaults
from veracity._moved import warn_moved
from veracity.errors import ClaimTooLongError, GenerationError, InputError, OptionError
from veracity.llm.base import ChatRequest, ChatResponse
from veracity.text.citations import indexed_word
from veracity.text.prose import prose_spans
from veracity.text.sentences import question_focus, split_sentences
from veracity.types import Span

if TYPE_CHECKING:  # a scorer is injected; llm/ sits below the pair verifiers
    from veracity.checkers.base import PairScorer

__all__ = [
    "OTHER_PASSAGE_SHARE",
    "RANK_PENALTY",
    "ExtractedSentence",
    "ExtractiveAnswer",
    "ExtractiveAnswerer",
    "ExtractiveReplier",
    "PromptBlocks",
    "cite",
    "parse_prompt_blocks",
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


# --- the ChatModel adapter -------------------------------------------------------------------

_BLOCK = re.compile(r"^[ \t]*\[(\d+)\][ \t]*", re.MULTILINE)
_LABEL = re.compile(r"^[ \t]*(?:question|query|q)[ \t]*:[ \t]*", re.MULTILINE | re.IGNORECASE)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
#: "(title — section, page 3)" right after a block's number; one level of nested parentheses.
_SOURCE_LABEL = re.compile(r"\(((?:[^()\n]|\([^()\n]*\))*)\)[ \t]*")
#: Citation-like markers inside source text, e.g. Wikipedia's "[3]"; removed from the reply so
#: they are never read as citations of context blocks. Brackets attached to a word stay: they may
#: be the source's own words (``heap[0]``, ``argv[1]``), and the citation checker reads a word
#: with brackets copied from its block as text.
_SOURCE_MARKER = re.compile(r"\s*(\[\d+(?:\s*[,;–-]\s*\d+)*\])")
_TAIL = re.compile(r"[.!?…]*[\"'”’)\]]*$")


@dataclass(frozen=True, slots=True)
class PromptBlocks:
    """The numbered context blocks of a prompt and its question: ``numbers[i]`` labels
    ``texts[i]``, whose source label (``""`` when it has none) is ``sources[i]``."""

    numbers: tuple[int, ...]
    texts: tuple[str, ...]
    question: str
    sources: tuple[str, ...] = ()


def parse_prompt_blocks(text: str) -> PromptBlocks:
    """Read numbered blocks and the question out of a grounded-generation user message.

    A block starts with ``[n]`` at the start of a line, numbered one more than the block before
    it (so a passage's own ``[3]`` footnote line stays in its block), and runs to the next block
    or to the question label. A parenthesised source label right after the number, as in
    ``[2] (Bees — Dance, page 3) text``, goes to ``sources``, not into the text. The question is
    the rest of the line labelled ``Question:`` (or ``Query:``, ``Q:``) after the blocks (the
    last such label) or before them; without a label, the text before the first block, or else
    the last paragraph of the message. Raises :class:`GenerationError` when the message has no
    numbered block or no question.

    >>> blocks = parse_prompt_blocks("[1] (Bees) Bees dance.\\n[2] Ants march.\\nQ: Who dances?")
    >>> blocks.numbers, blocks.texts, blocks.sources, blocks.question
    ((1, 2), ('Bees dance.', 'Ants march.'), ('Bees', ''), 'Who dances?')
    """
    markers: list[re.Match[str]] = []
    for marker in _BLOCK.finditer(text):
        if not markers or int(marker.group(1)) == int(markers[-1].group(1)) + 1:
            markers.append(marker)
    if not markers:
        raise GenerationError(
            "the extractive model needs numbered context blocks (lines starting [1], [2], ...) "
            f"in the last user message, and found none in {text[:120]!r}; use it only with "
            "grounded-generation prompts"
        )
    labels = list(_LABEL.finditer(text))
    # A label between two blocks belongs to a block (an FAQ passage, say): take the last label
    # after the last block's marker, else the first one before the first block.
    after = [m for m in labels if m.start() > markers[-1].start()]
    before = [m for m in labels if m.end() <= markers[0].start()]
    label = after[-1] if after else (before[0] if before else None)
    end_of_blocks = len(text)
    if label is not None:
        line_end = text.find("\n", label.end())
        question = text[label.end() : len(text) if line_end < 0 else line_end].strip()
        if label.start() > markers[-1].start():
            end_of_blocks = label.start()
    elif text[: markers[0].start()].strip():
        question = text[: markers[0].start()].strip()
    else:
        breaks = [m for m in _PARAGRAPH_BREAK.finditer(text) if m.start() > markers[-1].end()]
        question = text[breaks[-1].end() :].strip() if breaks else ""
        if breaks:
            end_of_blocks = breaks[-1].start()
    if not question:
        raise GenerationError(
            "the extractive model found numbered blocks but no question: "
            "label it 'Question: ...' in the user message"
        )
    texts: list[str] = []
    sources: list[str] = []
    for i, marker in enumerate(markers):
        stop = markers[i + 1].start() if i + 1 < len(markers) else end_of_blocks
        body = text[marker.end() : max(stop, marker.end())].strip()
        source = _SOURCE_LABEL.match(body)
        if source is not None and body[source.end() :].strip():
            sources.append(source.group(1).strip())
            body = body[source.end() :].strip()
        else:
            sources.append("")
        texts.append(body)
    numbers = tuple(int(marker.group(1)) for marker in markers)
    return PromptBlocks(numbers, tuple(texts), question, tuple(sources))


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


class ExtractiveReplier:
    """The extractive answerer as a ``StreamingChatModel`` for grounded-generation prompts.

    It was ``ExtractiveChat``: it speaks the chat protocol but is no language model.

    >>> replier = ExtractiveReplier()
    >>> prompt = ("[1] Ants march.\\n\\n[2] Bees dance at dawn.\\n\\n"
    ...           "Question: When do bees dance?")
    >>> replier.run(ChatRequest.of(prompt)).text
    'Bees dance at dawn [2].'
    """

    def __init__(
        self,
        answerer: ExtractiveAnswerer | None = None,
        *,
        refusal: str = defaults.EXTRACTIVE_REFUSAL,
    ) -> None:
        if not isinstance(refusal, str) or not refusal.strip():
            raise OptionError("refusal", refusal, "a non-empty reply for unanswerable questions")
        self.answerer = ExtractiveAnswerer() if answerer is None else answerer
        self.refusal = refusal
        self.model_id = self.answerer.model_id

    def load(self) -> ExtractiveReplier:
        self.answerer.load()
        return self

    def run(self, request: ChatRequest) -> ChatResponse:
        """Reply to the last user message of ``request`` (see :func:`parse_prompt_blocks`)."""
        pieces = self._pieces(request)
        text = " ".join(pieces) if pieces else self.refusal
        return ChatResponse(
            text=text,
            model=self.model_id,
            finish_reason="stop",
            temperature=request.temperature,
            seed=request.seed,
        )

    def stream(self, request: ChatRequest) -> Generator[str, None, str]:
        """The same reply as :meth:`run`, one cited sentence at a time."""
        pieces = self._pieces(request) or [self.refusal]
        for i, piece in enumerate(pieces):
            yield piece if i == 0 else " " + piece
        return "stop"

    def _pieces(self, request: ChatRequest) -> list[str]:
        users = [m.content for m in request.messages if m.role == "user"]
        if not users:
            raise GenerationError(
                "the extractive model answers the last user message, and the request has none"
            )
        blocks = parse_prompt_blocks(users[-1])
        answer = self.answerer.run(blocks.question, blocks.texts)
        return [cite(s.text, blocks.numbers[s.passage]) for s in answer.sentences]


if TYPE_CHECKING:  # the old name, for type checkers; at run time __getattr__ gives it
    ExtractiveChat = ExtractiveReplier


def __getattr__(name: str) -> object:
    if name == "ExtractiveChat":  # renamed: it is no chat (language) model; kept one release
        warn_moved(f"{__name__}.ExtractiveChat", f"{__name__}.ExtractiveReplier")
        return ExtractiveReplier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
