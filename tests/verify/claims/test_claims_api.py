"""The public API of veracity.verify.claims, its docstring examples, and the shipped prompts."""

from __future__ import annotations

import dataclasses
import doctest
import importlib

import pytest

import veracity.verify.claims
from veracity.prompts import available, load_prompt
from veracity.types import Claim, ClaimSet, SkippedSentence, Span
from veracity.verify.claims import ClaimExtractor

pytestmark = pytest.mark.unit

MODULES = [
    "decompose",
    "decontextualize",
    "draft",
    "extractor",
    "filter",
    "llm",
    "split",
]


def test_public_api_is_pinned() -> None:
    assert sorted(veracity.verify.claims.__all__) == sorted(
        [
            "ON_ERROR",
            "ClaimExtractor",
            "ClaimSentence",
            "Draft",
            "LLMDecomposer",
            "LLMDecontextualizer",
            "OnError",
            "Part",
            "RuleDecomposer",
            "RuleDecontextualizer",
            "parse_decomposition",
            "parse_decontextualization",
            "sentence_skip_reason",
            "split_answer",
        ]
    )
    for name in veracity.verify.claims.__all__:
        assert hasattr(veracity.verify.claims, name), name


@pytest.mark.parametrize("name", ["__init__", *MODULES])
def test_every_module_shows_an_example(name: str) -> None:
    """The examples run with the package's doctests (``--doctest-modules``); here: each has one."""
    module = (
        veracity.verify.claims
        if name == "__init__"
        else importlib.import_module(f"veracity.verify.claims.{name}")
    )
    assert any(test.examples for test in doctest.DocTestFinder().find(module)), name


@pytest.mark.parametrize(
    ("prompt_id", "fields"),
    [
        ("decompose_v1", ("sentences",)),
        ("decontextualize_v1", ("answer", "claims", "count")),
    ],
)
def test_claim_prompts_ship_with_id_version_and_fields(
    prompt_id: str, fields: tuple[str, ...]
) -> None:
    prompt = load_prompt(prompt_id)
    assert prompt_id in available()
    assert (prompt.id, prompt.version, prompt.ref) == (prompt_id, 1, f"{prompt_id}@1")
    assert prompt.fields == fields
    assert "JSON" in prompt.system
    assert '"claims"' in prompt.reply_format
    rendered = prompt.render(**{field: f"<{field} {{x}}>" for field in fields})
    assert '{"claims": [' in rendered  # the template's literal braces survive rendering
    for field in fields:
        assert f"<{field} {{x}}>" in rendered


def test_results_are_frozen() -> None:
    result = ClaimExtractor().run("Bees dance. What else?")
    assert isinstance(result, ClaimSet)
    claim = result.claims[0]
    skipped = result.skipped[0]
    assert isinstance(claim, Claim)
    assert isinstance(skipped, SkippedSentence)
    for value in (result, claim, skipped):
        field = dataclasses.fields(value)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, None)
    assert skipped == SkippedSentence(1, Span(12, 22), "What else?", "question")
