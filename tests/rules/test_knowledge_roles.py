"""Swapped roles read from spaCy's parse: found where the claim trades two phrases of the same
verb, silent where it does not, and silent without the [nlp] extra."""

from __future__ import annotations

import sys

import pytest

from veracity.rules.entities import spacy_available
from veracity.rules.roles import RoleReader
from veracity.types import Chunk

needs_spacy = pytest.mark.skipif(not spacy_available(), reason="needs the [nlp] extra")


@pytest.fixture(scope="module")
def reader() -> RoleReader:
    return RoleReader.load()


@needs_spacy
@pytest.mark.integration
@pytest.mark.parametrize(
    ("claim", "premise", "claim_words", "evidence_words"),
    [
        (
            "str is a subclass of Markup.",
            "Markup is a subclass of str.",
            "str is a subclass of Markup",
            "Markup is a subclass of str",
        ),
        (
            "The libevent library depends on tmux.",
            "tmux depends on the libevent library.",
            "libevent library depends on tmux",
            "tmux depends on the libevent library",
        ),
        (
            "Exuberant Ctags is an implementation of ctags derived from Universal Ctags.",
            "Universal Ctags is an implementation of ctags derived from Exuberant Ctags.",
            "Exuberant Ctags is an implementation of ctags derived from Universal Ctags",
            "Universal Ctags is an implementation of ctags derived from Exuberant Ctags",
        ),
        (
            "Debian is a fork of Ubuntu.",
            "Ubuntu is a Debian fork.",
            "Debian is a fork of Ubuntu",
            "Ubuntu is a Debian",
        ),
    ],
)
def test_swapped_roles_are_found(
    reader: RoleReader, claim: str, premise: str, claim_words: str, evidence_words: str
) -> None:
    (check,) = reader.conflicts(claim, premise, doc_id="d", offset=100)
    assert (check.kind, check.status, check.aligned) == ("roles", "mismatch", True)
    assert check.text == claim_words == check.span.of(claim)
    assert check.found == evidence_words
    assert check.evidence is not None
    assert check.sentence is not None
    assert premise[check.evidence.start - 100 : check.evidence.end - 100] == evidence_words
    assert check.doc_id == "d"


@needs_spacy
@pytest.mark.integration
@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        # the same roles, in other words or another voice
        ("tmux depends on the libevent library.", "tmux depends on the libevent 2.x library."),
        ("Markup is a subclass of str.", "Markup is a str subclass."),
        ("The Normans built the castle.", "The castle was built by the Normans."),
        # verbs and nouns whose sides can be exchanged
        ("France borders Spain.", "Spain borders France."),
        ("Anna is a sibling of Ben.", "Ben is a sibling of Anna."),
        # the copula's two sides name one thing
        ("Paris is the capital.", "The capital is Paris."),
        # another verb
        ("The cat chased the dog.", "The dog bit the cat."),
        # one phrase of the claim is not in the evidence
        ("The fox chased the hare.", "The dog chased the fox."),
    ],
)
def test_same_or_unreadable_roles_say_nothing(reader: RoleReader, claim: str, premise: str) -> None:
    assert reader.conflicts(claim, premise) == ()


@needs_spacy
@pytest.mark.integration
def test_checks_read_every_passage_in_document_coordinates(reader: RoleReader) -> None:
    passages = [
        Chunk("a#0", "a.md", 0, "The page is about other things entirely.", 0, 40),
        Chunk("b#3", "b.md", 3, "Intro. Markup is a subclass of str.", 50, 85),
    ]
    (check,) = reader.checks("str is a subclass of Markup.", passages)
    assert check.doc_id == "b.md"
    assert check.evidence is not None
    assert passages[1].text[check.evidence.start - 50 : check.evidence.end - 50] == (
        "Markup is a subclass of str"
    )


@pytest.mark.unit
def test_without_a_parser_it_finds_nothing() -> None:
    reader = RoleReader(None)
    assert not reader.available
    assert reader.checks("str is a subclass of Markup.", []) == []
    assert reader.conflicts("str is a subclass of Markup.", "Markup is a subclass of str.") == ()


@pytest.mark.unit
def test_load_without_the_extra_gives_a_reader_that_finds_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "spacy", None)
    reader = RoleReader.load(model="a_pipeline_that_is_not_installed")
    assert not reader.available
