"""The shipped verifier, loaded from the package (integration: real int8 ONNX model)."""

import random

import numpy as np
import pytest

from veracity.errors import ClaimTooLongError, ModelError, OptionError
from veracity.models.pairs.shipped import EmbeddedVerifier

pytestmark = pytest.mark.integration

PREMISE = (
    "Marie Curie was a Polish and naturalised-French physicist and chemist. She was the "
    "first woman to win a Nobel Prize, in 1903, and won a second Nobel Prize, in "
    "Chemistry, in 1911."
)
CLAIMS = [
    "Marie Curie won a Nobel Prize in Chemistry in 1911.",
    "Marie Curie won her second Nobel Prize in 1925.",
]


@pytest.fixture(scope="module")
def verifier() -> EmbeddedVerifier:
    return EmbeddedVerifier().load()


def test_shipped_model_separates_support_from_contradiction(verifier: EmbeddedVerifier) -> None:
    result = verifier.run([PREMISE, PREMISE], CLAIMS)
    supported, changed_year = result.scores
    assert supported.label == "supported"
    assert changed_year.label == "contradicted"
    # Pinned for the shipped 0.6.0 model; re-exporting the verifier updates these values.
    assert supported.supported == pytest.approx(0.911, abs=0.01)
    assert changed_year.supported == pytest.approx(0.025, abs=0.01)
    # P(contradicted) is the network's, through the three-way combiner: the changed year is
    # read as a contradiction, the true claim's stays low.
    assert changed_year.contradicted == pytest.approx(0.964, abs=0.01)
    assert supported.contradicted < 0.2
    assert result.model_id == "veracity-verifier-minilm-l6"
    assert result.model_version.endswith("+combined")


def test_long_premise_is_reduced_to_evidence_not_truncated(verifier: EmbeddedVerifier) -> None:
    filler = " ".join(f"Paragraph {i} is about the weather in spring." for i in range(200))
    premise = filler + " " + PREMISE
    score = verifier.run([premise], [CLAIMS[0]]).scores[0]
    evidence = " ".join(span.of(premise) for span in score.evidence)
    assert "1911" in evidence
    assert score.window.start > len(filler) // 2  # the evidence came from the end
    assert score.supported > 0.5


def test_claim_longer_than_the_window_is_an_error(verifier: EmbeddedVerifier) -> None:
    with pytest.raises(ClaimTooLongError, match="split it"):
        verifier.run([PREMISE], [" ".join(["Curie won prizes"] * 40)])


def test_missing_model_folder_says_how_to_get_one(tmp_path) -> None:
    with pytest.raises(ModelError, match="train-verifier"):
        EmbeddedVerifier(model_dir=tmp_path).load()


def test_a_score_does_not_depend_on_its_batch(verifier: EmbeddedVerifier) -> None:
    """The default reads one pair per forward pass (activations "per_tensor"), so a pair's score
    is the same whatever else the call holds and in whatever order: the guard on that default."""
    premises = [PREMISE, PREMISE, "Bees have six legs."]
    claims = [*CLAIMS, "Bees have legs."]
    together = verifier.run(premises, claims).supported()
    reversed_ = verifier.run(premises[::-1], claims[::-1]).supported()[::-1]
    alone = [
        verifier.run([p], [c]).scores[0].supported for p, c in zip(premises, claims, strict=True)
    ]
    assert together == pytest.approx(alone, abs=1e-12)
    assert reversed_ == pytest.approx(alone, abs=1e-12)


def test_a_batch_above_one_moves_scores_only_within_the_quantization_bound() -> None:
    """Why the default is one pair a pass: in a batch of 4, dynamic int8 quantization scales
    activations over the batch, so scores move, by less than the 0.06 measured; a batch run
    twice gives the same scores."""
    batched = EmbeddedVerifier(batch_size=4).load()
    one = EmbeddedVerifier(batch_size=1).load()
    premises = [PREMISE, PREMISE, "Bees have six legs.", "The moon orbits the earth."]
    claims = [*CLAIMS, "Bees have legs.", "The moon orbits Mars."]
    first = batched.run(premises, claims).supported()
    assert batched.run(premises, claims).supported() == first
    alone = one.run(premises, claims).supported()
    assert max(abs(a - b) for a, b in zip(first, alone, strict=True)) < 0.06


SUBJECTS = ["Marie Curie", "The Danube", "Honey bees", "The Eiffel Tower", "Jupiter"]
FACTS = [
    "won two Nobel Prizes, in 1903 and in 1911",
    "flows through ten countries",
    "dance to show where food is",
    "was finished in 1889 for a world fair",
    "has at least 95 known moons",
]


def _pairs() -> tuple[list[str], list[str]]:
    """Premises from one sentence to several windows long, each with three claims."""
    rng = random.Random(3)
    premises, claims = [], []
    for subject, fact in zip(SUBJECTS, FACTS, strict=True):
        filler = " ".join(
            f"{subject} is mentioned in source {j}." for j in range(rng.randint(0, 9))
        )
        premise = f"{filler} {subject} {fact}. It is well known.".strip()
        for claim in (
            f"{subject} {fact}.",
            f"{subject} never {fact.split(' ', 1)[1]}.",
            f"{subject} is famous.",
        ):
            premises.append(premise)
            claims.append(claim)
    long_premise = " ".join(f"Paragraph {i} is about the weather in spring." for i in range(60))
    premises += [long_premise + " Jupiter has at least 95 known moons.", "Short.", PREMISE]
    claims += ["Jupiter has 95 moons.", "Bees dance.", CLAIMS[1]]
    return premises, claims


def test_per_row_activations_batch_and_every_score_is_the_one_read_alone() -> None:
    """The shipped model rewritten at load (activations "per_row"): random batch compositions
    (repeats included), batch sizes and orders give every score and combiner feature of a pair
    to the bit as it is read alone; the combined scores too."""
    premises, claims = _pairs()
    single = EmbeddedVerifier(activations="per_row", batch_size=1, combine=False).load()
    alone = [single.features([p], [c]) for p, c in zip(premises, claims, strict=True)]
    rng = random.Random(7)
    for trial in range(8):
        chosen = [rng.randrange(len(premises)) for _ in range(rng.randint(2, len(premises) + 4))]
        batch_size = rng.choice([2, 3, 8, 32])
        verifier = EmbeddedVerifier(
            activations="per_row", batch_size=batch_size, combine=False
        ).load()
        scores, matrix = verifier.features(
            [premises[i] for i in chosen], [claims[i] for i in chosen]
        )
        for row, i in enumerate(chosen):
            reference_scores, reference_matrix = alone[i]
            assert scores[row] == reference_scores[0], (trial, batch_size, i)
            assert np.array_equal(matrix[row], reference_matrix[0]), (trial, batch_size, i)
    chosen = rng.sample(range(len(premises)), 6)
    combined_alone = EmbeddedVerifier(activations="per_row", batch_size=1).load()
    batched = (
        EmbeddedVerifier(activations="per_row")
        .load()
        .run([premises[i] for i in chosen], [claims[i] for i in chosen])
    )
    assert list(batched.scores) == [
        combined_alone.run([premises[i]], [claims[i]]).scores[0] for i in chosen
    ]


def test_an_unknown_activation_scheme_is_refused() -> None:
    with pytest.raises(OptionError, match="per_tensor, per_row"):
        EmbeddedVerifier(activations="per_block")  # type: ignore[arg-type]


def test_chat_control_tokens_are_not_read_as_part_of_the_claim(verifier: EmbeddedVerifier) -> None:
    claim = CLAIMS[0]
    marked = [claim + "</s>", claim + "<|im_end|>", claim + " <|eot_id|>", "[/INST] " + claim]
    result = verifier.run([PREMISE] * 5, [claim, *marked])
    plain = result.scores[0].supported
    assert [s.supported for s in result.scores[1:]] == pytest.approx([plain] * 4, abs=1e-9)


def test_no_pairs_give_no_scores(verifier: EmbeddedVerifier) -> None:
    result = verifier.run([], [])
    assert result.scores == ()
    assert result.model_id == "veracity-verifier-minilm-l6"


def test_an_unloaded_verifier_runs_with_its_three_way_combiner() -> None:
    """run() before load(): the combiner's kind (three-way) is read before its features are made
    (make demo's evolve met a 7-feature matrix for the 9-feature combiner)."""
    fresh = EmbeddedVerifier()
    scores = fresh.run([PREMISE], [CLAIMS[1]]).scores
    assert scores[0].label == "contradicted"
    assert fresh.version.endswith("+combined")
