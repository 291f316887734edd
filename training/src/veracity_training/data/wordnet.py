"""Co-hyponyms and antonyms from WordNet 3.0's database files, for contradicted twins.

"The sky is blue." and "The sky is green." differ by one word that no antonym list holds: *blue*
and *green* are co-hyponyms (both kinds of "chromatic colour"), and a claim that swaps one for
the other says something the premise rules out. WordNet names such siblings; this module reads
them from the plain database files (``index.noun``, ``data.noun``, ``index.adj``, ``data.adj``)
that Debian's ``wordnet-base`` package installs in ``/usr/share/wordnet`` (WordNet 3.0, under the
WordNet 3.0 license: use, copy and distribution permitted with its copyright notice; recorded in
the data card). No NLTK is needed, and nothing is downloaded.

Only common senses are used: a word's first (most frequent) sense, with a tagged frequency, and
siblings that are themselves common single words whose first sense is that sibling, under a
parent with few children (so "blue" finds "green" and "red", not every one of 2,000 kinds of
"person").

>>> wordnet = WordNet.find()  # None without the files; reading them takes seconds  # doctest: +SKIP
>>> wordnet.co_hyponyms("blue")[:3], wordnet.antonyms("open")  # doctest: +SKIP
(['brown', 'green', 'pastel'], ['shut'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from veracity.errors import InputError

__all__ = ["DEFAULT_WORDNET", "WordNet"]

#: Where Debian's ``wordnet-base`` puts the database files.
DEFAULT_WORDNET = Path("/usr/share/wordnet")
#: A parent with more children than this is too general for its children to exclude each other.
_MAX_SIBLINGS = 40
_POS = {"noun": "n", "adj": "a"}


@dataclass
class _Part:
    """One part of speech: lemma -> (synset offsets by frequency, tagged sense count), and each
    synset's words and pointers."""

    index: dict[str, tuple[list[int], int]] = field(default_factory=dict)
    words: dict[int, list[str]] = field(default_factory=dict)
    pointers: dict[int, list[tuple[str, int, str]]] = field(default_factory=dict)


class WordNet:
    """Siblings and antonyms of common English words, read once from a WordNet 3.0 folder."""

    def __init__(self, folder: Path) -> None:
        missing = [
            name
            for pos in _POS
            for name in (f"index.{pos}", f"data.{pos}")
            if not (folder / name).is_file()
        ]
        if missing:
            raise InputError(
                f"{folder} is not a WordNet 3.0 database folder (missing {', '.join(missing)}). "
                "Install Debian's wordnet-base (apt-get install wordnet-base) or pass "
                "--wordnet DIR."
            )
        self.folder = folder
        self._parts = {pos: self._read(folder, pos) for pos in _POS}

    @classmethod
    def find(cls, folder: Path | None = None) -> WordNet | None:
        """The WordNet in ``folder`` (default: Debian's), or None where it is not installed."""
        path = folder or DEFAULT_WORDNET
        if not (path / "data.noun").is_file():
            return None
        return cls(path)

    @staticmethod
    def _read(folder: Path, pos: str) -> _Part:
        part = _Part()
        with (folder / f"index.{pos}").open(encoding="utf-8") as f:
            for line in f:
                if line.startswith(" "):
                    continue  # the license header
                fields = line.split()
                lemma, count, pointer_count = fields[0], int(fields[2]), int(fields[3])
                tagged = int(fields[5 + pointer_count])
                offsets = [int(x) for x in fields[6 + pointer_count : 6 + pointer_count + count]]
                part.index[lemma] = (offsets, tagged)
        with (folder / f"data.{pos}").open(encoding="utf-8") as f:
            for line in f:
                if line.startswith(" "):
                    continue
                fields = line.split(" | ", 1)[0].split()
                offset, word_count = int(fields[0]), int(fields[3], 16)
                words = [fields[4 + 2 * i].lower() for i in range(word_count)]
                # adjective markers such as "(a)" / "(p)" follow some words
                words = [w.split("(")[0] for w in words]
                at = 4 + 2 * word_count
                pointer_count = int(fields[at])
                pointers = [
                    (fields[at + 1 + 4 * i], int(fields[at + 2 + 4 * i]), fields[at + 4 + 4 * i])
                    for i in range(pointer_count)
                ]
                part.words[offset] = words
                part.pointers[offset] = pointers
        return part

    def _first_sense(self, word: str, pos: str) -> int | None:
        found = self._parts[pos].index.get(word.lower())
        if found is None or not found[0] or found[1] == 0:
            return None  # unknown, or no sense seen in tagged text: rare
        return found[0][0]

    def _common(self, word: str, pos: str, offset: int) -> bool:
        """A single plain word whose first common sense is ``offset``."""
        return word.isalpha() and self._first_sense(word, pos) == offset

    def co_hyponyms(self, word: str) -> list[str]:
        """Common nouns that share the first noun sense's parent with ``word`` ("blue" ->
        "green", "red", ...), sorted; empty where it has none or the parent is too general."""
        part = self._parts["noun"]
        own = self._first_sense(word, "noun")
        if own is None:
            return []
        out: set[str] = set()
        own_words = set(part.words.get(own, []))
        for symbol, parent, _ in part.pointers.get(own, []):
            if symbol not in {"@", "@i"}:
                continue
            children = [o for s, o, _ in part.pointers.get(parent, []) if s in {"~", "~i"}]
            if len(children) > _MAX_SIBLINGS:
                continue
            for child in children:
                if child == own:
                    continue
                name = part.words[child][0]
                if name not in own_words and self._common(name, "noun", child):
                    out.add(name)
        return sorted(out)

    def antonyms(self, word: str) -> list[str]:
        """Direct antonyms of the first adjective sense of ``word`` ("optional" ->
        "obligatory"), sorted."""
        part = self._parts["adj"]
        own = self._first_sense(word, "adj")
        if own is None:
            return []
        position = part.words[own].index(word.lower()) + 1 if word.lower() in part.words[own] else 0
        out: set[str] = set()
        for symbol, target, source_target in part.pointers.get(own, []):
            if symbol != "!":
                continue
            source, aim = int(source_target[:2], 16), int(source_target[2:], 16)
            if source not in {0, position}:
                continue
            names = part.words.get(target, [])
            name = names[aim - 1] if aim and aim <= len(names) else (names[0] if names else "")
            if name.isalpha():
                out.add(name)
        return sorted(out)
