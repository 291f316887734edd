"""Framework documents to veracity passages: exact spans kept, others cut as an index cuts."""

from __future__ import annotations

import pytest

from veracity.adapters.passages import PROVENANCE, Foreign, passage_metadata, passages
from veracity.errors import InputError
from veracity.types import Chunk

pytestmark = pytest.mark.unit


def test_a_passage_veracity_returned_comes_back_exactly() -> None:
    chunk = Chunk(
        "guide.md#3",
        "guide.md",
        3,
        "Bees dance.",
        120,
        131,
        title="Guide",
        section=("Bees",),
        page=2,
        page_end=2,
    )
    assert passages([Foreign(chunk.text, passage_metadata(chunk), "any")]) == (chunk,)


def test_other_documents_are_named_by_id_then_source_then_position() -> None:
    found = passages(
        [
            Foreign("Bees dance.", {}, "doc-7"),
            Foreign("Wasps sting.", {"source": "wasps.txt"}, None),
            Foreign("Ants march.", {}, None),
        ]
    )
    assert [chunk.doc_id for chunk in found] == ["doc-7", "wasps.txt", "document-3"]


def test_a_passage_whose_text_changed_is_refused_with_the_fix() -> None:
    chunk = Chunk("guide.md#0", "guide.md", 0, "Bees dance.", 0, 11)
    with pytest.raises(InputError, match=f"'{PROVENANCE}' metadata is not a veracity passage"):
        passages([Foreign("Bees dance well.", passage_metadata(chunk), None)])


@pytest.mark.parametrize("documents", [[], [Foreign("  ", {}, None)]])
def test_no_documents_or_an_empty_one_is_refused(documents: list[Foreign]) -> None:
    with pytest.raises(InputError, match=r"no documents given|has no text"):
        passages(documents)
