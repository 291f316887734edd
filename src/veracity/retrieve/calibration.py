"""Choose an abstention threshold on development questions, and keep it with the index.

:func:`calibrate` is pure: given each dev question's signal value and whether it should get
"I don't know" (it is unanswerable from the corpus), it tries every threshold that changes a
decision (the lowest value, the midpoints between neighbouring values, and just above the
highest) and keeps the one with the best abstention F1, the positive class being "should
abstain". Ties go to the threshold that still answers more answerable questions, then to the
lower threshold. A question abstains when its value is *below* the threshold. With
``min_answered`` (a share, e.g. 0.9), only thresholds that still answer at least that share of
the answerable questions are considered: the best F1 among those.

The result is saved as ``<index>/calibration.json`` (written atomically: a temporary file,
fsync, rename), at the top of the index folder rather than inside a generation, because
generations are immutable once live. The file records the generation it was made on and the
fingerprint of that generation's content (``manifest.json``'s ``content``): a re-index that
changed nothing keeps it valid, and :func:`load_calibration` refuses one made on other content
with :class:`StaleCalibrationError` instead of silently applying a threshold chosen for a
different corpus.

An index without a calibration of its own abstains with a shipped default threshold
(:func:`default_threshold`), chosen on ClapNQ dev by ``bench/abstention_default.py`` and
labelled as such wherever it is used.

>>> result = calibrate([0.1, 0.2, 0.8, 0.9], [True, True, False, False], signal="top_cosine")
>>> result.threshold, result.f1, result.answered
(0.5, 1.0, 2)
"""

from __future__ import annotations

import dataclasses
import datetime
import itertools
import json
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veracity import defaults
from veracity.errors import IndexStoreError, InputError, VeracityError

if TYPE_CHECKING:
    from veracity.models.pairs.base import PairScorer
    from veracity.retrieve.abstain import Abstainer

__all__ = [
    "CALIBRATION_FORMAT",
    "Calibration",
    "DefaultThreshold",
    "StaleCalibrationError",
    "StoredCalibration",
    "ThresholdPoint",
    "calibrate",
    "calibration_path",
    "default_threshold",
    "index_abstainer",
    "load_calibration",
    "read_calibration",
    "save_calibration",
    "threshold_point",
]

CALIBRATION_FORMAT = 1


@dataclass(frozen=True, slots=True)
class ThresholdPoint:
    """Abstention quality at one threshold: abstain when the signal is below ``threshold``.

    ``abstained`` counts the questions abstained on, ``answered`` the answerable questions still
    answered.
    """

    threshold: float
    precision: float
    recall: float
    f1: float
    abstained: int
    answered: int


@dataclass(frozen=True)
class Calibration:
    """The chosen threshold of ``signal`` with its precision, recall and F1 for abstention.

    ``answerable`` and ``unanswerable`` count the dev questions used; ``failed`` those left
    out because their signal could not be computed. ``curve`` holds every threshold tried.
    """

    signal: str
    threshold: float
    precision: float
    recall: float
    f1: float
    abstained: int
    answered: int
    answerable: int
    unanswerable: int
    failed: int
    curve: tuple[ThresholdPoint, ...]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {
            "curve": [dataclasses.asdict(point) for point in self.curve]
        }


def _candidates(values: Sequence[float]) -> list[float]:
    distinct = sorted(set(values))
    middles = [(a + b) / 2.0 for a, b in itertools.pairwise(distinct)]
    return [distinct[0], *middles, math.nextafter(distinct[-1], math.inf)]


def threshold_point(
    threshold: float, values: Sequence[float], labels: Sequence[bool]
) -> ThresholdPoint:
    """Abstention precision, recall and F1 when abstaining below ``threshold`` (``labels``:
    should abstain), with how many abstained and how many answerable questions were answered."""
    tp = fp = fn = answered = 0
    for value, should in zip(values, labels, strict=True):
        abstains = value < threshold
        if abstains and should:
            tp += 1
        elif abstains:
            fp += 1
        elif should:
            fn += 1
        else:
            answered += 1
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return ThresholdPoint(threshold, precision, recall, f1, tp + fp, answered)


def calibrate(
    values: Sequence[float | None],
    should_abstain: Sequence[bool],
    *,
    signal: str,
    min_answered: float = 0.0,
) -> Calibration:
    """The threshold of best abstention F1 (see the module docstring).

    ``values[i]`` is question ``i``'s signal (``None`` when it could not be computed: left out
    and counted in ``failed``); ``should_abstain[i]`` is true for an unanswerable question.
    ``min_answered`` is the least share of answerable questions the threshold must still
    answer (0 for none).

    >>> calibrate([0.1, 0.2, 0.3, 0.8, 0.9], [True, False, True, False, False],
    ...           signal="top_cosine", min_answered=1.0).answered
    3
    """
    if (
        isinstance(min_answered, bool)
        or not isinstance(min_answered, int | float)
        or not 0.0 <= min_answered <= 1.0
    ):
        raise InputError(
            f"min_answered is {min_answered!r}; give the least share of answerable "
            "questions to answer, from 0 (any) to 1 (all)"
        )
    if isinstance(values, str | bytes) or len(values) != len(should_abstain):
        raise InputError(
            f"got {len(values)} signal values and {len(should_abstain)} labels; "
            "give one value and one label per dev question"
        )
    kept: list[float] = []
    labels: list[bool] = []
    failed = 0
    for i, (value, label) in enumerate(zip(values, should_abstain, strict=True)):
        if value is None:
            failed += 1
            continue
        if not isinstance(label, bool):
            raise InputError(f"label {i} is {label!r}; should_abstain holds true or false")
        if not math.isfinite(value):
            raise InputError(f"signal value {i} is {value!r}; values must be finite numbers")
        kept.append(float(value))
        labels.append(label)
    unanswerable = sum(labels)
    answerable = len(labels) - unanswerable
    if not unanswerable or not answerable:
        raise InputError(
            f"calibration needs answerable and unanswerable questions with a signal value; got "
            f"{answerable} answerable and {unanswerable} unanswerable ({failed} failed). Add "
            "questions whose answer is not in the documents (answerable: false) and ones whose "
            "answer is"
        )
    curve = tuple(threshold_point(t, kept, labels) for t in _candidates(kept))
    # the lowest candidate answers every question, so the allowed set is never empty
    allowed = [p for p in curve if p.answered >= min_answered * answerable - 1e-9]
    best = max(allowed, key=lambda p: (p.f1, p.answered, -p.threshold))
    return Calibration(
        signal,
        best.threshold,
        best.precision,
        best.recall,
        best.f1,
        best.abstained,
        best.answered,
        answerable,
        unanswerable,
        failed,
        curve,
    )


@dataclass(frozen=True)
class StoredCalibration:
    """A calibration saved with an index: the ``generation`` it was made on (and that
    generation's ``content`` fingerprint, ``None`` in files written before it), the search
    ``mode`` and ``k`` its signals were computed with, the ``verifier`` (for ``top_support``),
    the ``dev`` file, when it was ``created``, and the file's ``path``.
    """

    calibration: Calibration
    generation: str
    mode: str
    k: int
    verifier: str | None
    dev: str
    created: str
    path: Path
    content: str | None = None

    @property
    def source(self) -> str:
        """How an answer names this threshold's origin."""
        return f"calibrated on {self.generation} ({self.path})"

    def to_dict(self) -> dict[str, Any]:
        """Where and how it was made, then the calibration's fields (``content``, the
        fingerprint that keeps it in use, stays in the file)."""
        return {
            "path": str(self.path),
            "generation": self.generation,
            "mode": self.mode,
            "k": self.k,
            "verifier": self.verifier,
            "dev": self.dev,
            "created": self.created,
            **self.calibration.to_dict(),
        }


class StaleCalibrationError(IndexStoreError):
    """The saved calibration was made on other content (the index was re-indexed with changes)."""

    def __init__(self, stored: StoredCalibration, current: str) -> None:
        self.stored = stored
        self.current = current
        super().__init__(
            f"the abstention calibration {stored.path} was made on index generation "
            f"{stored.generation}, and the index's content has changed since (it is now at "
            f"{current}), so its {stored.calibration.signal} threshold may not fit this corpus. "
            f"Re-run `veracity calibrate --index {stored.path.parent} --dev FILE.jsonl`"
        )


def calibration_path(index: str | Path) -> Path:
    """Where the calibration of the index at ``index`` is saved."""
    return Path(index) / defaults.CALIBRATION_FILE


def save_calibration(
    index: str | Path,
    calibration: Calibration,
    *,
    mode: str,
    k: int,
    verifier: str | None = None,
    dev: str = "",
) -> StoredCalibration:
    """Save ``calibration`` with the live generation of ``index``, atomically."""
    generation, content = _live(index)
    stored = StoredCalibration(
        calibration,
        generation,
        mode,
        k,
        verifier,
        dev,
        datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        calibration_path(index),
        content,
    )
    payload = {
        "format_version": CALIBRATION_FORMAT,
        "generation": generation,
        "content": content,
        "mode": mode,
        "k": k,
        "verifier": verifier,
        "dev": dev,
        "created": stored.created,
        **calibration.to_dict(),
    }
    _write_atomically(stored.path, json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    return stored


def _write_atomically(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def read_calibration(index: str | Path) -> StoredCalibration | None:
    """The calibration saved with ``index`` whatever its generation, or ``None`` if none."""
    path = calibration_path(index)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format_version") != CALIBRATION_FORMAT:
            raise ValueError(
                f"format_version {data.get('format_version')!r}, expected {CALIBRATION_FORMAT}"
            )
        return _stored(data, path)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise IndexStoreError(
            f"{path} is not a readable calibration ({exc}); delete it and run `veracity "
            f"calibrate --index {path.parent} --dev FILE.jsonl` again"
        ) from exc


def _stored(data: Mapping[str, Any], path: Path) -> StoredCalibration:
    curve = tuple(ThresholdPoint(**point) for point in data["curve"])
    fields = {f.name for f in dataclasses.fields(Calibration)} - {"curve"}
    calibration = Calibration(**{name: data[name] for name in fields}, curve=curve)
    if not isinstance(calibration.threshold, int | float) or not math.isfinite(
        calibration.threshold
    ):
        raise ValueError(f"threshold {calibration.threshold!r} is not a finite number")
    content = data.get("content")
    return StoredCalibration(
        calibration,
        str(data["generation"]),
        str(data["mode"]),
        int(data["k"]),
        data["verifier"],
        str(data["dev"]),
        str(data["created"]),
        path,
        content if isinstance(content, str) else None,
    )


def _live(index: str | Path) -> tuple[str, str | None]:
    """The live generation of ``index`` and its content fingerprint (``None`` if unrecorded)."""
    from veracity.corpus.index_dir import IndexDir

    folder = IndexDir(index)
    content = folder.manifest().get("content")
    return folder.current().name, content if isinstance(content, str) else None


def load_calibration(index: str | Path) -> StoredCalibration | None:
    """The calibration of ``index``'s live content, ``None`` if none was saved.

    Raises :class:`StaleCalibrationError` when it was made on other content: another content
    fingerprint, or, for files or indexes that have none, another generation.
    """
    stored = read_calibration(index)
    if stored is None:
        return None
    current, content = _live(index)
    same = stored.content == content if stored.content and content else stored.generation == current
    if not same:
        raise StaleCalibrationError(stored, current)
    return stored


@dataclass(frozen=True)
class DefaultThreshold:
    """A shipped default abstention threshold of ``signal``, with the F1 it reached on the
    development data it was chosen on (``data``) and the share of that data's answerable
    questions it still answered (``answered``; ``None`` in files that do not record it)."""

    signal: str
    threshold: float
    f1: float
    data: str
    answered: float | None = None

    @property
    def source(self) -> str:
        """How an answer names this threshold's origin: uncalibrated, and how to calibrate."""
        share = (
            ""
            if self.answered is None
            else f"answers {self.answered:.0%} of its answerable questions, "
        )
        return (
            f"the shipped default threshold, uncalibrated for these documents (on "
            f"{self.data} it {share}abstention F1 {self.f1:.2f}); calibrate it with "
            "`veracity calibrate --index DIR --dev questions.jsonl` (questions about your "
            "documents, each marked answerable or not)"
        )


#: Signals with a shipped default threshold (see ``bench/abstention_default.py``).
DEFAULT_FILE = "abstention_default.json"


def default_threshold(signal: str) -> DefaultThreshold:
    """The shipped default threshold of ``signal`` (``top_cosine`` or ``top_support``)."""
    from importlib import resources

    data = json.loads(
        resources.files("veracity.retrieve").joinpath(DEFAULT_FILE).read_text(encoding="utf-8")
    )
    shipped = data["signals"]
    if signal not in shipped:
        raise InputError(
            f"there is no shipped default threshold for {signal!r}, only for "
            f"{', '.join(sorted(shipped))}: calibrate one with `veracity calibrate "
            f"--signal {signal}`"
        )
    entry = shipped[signal]
    answered = entry["answered"] / entry["answerable"] if entry.get("answerable") else None
    return DefaultThreshold(
        signal, float(entry["threshold"]), float(entry["f1"]), data["data"].split(":")[0], answered
    )


def index_abstainer(
    index_dir: Path,
    *,
    mode: str,
    signal: str | None,
    threshold: float | None,
    scorer: PairScorer,
    notes: list[str],
) -> Abstainer:
    """The abstainer ``ask`` and ``serve`` use: ``--threshold``, else the index's own
    calibration, else the shipped default threshold (labelled as such on the answer: a stale or
    missing calibration never turns abstention off in silence)."""
    from veracity.retrieve.abstain import SIGNAL_MODES, Abstainer, make_signal

    if threshold is not None:
        name = signal or defaults.ABSTAIN_SIGNAL
        return Abstainer(make_signal(name, scorer=scorer), threshold, source="--threshold")
    if signal is not None:
        raise VeracityError(
            f"--signal {signal} needs --threshold (or run `veracity calibrate "
            f"--index {index_dir} --dev FILE.jsonl --signal {signal}`)"
        )
    why = ""
    try:
        stored = load_calibration(index_dir)
    except StaleCalibrationError as exc:
        stored, why = None, f"the index's content changed since its calibration ({exc}); "
    if stored is not None:
        calibration = stored.calibration
        if stored.mode != mode:
            notes.append(
                f"the threshold was calibrated with --mode {stored.mode}; this search "
                f"uses --mode {mode}"
            )
        return Abstainer(
            make_signal(calibration.signal, scorer=scorer, hits=stored.k),
            calibration.threshold,
            source=stored.source,
        )
    name = "top_cosine" if mode in SIGNAL_MODES["top_cosine"] else "top_support"
    default = default_threshold(name)
    if not why:
        why = f"no calibration was made for {index_dir}; "
    return Abstainer(
        make_signal(name, scorer=scorer), default.threshold, source=why + default.source
    )
