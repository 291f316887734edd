"""Every span the knowledge rules report lies inside its own text: a claim's span inside the
claim, an evidence span and its sentence inside the passage's document, on many inputs."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veracity.rules.layer import KnowledgeLayer
from veracity.rules.polarity import polarity_conflicts
from veracity.types import Chunk, Claim, Span

pytestmark = pytest.mark.unit

WORDS = (
    "the tower bridge museum file files archive frontend lock opens closes open closed not "
    "never no does is was will by default overwrite existing before after all some most few "
    "always sometimes 1889 1,200 3.5 GiB 60% $5 million 20 Sept 2022 March 2019 version 1.2.13 "
    "--force -R /etc/passwd gzip-1.12 origi-\nnal don’t can't increase decreases , ; : . "
    "“quoted” 'name' `code` (see) – 21 days ten minutes an hour"
).split(" ")
texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=40).map(" ".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(claim=texts, premise=texts, offset=st.integers(min_value=0, max_value=50))
def test_every_span_lies_inside_its_own_text(claim: str, premise: str, offset: int) -> None:
    document = "x" * offset + premise
    chunk = Chunk("d#0", "d", 0, premise, offset, offset + len(premise))
    # ner="rules": no spaCy parse per example (the roles rule has its own span tests)
    result = KnowledgeLayer(entities=False, ner="rules").run(
        [Claim(0, claim, Span(0, len(claim)), 0)], [[chunk]]
    )
    checks = [*result.values[0], *polarity_conflicts(claim, premise, doc_id="d", offset=offset)]
    for check in checks:
        assert 0 <= check.span.start <= check.span.end <= len(claim)
        assert check.span.of(claim) == check.text
        if check.evidence is not None:
            assert offset <= check.evidence.start <= check.evidence.end <= len(document)
            assert check.evidence.of(document) == check.found
        sentence = getattr(check, "sentence", None)
        if sentence is not None:
            assert offset <= sentence.start <= sentence.end <= len(document)
            assert check.evidence is not None
            assert sentence.start <= check.evidence.start
            assert check.evidence.end <= sentence.end
