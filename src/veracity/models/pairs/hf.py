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
:class:`~veracity.models.pairs.windows.EvidenceSelector` as the shipped verifier, on the model's own
tokenizer, selects evidence or slides windows, and the window with the highest support is kept.

>>> verifier = HFVerifier("cross-encoder/nli-deberta-v3-small", labels="nli")  # doctest: +SKIP
>>> verifier.load().run(["Paris is in France."], ["France has Paris."])  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from veracity import defaults
from veracity._deps import require
from veracity.errors import ModelError, OptionError
from veracity.models.pairs.base import check_pairs, strip_control_tokens
from veracity.models.pairs.windowed import score_pairs
from veracity.models.pairs.windows import SPECIAL_TOKENS, STRATEGIES, EvidenceSelector, Strategy
from veracity.types import PairScores

__all__ = [
    "DEVICES",
    "PRESETS",
    "TARGETS",
    "Classifier",
    "HFModel",
    "HFOptions",
    "HFVerifier",
    "LabelMapping",
    "Target",
    "label_mapping",
    "length_batches",
    "load_classifier",
    "own_code",
    "refuse_own_code",
]

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
        targets = {
            (key if by_index else str(key).lower()): target for key, target in self.classes.items()
        }
        matrix = np.zeros((num_labels, 3))
        for index in range(num_labels):
            target = targets[index if by_index else id2label[index].lower()]
            matrix[index, TARGETS.index(target)] = 1.0
        return matrix

    def _mismatch(self, id2label: Mapping[int, str], model: str, expected: str) -> ModelError:
        example = {name: "supported|contradicted|neither" for name in id2label.values()}
        hint = (
            'labels="score"'
            if len(id2label) == 1
            else f"labels={example!r} (one target for each class)"
        )
        return ModelError(
            f"{model} has {len(id2label)} output(s) with id2label {dict(id2label)!r}, but "
            f"labels={self.name!r} expects {expected}. Declare how its outputs map: pass {hint}, "
            f"or one of the presets {', '.join(PRESETS)} that fits"
        )


#: Named label mappings; pass the name as ``labels=``.
PRESETS: dict[str, LabelMapping] = {
    "nli": LabelMapping(
        "nli", {"entailment": "supported", "neutral": "neither", "contradiction": "contradicted"}
    ),
    "binary": LabelMapping("binary", {0: "neither", 1: "supported"}),
    "score": LabelMapping("score", sigmoid=True),
}


def label_mapping(labels: str | Mapping[str, str] | Mapping[int, str]) -> LabelMapping:
    """The preset named ``labels``, or a mapping checked for targets and key types."""
    if isinstance(labels, str):
        if labels not in PRESETS:
            raise OptionError(
                "labels",
                labels,
                f"a preset ({', '.join(PRESETS)}) or a mapping "
                "from each model label to one of " + ", ".join(TARGETS),
                'E.g. labels={"ENTAILMENT": "supported", "NEUTRAL": "neither", '
                '"CONTRADICTION": "contradicted"}.',
            )
        return PRESETS[labels]
    if not labels:
        raise OptionError(
            "labels", labels, "a non-empty mapping", 'Or pass a preset such as "nli".'
        )
    classes: dict[str | int, Target] = {}
    for key, target in labels.items():
        if isinstance(key, bool) or not isinstance(key, str | int):
            raise OptionError(
                "labels",
                labels,
                "keys that are label names or class indices",
                f"The key {key!r} is neither.",
            )
        if target not in TARGETS:
            raise OptionError(
                "labels",
                labels,
                f"values among {', '.join(TARGETS)}",
                f"{key!r} maps to {target!r}.",
            )
        classes[key] = TARGETS[TARGETS.index(target)]
    if len({type(key) for key in classes}) > 1:
        raise OptionError("labels", labels, "keys that are all names or all class indices")
    if "supported" not in classes.values():
        raise OptionError(
            "labels",
            labels,
            "a mapping with a class that means supported",
            "The verifier reports P(supported); map one class to it.",
        )
    return LabelMapping("custom", classes)


@dataclass(frozen=True)
class Classifier:
    """A loaded Hugging Face sequence-classification model, its own tokenizer (truncation and
    padding off) and the evidence selector over that tokenizer; shared by :class:`HFVerifier`
    and the Hugging Face reranker."""

    model_id: str
    version: str
    id2label: Mapping[int, str]
    selector: EvidenceSelector
    window: int
    device: str
    torch: Any
    model: Any
    pad_id: int = 0
    type_ids: bool = True
    #: A sequence-to-sequence model: ``logits`` are its first decoding step's, over the vocabulary.
    seq2seq: bool = False
    decoder_start: int = 0
    #: A token classifier: ``logits`` are per token, ``(batch, longest, labels)``.
    tokens: bool = False

    def logits(self, encodings: Sequence[Any]) -> np.ndarray:
        """The model's logits for one batch of encoded pairs (float64, on the CPU); for a
        sequence-to-sequence model, those of the first token it would write."""
        longest = max(len(encoding.ids) for encoding in encodings)
        if longest > self.window:  # pragma: no cover - the selector keeps windows in bounds
            raise ModelError(
                f"{self.model_id}: a window of {longest} tokens exceeds the model's "
                f"{self.window}; pass a smaller max_tokens"
            )
        torch = self.torch
        ids = torch.full((len(encodings), longest), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(encodings), longest), dtype=torch.long)
        types = torch.zeros((len(encodings), longest), dtype=torch.long)
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            ids[row, :n] = torch.tensor(encoding.ids, dtype=torch.long)
            mask[row, :n] = 1
            types[row, :n] = torch.tensor(encoding.type_ids, dtype=torch.long)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if self.type_ids and not self.seq2seq:
            feeds["token_type_ids"] = types
        if self.seq2seq:
            feeds["decoder_input_ids"] = torch.full(
                (len(encodings), 1), self.decoder_start, dtype=torch.long
            )
        with torch.no_grad():
            out = self.model(**{name: t.to(self.device) for name, t in feeds.items()}).logits
        if self.seq2seq:
            out = out[:, 0, :]
        result: np.ndarray = out.float().cpu().numpy().astype(np.float64)
        return result


def length_batches(encodings: Sequence[Any], batch_size: int) -> list[list[int]]:
    """Indices of ``encodings`` in batches of similar length (less padding, the same scores).

    >>> from types import SimpleNamespace as E
    >>> length_batches([E(ids=[1, 2, 3]), E(ids=[1]), E(ids=[1, 2])], 2)
    [[1, 2], [0]]
    """
    order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
    return [order[first : first + batch_size] for first in range(0, len(order), batch_size)]


@dataclass(frozen=True)
class HFOptions:
    """How a Hugging Face model is loaded and run, checked when made: ``revision`` (a hub
    branch, tag or commit), from local files only unless ``local_files_only=False`` (never a
    download by surprise), on ``device`` (``cpu``, ``cuda[:n]``, ``mps``), ``batch_size`` pairs
    per forward pass (``None``: the model's default), at most ``max_tokens`` tokens per window
    (``None``: the model's own maximum length) and long premises windowed by ``strategy``
    (``None``: the model's own way, ``select`` for a checker, ``slide`` for a reranker)."""

    revision: str | None = None
    local_files_only: bool = True
    device: str = "cpu"
    batch_size: int | None = None
    max_tokens: int | None = None
    strategy: Strategy | None = None

    def __post_init__(self) -> None:
        if not _DEVICE.match(self.device):
            raise OptionError(
                "device",
                self.device,
                f"one of {', '.join(DEVICES)}, optionally with an index such as cuda:0",
            )
        if self.batch_size is not None and self.batch_size < 1:
            raise OptionError("batch_size", self.batch_size, "1 or more")
        if self.max_tokens is not None and self.max_tokens < 32:
            raise OptionError(
                "max_tokens",
                self.max_tokens,
                "32 or more, or None for the model's own maximum length",
            )
        if self.strategy is not None and self.strategy not in STRATEGIES:
            raise OptionError("strategy", self.strategy, f"one of {', '.join(STRATEGIES)}")


def load_classifier(
    model_id: str,
    options: HFOptions,
    *,
    purpose: str,
    check: Callable[[Mapping[int, str]], object] | None = None,
    seq2seq: Callable[[Any], int] | None = None,
    tokens: bool = False,
) -> Classifier:
    """Load tokenizer and weights (from local files unless ``local_files_only=False``);
    ``check`` sees the model's ``id2label`` before the weights move to ``device``.

    ``seq2seq`` loads a sequence-to-sequence model instead of a classifier: it is given the
    tokenizer and returns how many tokens the model's input format adds to a (premise, claim)
    pair, so that the evidence windows leave room for them. ``tokens`` loads a token
    classifier (one label per token)."""
    check_model_folder(model_id)
    torch = require("torch", extra="hf", purpose=purpose)
    transformers = require("transformers", extra="hf", purpose=purpose)
    revision, local_files_only = options.revision, options.local_files_only
    device, max_tokens = options.device, options.max_tokens
    strategy: Strategy = options.strategy or "select"
    hub = {"revision": revision, "local_files_only": local_files_only}
    try:
        if own_code(transformers, model_id, revision=revision, local_files_only=local_files_only):
            raise refuse_own_code(model_id)
        hf_tokenizer = transformers.AutoTokenizer.from_pretrained(model_id, **hub)
        auto = (
            transformers.AutoModelForSeq2SeqLM
            if seq2seq is not None
            else transformers.AutoModelForTokenClassification
            if tokens
            else transformers.AutoModelForSequenceClassification
        )
        model = auto.from_pretrained(model_id, **hub)
    except (OSError, ValueError) as exc:
        kind = (
            "sequence-to-sequence"
            if seq2seq is not None
            else "token-classification"
            if tokens
            else "sequence-classification"
        )
        raise load_failure(
            model_id, revision, f"as a {kind} model", exc, local_files_only=local_files_only
        ) from exc
    config = model.config
    id2label = dict(config.id2label)
    if check is not None:
        check(id2label)
    window = _model_window(model_id, hf_tokenizer, config, max_tokens)
    backend = getattr(hf_tokenizer, "backend_tokenizer", None)
    if backend is None:
        raise ModelError(
            f"{model_id}: the tokenizer has no fast (tokenizers) backend, "
            "which windowing needs; save the model with a tokenizer.json"
        )
    from tokenizers import Tokenizer

    # A private copy with truncation and padding off: a saved tokenizer.json may enable them,
    # and the window is enforced by the evidence selector instead, never by cutting.
    tokenizer = Tokenizer.from_str(backend.to_str())
    tokenizer.no_truncation()
    tokenizer.no_padding()
    # The selector reserves SPECIAL_TOKENS (BERT's three); RoBERTa-style pairs add four.
    added = (
        int(hf_tokenizer.num_special_tokens_to_add(pair=True))
        if seq2seq is None
        else seq2seq(hf_tokenizer)
    )
    usable = window - max(0, added - SPECIAL_TOKENS)
    selector = EvidenceSelector(max_tokens=usable, strategy=strategy, tokenizer=tokenizer)
    model = on_device(model, model_id, device)
    return Classifier(
        model_id=model_id,
        version=revision or getattr(config, "_commit_hash", None) or "local",
        id2label=id2label,
        selector=selector,
        window=window,
        device=device,
        torch=torch,
        model=model,
        pad_id=hf_tokenizer.pad_token_id or 0,
        type_ids="token_type_ids" in hf_tokenizer.model_input_names,
        seq2seq=seq2seq is not None,
        tokens=tokens,
        decoder_start=int(getattr(config, "decoder_start_token_id", None) or 0),
    )


def check_model_folder(model_id: str) -> None:
    """Refuse a model id that names a local path (``/``, ``./``, ``../``, ``~``) with no folder
    there, before anything is imported or looked up."""
    if model_id.startswith(("/", "./", "../", "~")) and not Path(model_id).expanduser().is_dir():
        raise ModelError(
            f"{model_id}: no such folder; give the folder of a saved model "
            "(config.json, the weights and the tokenizer files) or a hub model id"
        )


def load_failure(
    model_id: str,
    revision: str | None,
    how: str,
    exc: Exception,
    *,
    local_files_only: bool,
    scheme: str = "hf",
    note: str = "",
) -> ModelError:
    """The error for a model transformers could not load ``how`` (e.g. "as a
    sequence-classification model"), with what to do: a local folder or a download when only
    the local cache was searched, else the id, revision and network. ``note`` is added to the
    cache hint."""
    fix = (
        "It is looked up in the local Hugging Face cache only: give a local folder "
        f"({scheme}:/path/to/model), or in Python pass local_files_only=False to download it."
        + (f" {note}" if note else "")
        if local_files_only
        else "Check the model id, the revision and the network."
    )
    return ModelError(f"cannot load {model_id!r} (revision {revision}) {how}: {exc}. {fix}")


def on_device(model: Any, model_id: str, device: str) -> Any:
    """``model`` moved to ``device`` in evaluation mode, or an error that says which devices
    work."""
    try:
        return model.to(device).eval()
    except (RuntimeError, AssertionError) as exc:  # torch built without that device
        raise ModelError(
            f"cannot move {model_id} to device {device!r}: {exc}. "
            'Pass device="cpu" or a device this torch build supports'
        ) from exc


def own_code(
    transformers: Any, model_id: str, *, revision: str | None, local_files_only: bool
) -> dict[str, str]:
    """The ``auto_map`` of the model's config.json: the classes it brings in its own Python
    files (empty for a model that transformers' built-in classes load). Reads the JSON only;
    no code of the model runs here."""
    config, _ = transformers.PretrainedConfig.get_config_dict(
        model_id, revision=revision, local_files_only=local_files_only
    )
    auto_map = config.get("auto_map") or {}
    return dict(auto_map) if isinstance(auto_map, Mapping) else {}


def refuse_own_code(model_id: str) -> ModelError:
    """The error for a model that needs its own code, loaded without the opt-in to run it."""
    return ModelError(
        f"{model_id} needs its own Python code to load (its config.json has an auto_map), and "
        "loading it would run that code on this machine with your permissions. veracity runs a "
        "model's code only when asked: if you trust its authors, use --verifier "
        f"hf-code:{model_id} (in Python, RemoteCodeVerifier({model_id!r}, "
        "trust_remote_code=True) from veracity.models.pairs.remote_code)"
    )


def _model_window(model_id: str, tokenizer: Any, config: Any, max_tokens: int | None) -> int:
    limits = [
        n
        for n in (
            getattr(tokenizer, "model_max_length", None),
            getattr(config, "max_position_embeddings", None),
        )
        if isinstance(n, int) and 0 < n < _NO_LIMIT
    ]
    if not limits and max_tokens is None:
        raise ModelError(f"{model_id} declares no maximum length; pass max_tokens=")
    window = min(limits) if limits else _NO_LIMIT
    if max_tokens is None:
        return window
    if max_tokens > window:
        raise OptionError(
            "max_tokens",
            max_tokens,
            f"at most {window}, the window of {model_id}",
            "Pass a smaller max_tokens, or None for the model's own.",
        )
    return max_tokens


class HFModel:
    """A Hugging Face model's options and its one load: what the Hugging Face verifier,
    reranker, seq2seq checker and span detector share (see :func:`load_classifier` for
    ``check``, ``seq2seq`` and ``tokens``); ``batch_size`` is the caller's default when the
    options leave it out, and ``strategies`` the windowings it reads with, the first its
    default (a reranker slides, nothing else); another is refused, never ignored.

    ``version`` is the options' ``revision`` when given, else (once loaded) the hub commit the
    files came from, else ``"local"``.
    """

    def __init__(
        self,
        model: str | Path,
        options: HFOptions | None,
        *,
        purpose: str,
        batch_size: int,
        check: Callable[[Mapping[int, str]], object] | None = None,
        seq2seq: Callable[[Any], int] | None = None,
        tokens: bool = False,
        strategies: tuple[Strategy, ...] = STRATEGIES,
    ) -> None:
        options = HFOptions() if options is None else options
        if not isinstance(options, HFOptions):
            raise OptionError(
                "options", options, "an HFOptions", "Use HFOptions(device='cuda', ...)."
            )
        if not str(model).strip():
            raise OptionError("model", model, "a hub model id or a local folder")
        strategy = options.strategy or strategies[0]
        if strategy not in strategies:
            allowed = f"one of {', '.join(strategies)} for {purpose.split(' ')[0]}"
            raise OptionError("strategy", strategy, allowed, "Leave strategy out: it has its own.")
        self.batch_size = batch_size if options.batch_size is None else options.batch_size
        # the options as the model is loaded and run: every default filled in
        options = dataclasses.replace(options, strategy=strategy, batch_size=self.batch_size)
        self.model_id = str(model)
        self.options = options
        self.purpose = purpose
        self.revision = options.revision
        self.local_files_only = options.local_files_only
        self.device = options.device
        self.max_tokens = options.max_tokens
        self.strategy: Strategy = strategy
        self.check = check
        self.seq2seq = seq2seq
        self.tokens = tokens
        self._model: Classifier | None = None

    @property
    def version(self) -> str:
        if self._model is not None:
            return self._model.version
        return self.revision or "unloaded"

    def get(self) -> Classifier:
        """The loaded model, loaded on the first call (from local files unless
        ``local_files_only=False``)."""
        if self._model is None:
            self._model = load_classifier(
                self.model_id,
                self.options,
                purpose=self.purpose,
                check=self.check,
                seq2seq=self.seq2seq,
                tokens=self.tokens,
            )
        return self._model


class HFVerifier:
    """A ``PairScorer`` backed by a Hugging Face sequence-classification model.

    ``labels`` is required: a preset from :data:`PRESETS` or a mapping (see the module
    docstring); ``options`` says how it loads and runs (:class:`HFOptions`: revision, device,
    batch size, window, strategy). ``model_version`` in results is the revision when given,
    else the hub commit the files came from, else ``"local"``.
    """

    def __init__(
        self,
        model: str | Path,
        *,
        labels: str | Mapping[str, str] | Mapping[int, str],
        options: HFOptions | None = None,
    ) -> None:
        self.hf = HFModel(
            model,
            options,
            purpose="HFVerifier (Hugging Face checkers)",
            batch_size=defaults.VERIFIER_BATCH,
            check=self._read_labels,
        )
        self.mapping = label_mapping(labels)
        self.model_id = self.hf.model_id
        self._matrix: np.ndarray = np.zeros((0, 3))

    @property
    def version(self) -> str:
        return self.hf.version

    def load(self) -> HFVerifier:
        """Load tokenizer and weights once (from local files unless ``local_files_only=False``)."""
        self.hf.get()
        return self

    def _read_labels(self, id2label: Mapping[int, str]) -> None:
        self._matrix = self.mapping.matrix(id2label, self.model_id)

    def run(self, premises: Sequence[str], hypotheses: Sequence[str]) -> PairScores:
        """One result per pair, in input order, from each pair's best window."""
        check_pairs(premises, hypotheses)
        claims = [strip_control_tokens(h) for h in hypotheses]
        scores = score_pairs(self.hf.get().selector, premises, claims, self._score_batch)
        return PairScores(tuple(scores), self.model_id, self.version)

    def _score_batch(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        classifier = self.hf.get()
        encodings = classifier.selector.tokenizer.encode_batch(pairs)
        probabilities = np.zeros((len(pairs), 3), dtype=np.float64)
        for batch in length_batches(encodings, self.hf.batch_size):
            logits = classifier.logits([encodings[i] for i in batch])
            probabilities[batch] = self._to_targets(logits)
        return probabilities

    def _to_targets(self, logits: np.ndarray) -> np.ndarray:
        if self.mapping.sigmoid:
            supported = 0.5 * (1.0 + np.tanh(logits[:, 0] / 2.0))  # sigmoid, overflow-free
            return np.stack([supported, np.zeros_like(supported), 1.0 - supported], axis=1)
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        classes = shifted / shifted.sum(axis=1, keepdims=True)
        result: np.ndarray = classes @ self._matrix
        return result
