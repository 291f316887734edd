"""Swapped roles and co-hyponym twins from spaCy's parse (the [nlp] extra's real pipeline) and a
tiny WordNet written by the test."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from veracity_training.data.wordnet import WordNet

pytestmark = pytest.mark.integration

spacy = pytest.importorskip("spacy", reason="needs the [nlp] extra")

from veracity_training.data.parsed import ParsedEdits, parsed_edits  # noqa: E402

HEADER = "  1 WordNet test database\n"


@pytest.fixture(scope="module")
def edits(tmp_path_factory: pytest.TempPathFactory) -> ParsedEdits:
    folder: Path = tmp_path_factory.mktemp("wordnet")
    (folder / "data.noun").write_text(
        HEADER
        + "00000100 07 n 01 colour 0 003 ~ 00000200 n 0000 ~ 00000300 n 0000 ~ 00000400 n 0000 "
        "| x\n"
        + "".join(
            f"00000{o}00 07 n 01 {w} 0 001 @ 00000100 n 0000 | x\n"
            for o, w in ((2, "blue"), (3, "green"), (4, "red"))
        )
    )
    (folder / "index.noun").write_text(
        HEADER
        + "".join(
            f"{w} n 1 1 @ 1 1 00000{o}00  \n" for o, w in ((2, "blue"), (3, "green"), (4, "red"))
        )
    )
    (folder / "data.adj").write_text(
        HEADER + "00000600 00 a 01 optional 0 001 ! 00000700 a 0101 | x\n"
        "00000700 00 a 01 obligatory 0 001 ! 00000600 a 0101 | x\n"
    )
    (folder / "index.adj").write_text(
        HEADER + "obligatory a 1 1 ! 1 1 00000700  \noptional a 1 1 ! 1 1 00000600  \n"
    )
    try:
        return ParsedEdits.load(WordNet(folder))
    except OSError as error:  # the pipeline package is missing
        pytest.skip(f"spaCy's English pipeline is not installed: {error}")


@pytest.mark.parametrize(
    ("sentence", "swapped", "one_way"),
    [
        ("Ubuntu is a fork of Debian.", "Debian is a fork of Ubuntu.", True),
        ("Apple acquired NeXT in 1997.", "NeXT acquired Apple in 1997.", True),
        ("The dpkg package depends on tar.", "Tar depends on the dpkg package.", True),
    ],
)
def test_roles_trade_places(edits: ParsedEdits, sentence: str, swapped: str, one_way: bool) -> None:
    assert edits.swap_roles(sentence) == (swapped, one_way)


@pytest.mark.parametrize(
    "sentence",
    [
        "Smith married Jones in 1990.",  # a symmetric verb
        "The museum opens on Mondays.",  # a date is no role
        "The castle was built by the Normans.",  # a passive with a common noun
    ],
)
def test_no_swap_where_roles_do_not_trade(edits: ParsedEdits, sentence: str) -> None:
    assert edits.swap_roles(sentence) is None


def test_a_colour_predicate_becomes_a_sibling_that_contradicts(edits: ParsedEdits) -> None:
    found = edits.co_hyponym("The sky is blue.", random.Random(0))
    assert found is not None
    text, contradicts = found
    assert text in {"The sky is green.", "The sky is red."}
    assert contradicts


def test_wordnet_antonym_and_the_edit_table(edits: ParsedEdits) -> None:
    assert edits.adjective_antonym("The flag is optional.", random.Random(0)) == (
        "The flag is obligatory."
    )
    table = parsed_edits(edits)
    assert table["co_hyponym"][0] == "contradicted"
    assert table["roles_unstated"][0] == "neither"
    assert table["roles_parsed"][1]("Ubuntu is a fork of Debian.", random.Random(0)) == (
        "Debian is a fork of Ubuntu."
    )
