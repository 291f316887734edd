"""The LangChain adapter with the real langchain-core, offline: retriever and verify runnable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda

from veracity.adapters.langchain import VeracityRetriever, VerifyAnswer
from veracity.errors import InputError, OptionError
from veracity.testing import TablePairScorer

from .conftest import RIGHT, SOURCE, WRONG

pytestmark = pytest.mark.unit


def test_the_retriever_returns_documents_with_their_exact_spans(index_dir: Path) -> None:
    docs = VeracityRetriever(index=str(index_dir), mode="bm25", k=1).invoke("Frisch Nobel Prize")
    assert len(docs) == 1
    meta = docs[0].metadata
    assert meta["doc_id"] == "frisch.md"
    text = (index_dir.parent / "docs" / "frisch.md").read_text(encoding="utf-8")
    assert text[meta["start"] : meta["end"]] == docs[0].page_content
    assert meta["rank"] == 1


def test_a_chain_s_answer_is_verified_against_its_retrieved_documents(
    index_dir: Path, scorer: TablePairScorer
) -> None:
    retriever = VeracityRetriever(index=str(index_dir), mode="bm25", k=1)
    chain: Any = RunnableLambda(
        lambda q: {"input": q, "context": retriever.invoke(q), "answer": WRONG}
    ) | VerifyAnswer(verifier=scorer)
    out = chain.invoke("When did Frisch win the Nobel Prize?")
    assert out["grounded"] is False
    claim = out["verification"]["claims"][0]
    assert claim["label"] == "contradicted"
    assert claim["evidence"][0]["doc_id"] == "frisch.md"  # the index's passage, kept exactly
    assert "the source frisch.md" in out["explanation"]  # 1983 against the passage's 1973


def test_repair_replaces_the_answer_and_keeps_the_original(scorer: TablePairScorer) -> None:
    out = VerifyAnswer(verifier=scorer, repair="revise").invoke(
        {"answer": WRONG, "documents": [Document(page_content=SOURCE)]}
    )
    assert (out["original_answer"], out["answer"]) == (WRONG, RIGHT)
    assert out["grounded"] is True
    assert out["repair"]["edits"][0]["method"] == "value_substitution@1"


def test_bad_input_and_options_are_refused_by_name(scorer: TablePairScorer) -> None:
    with pytest.raises(InputError, match="under 'context'"):
        VerifyAnswer(verifier=scorer).invoke({"answer": WRONG, "context": [SOURCE]})
    with pytest.raises(OptionError, match="policy"):
        VerifyAnswer(repair="rewrite")
