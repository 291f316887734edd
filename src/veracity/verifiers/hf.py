"""Any Hugging Face sequence-classification checker as a verifier (extra ``[hf]``).

Loads a model by hub id or local folder (``local_files_only=True`` by default: nothing is
downloaded unless asked) and maps its outputs to (supported, contradicted, neither) with a label
mapping that the caller declares -- never guessed from the model's name:

- ``"nli"``: three classes named entailment / neutral / contradiction (any case);
- ``"binary"``: MiniCheck-style two classes, 0 = unsupported (-> neither), 1 = supported;
- ``"score"``: HHEM-style one logit, ``P(supported) = sigmoid(logit)``, neither = 1 - P;
- or a mapping from each of the model's ``id2label`` names (or class indices) to one of
  supported / contradicted / neither, e.g. ``{"ENTAILMENT": "supported", ...}``.

Premises longer than the model's window are never truncated: the same
:class:`~veracity.verifiers.windows.EvidenceSelector` as the shipped verifier, on the model's own
tokenizer, selects evidence or slides windows, and the window with the highest support is kept.

>>> verifier = HFVerifier("cross-encoder/nli-deberta-v3-small", labels="nli")  # doctest: +SKIP
>>> verifier.load().run(["Paris is in France."], ["France has Paris."])  # doctest: +SKIP
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from veracity import defaults
from veracity._deps import require
from veracity.errors import ModelError, OptionError
from veracity.types import PairScores
from veracity.verifiers.base import check_pairs, strip_control_tokens
from veracity.verifiers.windowed import score_pairs
from veracity.verifiers.windows import SPECIAL_TOKENS, STRATEGIES, EvidenceSelector, Strategy

__all__ = ["DEVICES", "PRESETS", "TARGETS", "HFVerifier", "LabelMapping", "Target", "label_mapping"]

Target = Literal["supported", "contradicted", "neither"]
#: The verifier's outputs, in the order of ``PairScore``'s probabilities.
TARGETS: tuple[Target, ...] = ("supported", "contradicted", "neither")
DEVICES = ("cpu", "cuda", "mps", "xpu")
_DEVICE = re.compile(rf"^({'|'.join(DEVICES)})(:\d+)?$")
#: EvidenceSelector's own range check stops at 512; models with wider windows exist (BART: 1024).
#: Tokenizers without a declared maximum report a huge ``model_max_length``.
_NO_LIMIT = 1_000_000


@dataclass(frozen=True)
class LabelMapping:
    """How a model's outputs become (supported, contradicted, neither).

    ``classes`` maps each output class -- by ``id2label`` name (matched case-insensitively) or by
    class index -- to a target; softmax probabilities of classes with the same target add up.
    ``sigmoid=True`` instead reads one logit as P(supported), with neither = 1 - P.
    """

    name: str
    classes: Mapping[str | int, Target] = field(default_factory=dict)
    sigmoid: bool = False

    def matrix(self, id2label: Mapping[int, str], model: str) -> np.ndarray:
        """A ``(num_labels, 3)`` 0/1 matrix from class probabilities to targets.

        Raises :class:`ModelError` when the model's classes are not exactly the mapping's.
        """
        num_labels = len(id2label)
        if self.sigmoid:
            if num_labels != 1:
                raise self._mismatch(id2label, model, "one output logit")
            return np.zeros((1, 3))
        if num_labels < 2:
            raise self._mismatch(id2label, model, f"the classes {sorted(map(str, self.classes))}")
        by_index = all(isinstance(key, int) for key in self.classes)
        if by_index:
            wanted: set[str | int] = set(self.classes)
            have: set[str | int] = set(range(num_labels))
        else:
            wanted = {str(key).lower() for key in self.classes}
            have = {name.lower() for name in id2label.values()}
        if wanted != have:
            raise self._mismatch(id2label, model, f"the classes {sorted(map(str, self.classes))}")
        targets = {(key if by_index else str(key).lower()): target
                   for key, target in self.classes.items()}
        matrix = np.zeros((num_labels, 3))
        for index in range(num_labels):
            target = targets[index if by_index else id2label[index].lower()]
            matrix[index, TARGETS.index(target)] = 1.0
        return matrix

    def _mismatch(self, id2label: Mapping[int, str], model: str, expected: str) -> ModelError:
        example = {name: "supported|contradicted|neither" for name in id2label.values()}
        hint = ('labels="score"' if len(id2label) == 1
                else f"labels={example!r} (one target for each class)")
        return ModelError(
            f"{model} has {len(id2label)} output(s) with id2label {dict(id2label)!r}, but "
            f"labels={self.name!r} expects {expected}. Declare how its outputs map: pass {hint}, "
            f"or one of the presets {', '.join(PRESETS)} that fits")


#: Named label mappings; pass the name as ``labels=``.
PRESETS: dict[str, LabelMapping] = {
    "nli": LabelMapping("nli", {"entailment": "supported", "neutral": "neither",
                                "contradiction": "contradicted"}),
    "binary": LabelMapping("binary", {0: "neither", 1: "supported"}),
    "score": LabelMapping("score", sigmoid=True),
}


def label_mapping(labels: str | Mapping[str, str] | Mapping[int, str]) -> LabelMapping:
    """The preset named ``labels``, or a mapping checked for targets and key types."""
    if isinstance(labels, str):
        if labels not in PRESETS:
            raise OptionError("labels", labels, f"a preset ({', '.join(PRESETS)}) or a mapping "
                              "from each model label to one of " + ", ".join(TARGETS),
                              'E.g. labels={"ENTAILMENT": "supported", "NEUTRAL": "neither", '
                              '"CONTRADICTION": "contradicted"}.')
        return PRESETS[labels]
    if not labels:
        raise OptionError("labels", labels, "a non-empty mapping",
                          'Or pass a preset such as "nli".')
    classes: dict[str | int, Target] = {}
    for key, target in labels.items():
        if isinstance(key, bool) or not isinstance(key, str | int):
            raise OptionError("labels", labels, "keys that are label names or class indices",
                              f"The key {key!r} is neither.")
        if target not in TARGETS:
            raise OptionError("labels", labels, f"values among {', '.join(TARGETS)}",
                              f"{key!r} maps to {target!r}.")
        classes[key] = TARGETS[TARGETS.index(target)]
    if len({type(key) for key in classes}) > 1:
        raise OptionError("labels", labels, "keys that are all names or all class indices")
    if "supported" not in classes.values():
        raise OptionError("labels", labels, "a mapping with a class that means supported",
                          "The verifier reports P(supported); map one class to it.")
    return LabelMapping("custom", classes)


class HFVerifier:
    """A ``PairScorer`` backed by a Hugging Face sequence-classification model.

    ``labels`` is required: a preset from :data:`PRESETS` or a mapping (see the module
    docstring). ``max_tokens=None`` uses the model's own maximum length; ``strategy`` chooses
    how long premises are windowed. ``model_version`` in results is ``revision`` when given,
    else the hub commit the files came from, else ``"local"``.
    """

    def __init__(
        self,
        model: str | Path,
        *,
        labels: str | Mapping[str, str] | Mapping[int, str],
        revision: str | None = None,
        local_files_only: bool = True,
        device: str = "cpu",
        batch_size: int = defaults.VERIFIER_BATCH,
        max_tokens: int | None = None,
        strategy: Strategy = "select",
    ) -> None:
        if not str(model).strip():
            raise OptionError("model", model, "a hub model id or a local folder")
        if not _DEVICE.match(device):
            raise OptionError("device", device, f"one of {', '.join(DEVICES)}, optionally "
                              "with an index such as cuda:0")
        if batch_size < 1:
            raise OptionError("batch_size", batch_size, "1 or more")
        if max_tokens is not None and max_tokens < 32:
            raise OptionError("max_tokens", max_tokens, "32 or more, or None for the model's "
                              "own maximum length")
        if strategy not in STRATEGIES:
            raise OptionError("strategy", strategy, f"one of {', '.join(STRATEGIES)}")
        self.mapping = label_mapping(labels)
        self.model_id = str(model)
        self.revision = revision
        self.version = revision or "unloaded"
        self.local_files_only = local_files_only
        self.device = device
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.strategy = strategy
        self._model: Any = None
        self._torch: Any = None
        self._selector: EvidenceSelector | None = None
        self._matrix: np.ndarray = np.zeros((0, 3))
        self._window = 0
        self._pad_id = 0
        self._type_ids = True

    def load(self) -> HFVerifier:
        """Load tokenizer and weights once (from local files unless ``local_files_only=False``)."""
        if self._model is not None:
            return self
        purpose = "HFVerifier (Hugging Face checkers)"
        torch = require("torch", extra="hf", purpose=purpose)
        transformers = require("transformers", extra="hf", purpose=purpose)
        hf_tokenizer, model = self._from_pretrained(transformers)
        config = model.config
        matrix = self.mapping.matrix(dict(config.id2label), self.model_id)
        window = self._model_window(hf_tokenizer, config)
        backend = getattr(hf_tokenizer, "backend_tokenizer", None)
        if backend is None:
            raise ModelError(f"{self.model_id}: the tokenizer has no fast (tokenizers) backend, "
                             "which windowing needs; save the model with a tokenizer.json")
        from tokenizers import Tokenizer

        # A private copy with truncation and padding off: a saved tokenizer.json may enable them,
        # and the window is enforced by the evidence selector instead, never by cutting.
        tokenizer = Tokenizer.from_str(backend.to_str())
        tokenizer.no_truncation()
        tokenizer.no_padding()
        # The selector reserves SPECIAL_TOKENS (BERT's three); RoBERTa-style pairs add four.
        added = int(hf_tokenizer.num_special_tokens_to_add(pair=True))
        usable = window - max(0, added - SPECIAL_TOKENS)
        selector = EvidenceSelector(max_tokens=usable,
                                    strategy=self.strategy, tokenizer=tokenizer)
        self._matrix = matrix
        self._window = window
        self._pad_id = hf_tokenizer.pad_token_id or 0
        self._type_ids = "token_type_ids" in hf_tokenizer.model_input_names
        self.version = self.revision or getattr(config, "_commit_hash", None) or "local"
        self._selector = selector
        self._torch = torch
        try:
            self._model = model.to(self.device).eval()
        except (RuntimeError, AssertionError) as exc:  # torch built without that device
            raise ModelError(f"cannot move {self.model_id} to device {self.device!r}: {exc}. "
                             'Pass device="cpu" or a device this torch build supports') from exc
        return self

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        """One result per pair, in input order, from each pair's best window."""
        check_pairs(premises, hypotheses)
        claims = [strip_control_tokens(h) for h in hypotheses]
        scores = score_pairs(self._loaded(), premises, claims, self._score_batch)
        return PairScores(tuple(scores), self.model_id, self.version)

    def _from_pretrained(self, transformers: Any) -> tuple[Any, Any]:
        options = {"revision": self.revision, "local_files_only": self.local_files_only}
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(self.model_id, **options)
            model = transformers.AutoModelForSequenceClassification.from_pretrained(
                self.model_id, **options)
        except (OSError, ValueError) as exc:
            fix = ("It is looked up in the local Hugging Face cache only: give a local folder "
                   "(--verifier hf:/path/to/model), or in Python HFVerifier(..., "
                   "local_files_only=False) to download it." if self.local_files_only
                   else "Check the model id, the revision and the network.")
            raise ModelError(f"cannot load {self.model_id!r} (revision {self.revision}) as a "
                             f"sequence-classification model: {exc}. {fix}") from exc
        return tokenizer, model

    def _model_window(self, tokenizer: Any, config: Any) -> int:
        limits = [n for n in (getattr(tokenizer, "model_max_length", None),
                              getattr(config, "max_position_embeddings", None))
                  if isinstance(n, int) and 0 < n < _NO_LIMIT]
        if not limits and self.max_tokens is None:
            raise ModelError(f"{self.model_id} declares no maximum length; pass max_tokens=")
        window = min(limits) if limits else _NO_LIMIT
        if self.max_tokens is None:
            return window
        if self.max_tokens > window:
            raise OptionError("max_tokens", self.max_tokens,
                              f"at most {window}, the window of {self.model_id}",
                              "Pass a smaller max_tokens, or None for the model's own.")
        return self.max_tokens

    def _score_batch(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        torch = self._torch
        encodings = self._loaded().tokenizer.encode_batch(pairs)
        longest = max(len(encoding.ids) for encoding in encodings)
        if longest > self._window:  # pragma: no cover - the selector keeps windows in bounds
            raise ModelError(f"{self.model_id}: a window of {longest} tokens exceeds the model's "
                             f"{self._window}; pass a smaller max_tokens")
        order = sorted(range(len(pairs)), key=lambda i: len(encodings[i].ids))
        probabilities = np.zeros((len(pairs), 3), dtype=np.float64)
        with torch.no_grad():
            for first in range(0, len(order), self.batch_size):
                batch = order[first : first + self.batch_size]
                logits = self._model(**self._feeds([encodings[i] for i in batch])).logits
                probabilities[batch] = self._to_targets(logits.float().cpu().numpy())
        return probabilities

    def _feeds(self, encodings: Sequence[Any]) -> dict[str, Any]:
        torch = self._torch
        width = max(len(encoding.ids) for encoding in encodings)
        ids = torch.full((len(encodings), width), self._pad_id, dtype=torch.long)
        mask = torch.zeros((len(encodings), width), dtype=torch.long)
        types = torch.zeros((len(encodings), width), dtype=torch.long)
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            ids[row, :n] = torch.tensor(encoding.ids, dtype=torch.long)
            mask[row, :n] = 1
            types[row, :n] = torch.tensor(encoding.type_ids, dtype=torch.long)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if self._type_ids:
            feeds["token_type_ids"] = types
        return {name: tensor.to(self.device) for name, tensor in feeds.items()}

    def _to_targets(self, logits: np.ndarray) -> np.ndarray:
        logits = logits.astype(np.float64)
        if self.mapping.sigmoid:
            supported = 0.5 * (1.0 + np.tanh(logits[:, 0] / 2.0))  # sigmoid, overflow-free
            return np.stack([supported, np.zeros_like(supported), 1.0 - supported], axis=1)
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        classes = shifted / shifted.sum(axis=1, keepdims=True)
        result: np.ndarray = classes @ self._matrix
        return result

    def _loaded(self) -> EvidenceSelector:
        self.load()
        if self._selector is None:  # pragma: no cover - load() always sets it
            raise ModelError(f"{self.model_id} failed to load")
        return self._selector
