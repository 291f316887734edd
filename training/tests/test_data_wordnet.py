"""The WordNet reader on a tiny database written by the test, in WordNet 3.0's file format."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity.errors import InputError
from veracity_training.data.wordnet import WordNet

pytestmark = pytest.mark.unit

HEADER = "  1 This software and database is being provided to you, the LICENSEE\n"
# offsets: 100 colour (parent), 200 blue, 300 green, 400 red, 500 tint (rare)
DATA_NOUN = HEADER + "".join(
    [
        "00000100 07 n 01 colour 0 004 ~ 00000200 n 0000 ~ 00000300 n 0000 ~ 00000400 n 0000 "
        "~ 00000500 n 0000 | a visual attribute\n",
        "00000200 07 n 01 blue 0 001 @ 00000100 n 0000 | the colour of the sky\n",
        "00000300 07 n 01 green 0 001 @ 00000100 n 0000 | the colour of grass\n",
        "00000400 07 n 01 red 0 001 @ 00000100 n 0000 | the colour of blood\n",
        "00000500 07 n 01 tint 0 001 @ 00000100 n 0000 | a rare word here\n",
    ]
)
INDEX_NOUN = HEADER + "".join(
    [
        "blue n 1 1 @ 1 1 00000200  \n",
        "colour n 1 1 ~ 1 1 00000100  \n",
        "green n 1 1 @ 1 1 00000300  \n",
        "red n 1 1 @ 1 1 00000400  \n",
        "tint n 1 1 @ 1 0 00000500  \n",
    ]
)
DATA_ADJ = HEADER + "".join(
    [
        "00000600 00 a 01 optional 0 001 ! 00000700 a 0101 | not required\n",
        "00000700 00 a 01 obligatory 0 001 ! 00000600 a 0101 | required\n",
    ]
)
INDEX_ADJ = HEADER + "".join(
    [
        "obligatory a 1 1 ! 1 1 00000700  \n",
        "optional a 1 1 ! 1 1 00000600  \n",
    ]
)


@pytest.fixture
def wordnet(tmp_path: Path) -> WordNet:
    for name, text in (
        ("data.noun", DATA_NOUN),
        ("index.noun", INDEX_NOUN),
        ("data.adj", DATA_ADJ),
        ("index.adj", INDEX_ADJ),
    ):
        (tmp_path / name).write_text(text)
    return WordNet(tmp_path)


def test_co_hyponyms_are_common_siblings(wordnet: WordNet) -> None:
    assert wordnet.co_hyponyms("blue") == ["green", "red"]  # "tint" is never tagged: rare
    assert wordnet.co_hyponyms("Blue") == ["green", "red"]
    assert wordnet.co_hyponyms("sky") == []


def test_antonyms(wordnet: WordNet) -> None:
    assert wordnet.antonyms("optional") == ["obligatory"]
    assert wordnet.antonyms("blue") == []


def test_a_folder_without_wordnet_says_how_to_get_it(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="apt-get install wordnet-base"):
        WordNet(tmp_path)
    assert WordNet.find(tmp_path) is None
