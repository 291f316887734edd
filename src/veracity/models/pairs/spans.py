"""Token-level span detectors: which characters of a claim its evidence does not support
(LettuceDetect-style token classifiers; extra ``[hf]``).

A token classifier reads (evidence, claim) as a pair and gives each token of the claim a
probability of being unsupported (its ``hallucinated`` label). :class:`TokenSpanDetector` loads
any such Hugging Face model by hub id or local folder (nothing downloaded unless
``local_files_only=False``), windows long evidence as every veracity verifier does (never
truncated), keeps for each claim token its lowest probability over the windows (a token one
window supports is supported), and joins neighbouring tokens at or above ``threshold`` into
character spans of the claim, each with its mean probability.

LettuceDetect (RAGTruth F1 published: example-level 79.22 and span-level 58.93 for its large model,
../shared/anchors) is trained with a prompt around the context and question; a model trained on
plain (evidence, claim) pairs reads them as they are here.

>>> detector = TokenSpanDetector("KRLabsOrg/lettucedect-base-modernbert-en-v1")  # doctest: +SKIP
>>> detector.load().run(["The museum opens at nine."],                          # doctest: +SKIP
...                    ["The museum opens at ten."])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from veracity import defaults
from veracity.errors import ModelError, OptionError
from veracity.models.pairs.base import check_pairs
from veracity.models.pairs.hf import HFModel, HFOptions, length_batches
from veracity.types import ClaimSpans, Span, UnsupportedSpan

__all__ = ["ClaimSpans", "TokenSpanDetector", "UnsupportedSpan"]


class TokenSpanDetector:
    """Finds the unsupported character spans of claims (see the module docstring).

    ``hallucinated`` is the label (name or class index) that means "not supported";
    ``threshold`` the probability from which a token counts as unsupported.
    """

    def __init__(
        self,
        model: str | Path,
        *,
        hallucinated: str | int = 1,
        threshold: float = 0.5,
        options: HFOptions | None = None,
    ) -> None:
        self.hf = HFModel(
            model,
            options,
            purpose="TokenSpanDetector (token-level span detectors)",
            batch_size=defaults.VERIFIER_BATCH,
            check=self._read_labels,
            tokens=True,
        )
        if not 0.0 < threshold < 1.0:
            raise OptionError("threshold", threshold, "a probability strictly between 0 and 1")
        self.model_id = self.hf.model_id
        self.hallucinated = hallucinated
        self.threshold = threshold
        self._column = 0

    @property
    def version(self) -> str:
        return self.hf.version

    def load(self) -> TokenSpanDetector:
        """Load tokenizer and weights once (from local files unless ``local_files_only=False``)."""
        self.hf.get()
        return self

    def _read_labels(self, id2label: Mapping[int, str]) -> None:
        self._column = _column(id2label, self.hallucinated, self.model_id)

    def run(self, premises: Sequence[str], claims: Sequence[str]) -> tuple[ClaimSpans, ...]:
        """One :class:`ClaimSpans` per (premise, claim) pair, in input order."""
        check_pairs(premises, claims)
        model = self.hf.get()
        owners: list[int] = []
        pairs: list[tuple[str, str]] = []
        for index, (premise, claim) in enumerate(zip(premises, claims, strict=True)):
            for window in model.selector.run(premise, claim):
                owners.append(index)
                pairs.append((window.text, claim))
        lowest: list[dict[tuple[int, int], float]] = [{} for _ in claims]
        for (start, end), probability, owner in self._claim_tokens(pairs, owners):
            known = lowest[owner].get((start, end))
            lowest[owner][(start, end)] = probability if known is None else min(known, probability)
        return tuple(
            ClaimSpans(claim, self._spans(claim, lowest[i]), owners.count(i))
            for i, claim in enumerate(claims)
        )

    def _claim_tokens(
        self, pairs: list[tuple[str, str]], owners: list[int]
    ) -> list[tuple[tuple[int, int], float, int]]:
        """(claim offsets, P(unsupported), pair) for every claim token of every window."""
        model = self.hf.get()
        encodings = model.selector.tokenizer.encode_batch(pairs)
        found: list[tuple[tuple[int, int], float, int]] = []
        for batch in length_batches(encodings, self.hf.batch_size):
            logits = model.logits([encodings[i] for i in batch])
            shifted = np.exp(logits - logits.max(axis=2, keepdims=True))
            probabilities = shifted[:, :, self._column] / shifted.sum(axis=2)
            for row, i in enumerate(batch):
                encoding = encodings[i]
                for position, (sequence, offsets) in enumerate(
                    zip(encoding.sequence_ids, encoding.offsets, strict=True)
                ):
                    if sequence == 1 and offsets[1] > offsets[0]:
                        found.append((offsets, float(probabilities[row, position]), owners[i]))
        return found

    def _spans(
        self, claim: str, tokens: dict[tuple[int, int], float]
    ) -> tuple[UnsupportedSpan, ...]:
        spans: list[UnsupportedSpan] = []
        run: list[tuple[tuple[int, int], float]] = []
        for offsets, probability in [*sorted(tokens.items()), ((len(claim), len(claim)), 0.0)]:
            joined = bool(run) and not claim[run[-1][0][1] : offsets[0]].strip()
            if probability >= self.threshold and (joined or not run):
                run.append((offsets, probability))
                continue
            if run:
                span = Span(run[0][0][0], run[-1][0][1])
                spans.append(
                    UnsupportedSpan(span, span.of(claim), float(np.mean([p for _, p in run])))
                )
            run = [(offsets, probability)] if probability >= self.threshold else []
        return tuple(spans)


def _column(id2label: Mapping[int, str], hallucinated: str | int, model: str) -> int:
    labels = {int(index): str(name) for index, name in id2label.items()}
    if isinstance(hallucinated, int) and hallucinated in labels:
        return hallucinated
    wanted = str(hallucinated).casefold()
    for index, name in labels.items():
        if name.casefold() == wanted:
            return index
    raise ModelError(
        f"{model} has labels {sorted(labels.values())}; none is "
        f"{hallucinated!r}: pass hallucinated= the label that means unsupported"
    )
