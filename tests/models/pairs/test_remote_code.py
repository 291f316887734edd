"""RemoteCodeVerifier on a tiny checker with its own code that the test writes (no hub access).

The checker's two Python files and the ``auto_map`` in its config.json are the shape of
HHEM-2.1-open's: a custom ``PreTrainedModel`` whose ``predict(pairs)`` returns one consistency
probability per (premise, hypothesis) pair.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veracity.errors import ModelError, OptionError
from veracity.models.pairs.hf import HFOptions, HFVerifier
from veracity.models.pairs.registry import make_verifier
from veracity.models.pairs.remote_code import RemoteCodeVerifier
from veracity.testing import save_tiny_classifier

pytestmark = pytest.mark.unit

PREMISE = "The Eiffel Tower is in Paris. It was finished in 1889 and is 330 metres tall."
CLAIM = "The Eiffel Tower is in Paris."

CONFIGURATION = """
from transformers import PretrainedConfig


class TinyCheckConfig(PretrainedConfig):
    model_type = "tiny-check"

    def __init__(self, buckets=97, hidden=8, **kwargs):
        super().__init__(**kwargs)
        self.buckets = buckets
        self.hidden = hidden
"""

MODELING = """
import torch
from transformers import PreTrainedModel

from .configuration_tiny import TinyCheckConfig


class TinyCheckModel(PreTrainedModel):
    config_class = TinyCheckConfig

    def __init__(self, config):
        super().__init__(config)
        self.embed = torch.nn.EmbeddingBag(config.buckets, config.hidden, mode="mean")
        self.head = torch.nn.Linear(2 * config.hidden, 1)
        self.post_init()

    def _bags(self, texts):
        ids, offsets = [], []
        for text in texts:
            offsets.append(len(ids))
            ids.extend(sum(map(ord, w)) % self.config.buckets for w in text.split() or [""])
        return self.embed(torch.tensor(ids), torch.tensor(offsets))

    def predict(self, text_pairs):
        premises = self._bags([pair[0] for pair in text_pairs])
        claims = self._bags([pair[1] for pair in text_pairs])
        return torch.sigmoid(self.head(torch.cat([premises, claims], dim=1)))[:, 0]
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A checker with its own code: config.json names its classes under ``auto_map``."""
    pytest.importorskip("transformers")
    from transformers import AutoConfig, AutoModelForSequenceClassification

    folder = tmp_path_factory.mktemp("tiny-code") / "check"
    folder.mkdir()
    (folder / "configuration_tiny.py").write_text(CONFIGURATION)
    (folder / "modeling_tiny.py").write_text(MODELING)
    config = {
        "model_type": "tiny-check",
        "buckets": 97,
        "hidden": 8,
        "auto_map": {
            "AutoConfig": "configuration_tiny.TinyCheckConfig",
            "AutoModelForSequenceClassification": "modeling_tiny.TinyCheckModel",
        },
    }
    (folder / "config.json").write_text(json.dumps(config))
    loaded = AutoConfig.from_pretrained(folder, trust_remote_code=True)
    model = AutoModelForSequenceClassification.from_config(loaded, trust_remote_code=True)
    model.save_pretrained(folder)
    return folder


def _direct(folder: Path, pairs: list[tuple[str, str]]) -> list[float]:
    """The model's own ``predict`` through transformers, without veracity."""
    import torch
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(folder, trust_remote_code=True)
    with torch.no_grad():
        return [float(p) for p in model.eval().predict(pairs)]


def test_hf_refuses_a_model_with_its_own_code_and_names_the_opt_in(folder: Path) -> None:
    with pytest.raises(ModelError) as error:
        HFVerifier(folder, labels="score").load()
    message = str(error.value)
    assert f"hf-code:{folder}" in message
    assert "trust_remote_code=True" in message
    assert "run that code" in message


def test_the_opt_in_is_required_in_python() -> None:
    with pytest.raises(OptionError, match="trust_remote_code"):
        RemoteCodeVerifier("some/model", trust_remote_code=False)


def test_hf_code_scores_with_the_model_s_predict(folder: Path) -> None:
    verifier = make_verifier(f"hf-code:{folder}")
    assert isinstance(verifier, RemoteCodeVerifier)
    claims = [CLAIM, "The Eiffel Tower was finished in 1925.", "Bees dance."]
    result = verifier.run([PREMISE] * 3, claims)
    expected = _direct(folder, [(PREMISE, claim) for claim in claims])
    assert [s.supported for s in result.scores] == pytest.approx(expected, abs=1e-6)
    for score in result.scores:
        assert 0.0 <= score.supported <= 1.0
        assert score.contradicted == 0.0
        assert score.supported + score.neither == pytest.approx(1.0)
        assert (score.window.start, score.window.end) == (0, len(PREMISE))
    assert result.model_id == str(folder)
    assert result.model_version == "local"


def test_windowing_options_it_cannot_honour_are_refused() -> None:
    for options in (HFOptions(max_tokens=64), HFOptions(strategy="slide")):
        with pytest.raises(OptionError, match="predict"):
            RemoteCodeVerifier("some/model", trust_remote_code=True, options=options)


def test_a_pair_scores_the_same_alone_and_in_a_batch(folder: Path) -> None:
    verifier = RemoteCodeVerifier(
        folder, trust_remote_code=True, options=HFOptions(batch_size=3)
    ).load()
    alone = verifier.run([PREMISE], [CLAIM]).scores[0].supported
    premises = ["Short.", PREMISE, PREMISE + " " + PREMISE, "Bees dance in the hive."]
    claims = ["Bees dance.", CLAIM, CLAIM, "Bees sing."]
    batched = verifier.run(premises, claims).scores[1].supported
    assert batched == pytest.approx(alone, abs=1e-6)


def test_a_model_without_code_is_sent_to_hf(tmp_path: Path) -> None:
    plain = save_tiny_classifier(tmp_path / "plain", {0: "LABEL_0"})
    with pytest.raises(ModelError, match=f"hf:{plain}@score"):
        RemoteCodeVerifier(plain, trust_remote_code=True).load()


def test_hf_code_takes_no_preset() -> None:
    with pytest.raises(OptionError, match="without a preset"):
        make_verifier("hf-code:org/model@score")


def test_a_model_not_in_the_cache_says_how_to_fix() -> None:
    pytest.importorskip("transformers")
    with pytest.raises(ModelError, match="local_files_only=False"):
        RemoteCodeVerifier("veracity-tests/no-such-model", trust_remote_code=True).load()
