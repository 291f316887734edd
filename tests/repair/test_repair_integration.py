"""Repair with the shipped verifier on the sample corpus's waggle-dance page."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity.config import RepairConfig
from veracity.repair import make_repairer
from veracity.types import Chunk
from veracity.verify import make_verifier, source_chunks, source_documents

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "examples" / "sample_corpus" / "biology" / "waggle_dance.md"
ANSWER = (ROOT / "examples" / "answer_to_check.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def sources() -> tuple[Chunk, ...]:
    return source_chunks(source_documents([SOURCE]))


def test_revise_corrects_the_nobel_year_and_flags_the_bumblebee_claim(
    sources: tuple[Chunk, ...],
) -> None:
    result = make_repairer(make_verifier("embedded"), sources=sources).run(ANSWER)
    assert "in 1973." in result.text
    assert "1983" not in result.text
    edit, *quoted = result.edits
    assert (edit.before, edit.after, edit.method) == ("1983", "1973", "value_substitution@1")
    assert edit.evidence
    assert edit.evidence[0].doc_id.endswith("waggle_dance.md")
    # A claim the verifier falsely contradicts (0.5.0 did so with the true round-dance
    # sentence) is replaced by the source's own sentence, word for word, never by anything the
    # source does not say.
    document = SOURCE.read_text(encoding="utf-8")
    for other in quoted:
        assert other.method == "quotation@1"
        assert other.after in document
    bumblebees = next(item for item in result.claims if "bumblebees" in item.claim.text)
    assert bumblebees.action == "flagged"
    assert result.attribution_after.supported > result.attribution_before.supported
    assert result.calls.get("chat", 0) == 0


def test_the_true_frisch_claim_is_kept(sources: tuple[Chunk, ...]) -> None:
    result = make_repairer(make_verifier("embedded"), sources=sources).run(ANSWER)
    actions = {item.claim.text: item.action for item in result.claims}
    assert (
        actions["The waggle dance was decoded by the Austrian zoologist Karl von Frisch."] == "kept"
    )


def test_delete_cuts_the_bumblebee_claim(sources: tuple[Chunk, ...]) -> None:
    result = make_repairer(
        make_verifier("embedded"), RepairConfig().with_options(policy="delete"), sources=sources
    ).run(ANSWER)
    assert "bumblebees" not in result.text
    assert "Karl von Frisch." in result.text
    assert result.original == ANSWER
