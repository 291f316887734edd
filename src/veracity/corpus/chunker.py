"""Split documents into overlapping, sentence-aware chunks with exact character spans.

Sizes are counted in word-level tokens: every match of ``\\w+|[^\\w\\s]`` is one token, so a
word, a number or a single punctuation mark each count once (``"It's 3.5%"`` is ``It ' s 3 . 5
%``, seven tokens). This is a cheap, model-free stand-in for subword counts; a MiniLM
wordpiece count is usually 1-1.5 times as large.

>>> from veracity.types import Document
>>> doc = Document(id="d", text="The sky is blue. Grass is green.")
>>> [(c.id, c.text) for c in Chunker(size=16, overlap=0).run(doc)]
[('d#0', 'The sky is blue. Grass is green.')]
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from veracity import defaults
from veracity.errors import OptionError
from veracity.text.sentences import split_sentences
from veracity.types import Chunk, Document, Span

__all__ = ["TOKEN_PATTERN", "Chunker", "count_tokens", "token_spans"]

TOKEN_PATTERN = r"\w+|[^\w\s]"
_TOKEN = re.compile(TOKEN_PATTERN)
_NOT_SPACE = re.compile(r"\S")
_WORD = re.compile(r"\w")
MIN_SIZE = 16
#: How headings are chunked, recorded in the settings: a heading (or a run of headings) goes
#: into the chunk of the body that follows it, never into a chunk of its own.
HEADINGS = "with-body"


def token_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Spans of the word-level tokens of ``text[start:end]``, as offsets into ``text``.

    >>> [s.of("Hi, you!") for s in token_spans("Hi, you!")]
    ['Hi', ',', 'you', '!']
    """
    stop = len(text) if end is None else end
    return [Span(m.start(), m.end()) for m in _TOKEN.finditer(text, start, stop)]


def count_tokens(text: str) -> int:
    """Number of word-level tokens in ``text`` (see the module docstring).

    >>> count_tokens("It's 3.5%")
    7
    """
    return sum(1 for _ in _TOKEN.finditer(text))


@dataclass(frozen=True, slots=True)
class _Region:
    """Text inside which chunks are cut: ``[start, lead)`` are the headings that open it (empty
    when none), the body follows up to ``end``."""

    start: int
    lead: int
    end: int


@dataclass(frozen=True, slots=True)
class _Unit:
    """A sentence, or a piece of a sentence too long for one chunk, and its token count."""

    start: int
    end: int
    tokens: int


class Chunker:
    """Packs whole sentences into chunks of at most ``size`` tokens.

    Consecutive chunks share whole sentences covering at least ``overlap`` tokens when they fit;
    a sentence longer than ``size`` is cut at token boundaries into pieces that overlap by
    ``overlap`` tokens. A chunk never crosses a section boundary, except that a heading is
    chunked with the body that follows it: a heading with no text of its own before the next
    heading (``# Bees`` right above ``## Hives``) joins that next section's first chunk, whose
    ``section`` is the body's (``("Bees", "Hives")``). Only headings that end a document, or
    that alone exceed ``size`` tokens, make chunks of their own. Every non-whitespace character
    of a document lies in at least one chunk.

    >>> from veracity.types import Document
    >>> text = " ".join(f"Sentence number {i} is here." for i in range(12))
    >>> chunks = Chunker(size=20, overlap=6).run(Document(id="d", text=text))
    >>> [c.text for c in chunks][:2]
    ['Sentence number 0 is here. Sentence number 1 is here. Sentence number 2 is here.', \
'Sentence number 2 is here. Sentence number 3 is here. Sentence number 4 is here.']
    """

    def __init__(
        self, *, size: int = defaults.CHUNK_TOKENS, overlap: int = defaults.CHUNK_OVERLAP
    ) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < MIN_SIZE:
            raise OptionError(
                "size", size, f"an integer of at least {MIN_SIZE} tokens", "Use e.g. size=160."
            )
        if (
            isinstance(overlap, bool)
            or not isinstance(overlap, int)
            or not (0 <= overlap < size / 2)
        ):
            raise OptionError(
                "overlap",
                overlap,
                f"an integer from 0 to less than half the chunk size ({size / 2:g})",
                f"Use e.g. overlap={size // 5}.",
            )
        self.size = size
        self.overlap = overlap

    @property
    def settings(self) -> dict[str, object]:
        """What the index manifest records; chunks are reusable only under equal settings."""
        return {
            "size": self.size,
            "overlap": self.overlap,
            "tokens": TOKEN_PATTERN,
            "headings": HEADINGS,
        }

    def run(self, document: Document) -> tuple[Chunk, ...]:
        """The chunks of ``document``, in order, with ids ``f"{document.id}#{index}"``."""
        chunks: list[Chunk] = []
        for region in _regions(document):
            units = self._units(document.text, region)
            for first, last in self._pack(units):
                chunks.append(_chunk(document, len(chunks), units[first].start, units[last].end))
        return tuple(chunks)

    def _units(self, text: str, region: _Region) -> list[_Unit]:
        units: list[_Unit] = []
        for sentence in _with_lead(text, region, _sentences(text, region.start, region.end)):
            tokens = token_spans(text, sentence.start, sentence.end)
            if len(tokens) <= self.size:
                units.append(_Unit(sentence.start, sentence.end, len(tokens)))
                continue
            step = self.size - self.overlap
            first = 0
            while True:
                last = min(first + self.size, len(tokens))
                units.append(_Unit(tokens[first].start, tokens[last - 1].end, last - first))
                if last == len(tokens):
                    break
                first += step
        return units

    def _pack(self, units: list[_Unit]) -> list[tuple[int, int]]:
        """Index ranges (first, last) of the units of each chunk."""
        packed: list[tuple[int, int]] = []
        first = 0
        while first < len(units):
            last, total = first, units[first].tokens
            while last + 1 < len(units) and total + units[last + 1].tokens <= self.size:
                last += 1
                total += units[last].tokens
            packed.append((first, last))
            if last + 1 == len(units):
                break
            # Step back over whole units until they cover the overlap, as long as they fit in
            # one chunk together with the next unit; always move forward by at least one.
            following = units[last + 1].tokens
            start, covered = last + 1, 0
            while start - 1 > first and covered < self.overlap:
                if covered + units[start - 1].tokens + following > self.size:
                    break
                start -= 1
                covered += units[start].tokens
            first = start
        return packed


def _regions(document: Document) -> list[_Region]:
    """Consecutive spans of the text inside which the section path does not change, except
    that a span holding only headings is joined to the next one (see :class:`Chunker`)."""
    text = document.text
    size = len(text)
    cuts = {0, size}
    titles: dict[int, str] = {}
    for section in sorted(document.sections, key=lambda s: len(s.path)):
        cuts.update(min(max(offset, 0), size) for offset in (section.start, section.end))
        if section.path and 0 <= section.start < size:
            titles[section.start] = section.path[-1]  # the innermost heading at an offset
    regions: list[_Region] = []
    pending: int | None = None  # start of the headings that wait for a body
    for start, end in itertools.pairwise(sorted(cuts)):
        if start >= end:
            continue
        title = titles.get(start)
        lead = start if title is None else _heading_end(text, start, end, title)
        if not _WORD.search(text, lead, end) and (lead > start or pending is not None):
            pending = start if pending is None else pending
            continue
        regions.append(_Region(start if pending is None else pending, lead, end))
        pending = None
    if pending is not None:  # headings that end the document, with no body after them
        regions.append(_Region(pending, size, size))
    return regions


def _line_end(text: str, position: int, end: int) -> int:
    found = text.find("\n", position, end)
    return end if found < 0 else found


def _heading_end(text: str, start: int, end: int, title: str) -> int:
    """Where the heading ``title`` that starts at ``start`` ends: after the line(s) that hold
    it, and any following lines without a word (a setext underline, blank lines); ``start``
    itself when the text there does not show the title (a section given without its heading
    in the text, such as a PDF outline entry)."""
    wanted = " ".join(title.split())
    head = _line_end(text, start, end)
    seen = " ".join(text[start:head].split())
    while wanted not in seen and len(seen) < len(wanted) and head < end:
        head = _line_end(text, head + 1, end)  # an HTML heading broken by <br>
        seen = " ".join(text[start:head].split())
    if not wanted or wanted not in seen:
        return start
    while head < end:
        following = _line_end(text, head + 1, end)
        if _WORD.search(text, head, following):
            break
        head = following
    return head


def _with_lead(text: str, region: _Region, sentences: list[Span]) -> list[Span]:
    """``sentences`` with the region's headings joined to the first sentence of its body, so
    that no chunk holds a heading alone (a heading that does not fit is cut like any long
    sentence)."""
    if region.lead <= region.start or not sentences:
        return sentences
    last = next(
        (
            i
            for i, sentence in enumerate(sentences)
            if _WORD.search(text, max(sentence.start, region.lead), sentence.end)
        ),
        len(sentences) - 1,
    )
    return [Span(sentences[0].start, sentences[last].end), *sentences[last + 1 :]]


def _sentences(text: str, start: int, end: int) -> list[Span]:
    """Sentence spans of ``text[start:end]``, plus any non-blank text the splitter skipped."""
    spans: list[Span] = []
    position = start
    found = [Span(s.start + start, s.end + start) for s in split_sentences(text[start:end])]
    for sentence in [*found, Span(end, end)]:
        gap = text[position : sentence.start]
        if _NOT_SPACE.search(gap):
            lead = len(gap) - len(gap.lstrip())
            spans.append(Span(position + lead, position + len(gap.rstrip())))
        if sentence.end > sentence.start:
            spans.append(sentence)
        position = max(position, sentence.end)
    return spans


def _chunk(document: Document, index: int, start: int, end: int) -> Chunk:
    return Chunk(
        id=f"{document.id}#{index}",
        doc_id=document.id,
        index=index,
        text=document.text[start:end],
        start=start,
        end=end,
        title=document.title,
        section=document.section_at(end - 1),  # the body's, after any headings it starts with
        page=document.page_at(start),
        page_end=document.page_at(end - 1),
        source=document.source,
    )
