"""Fit a premise into the verifier's window without silent truncation.

A premise that fits is used whole. A longer one is cut into sentence units (a sentence longer
than the window is cut at token boundaries) and the window is filled in one of two ways:

- ``select`` (default): the units that share the most rare words with the claim, kept in
  document order. Picking evidence first beats scoring every window of a long page, because a
  claim's facts are often spread over sentences that never share one window.
- ``slide``: every run of consecutive units that fits, overlapping by about half a window; the
  pair's result is then the window with the highest support.

Training and inference build windows with this same code, so the model sees at inference what
it saw in training. Every window records the character spans of the premise it holds.

>>> selector = EvidenceSelector(max_tokens=64)
>>> windows = selector.run("The sky is blue. Grass is green. Snow is white.", "Snow is white.")
>>> windows[0].text
'The sky is blue. Grass is green. Snow is white.'
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from veracity import defaults
from veracity.assets import load_tokenizer
from veracity.errors import ClaimTooLongError, OptionError
from veracity.text.sentences import split_sentences
from veracity.text.words import content_words
from veracity.types import Span

__all__ = ["STRATEGIES", "EvidenceSelector", "Window", "sentence_units"]

Strategy = Literal["select", "slide"]
STRATEGIES: tuple[Strategy, ...] = ("select", "slide")
#: Tokens the model adds around a pair: [CLS] premise [SEP] claim [SEP].
SPECIAL_TOKENS = 3
#: Largest window accepted: cross-encoders stop at 512, chat models go far beyond.
MAX_WINDOW = 1_000_000
#: A claim may take at most this share of the window; the rest is left for evidence.
MAX_CLAIM_SHARE = 0.6


@dataclass(frozen=True, slots=True)
class Window:
    """Evidence sent to the model: ``text`` is built from ``spans`` of the premise."""

    text: str
    spans: tuple[Span, ...]

    @property
    def span(self) -> Span:
        """The smallest span of the premise that covers every part of the window."""
        return Span(self.spans[0].start, self.spans[-1].end)


class EvidenceSelector:
    """Builds the premise windows for one (premise, claim) pair."""

    def __init__(
        self,
        *,
        max_tokens: int = defaults.VERIFIER_MAX_TOKENS,
        strategy: Strategy = "select",
        tokenizer: Any = None,
    ) -> None:
        if not 32 <= max_tokens <= MAX_WINDOW:
            raise OptionError(
                "max_tokens",
                max_tokens,
                f"between 32 and {MAX_WINDOW} tokens",
                "Use the window of the model that will read the pair.",
            )
        if strategy not in STRATEGIES:
            raise OptionError("strategy", strategy, f"one of {', '.join(STRATEGIES)}")
        self.max_tokens = max_tokens
        self.strategy = strategy
        self._tokenizer = tokenizer

    @property
    def tokenizer(self) -> Any:
        if self._tokenizer is None:
            self._tokenizer = load_tokenizer()
        return self._tokenizer

    def claim_budget(self) -> int:
        return int(self.max_tokens * MAX_CLAIM_SHARE)

    def check_claim(self, claim: str, claim_tokens: int) -> None:
        if claim_tokens > self.claim_budget():
            raise ClaimTooLongError(
                f"the claim has {claim_tokens} tokens but the verifier allows at most "
                f"{self.claim_budget()} of its {self.max_tokens}-token window for the claim: "
                f"split it into shorter claims first (claim starts {claim[:60]!r})",
                tokens=claim_tokens,
                budget=self.claim_budget(),
            )

    def run(self, premise: str, claim: str) -> list[Window]:
        """Windows for ``premise``, best first for ``select``, in order for ``slide``."""
        claim_tokens = len(self.tokenizer.encode(claim, add_special_tokens=False).ids)
        self.check_claim(claim, claim_tokens)
        budget = self.max_tokens - SPECIAL_TOKENS - claim_tokens
        # Units are counted one by one; joined, their text can take a few more tokens (a long
        # sentence cut inside a word). Shrink the budget by the overflow until every window
        # fits, so a pair never exceeds the window.
        target = budget
        while True:
            windows = self._windows(premise, claim, target)
            over = max(self._count(window.text) for window in windows) - budget
            if over <= 0 or target <= 1:
                return windows
            target = max(1, target - over)

    def _count(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def _windows(self, premise: str, claim: str, budget: int) -> list[Window]:
        units, sizes = self._units(premise, budget)
        if not units:
            stripped = premise.strip()
            start = premise.find(stripped) if stripped else 0
            return [Window(stripped, (Span(start, start + len(stripped)),))]
        if sum(sizes) <= budget:
            return [self._join(premise, units)]
        if self.strategy == "slide":
            return self._slide(premise, units, sizes, budget)
        return [self._select(premise, claim, units, sizes, budget)]

    def _units(self, premise: str, budget: int) -> tuple[list[Span], list[int]]:
        return sentence_units(premise, budget, self.tokenizer)

    @staticmethod
    def _join(premise: str, units: Sequence[Span]) -> Window:
        ordered = sorted(units, key=lambda s: s.start)
        merged: list[Span] = []
        for unit in ordered:
            # Adjacent units keep the premise's own text between them (one span).
            if merged and not premise[merged[-1].end : unit.start].strip():
                merged[-1] = Span(merged[-1].start, unit.end)
            else:
                merged.append(unit)
        return Window(" ".join(s.of(premise) for s in merged), tuple(merged))

    def _select(
        self, premise: str, claim: str, units: list[Span], sizes: list[int], budget: int
    ) -> Window:
        claim_words = set(content_words(claim))
        unit_words = [set(content_words(u.of(premise))) for u in units]
        frequency = Counter(w for words in unit_words for w in words)
        idf = {w: math.log(1 + len(units) / frequency[w]) for w in frequency}
        scores = [sum(idf[w] for w in words & claim_words) for words in unit_words]
        order = [
            i for i in sorted(range(len(units)), key=lambda i: (-scores[i], i)) if scores[i] > 0
        ] or list(range(len(units)))
        chosen: list[int] = []
        used = 0
        for i in order:
            if used + sizes[i] <= budget:
                chosen.append(i)
                used += sizes[i]
        return self._join(premise, [units[i] for i in chosen])

    def _slide(
        self, premise: str, units: list[Span], sizes: list[int], budget: int
    ) -> list[Window]:
        windows: list[Window] = []
        first = 0
        while first < len(units):
            last, used = first, 0
            while last < len(units) and used + sizes[last] <= budget:
                used += sizes[last]
                last += 1
            windows.append(self._join(premise, units[first:last]))
            if last >= len(units):
                break
            # Overlap about half a window, always moving forward by at least one unit.
            back, kept = last, 0
            while back - 1 > first and kept + sizes[back - 1] <= budget // 2:
                back -= 1
                kept += sizes[back]
            first = max(back, first + 1)
        return windows


def sentence_units(premise: str, budget: int, tokenizer: Any) -> tuple[list[Span], list[int]]:
    """The premise's sentences as spans with their token counts; a sentence longer than
    ``budget`` tokens is cut at token boundaries into pieces that fit."""
    sentences = split_sentences(premise)
    if not sentences:
        return [], []
    encodings = tokenizer.encode_batch([s.of(premise) for s in sentences], add_special_tokens=False)
    units: list[Span] = []
    sizes: list[int] = []
    for sentence, encoding in zip(sentences, encodings, strict=True):
        n = len(encoding.ids)
        if n <= budget:
            units.append(sentence)
            sizes.append(n)
            continue
        offsets = encoding.offsets
        for first in range(0, n, budget):
            last = min(first + budget, n) - 1
            units.append(
                Span(sentence.start + offsets[first][0], sentence.start + offsets[last][1])
            )
            sizes.append(last - first + 1)
    return units, sizes
