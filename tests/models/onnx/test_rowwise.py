"""Per-row quantization: a row's output is the same to the bit alone and in any batch."""

import json
from pathlib import Path
from typing import Literal

import numpy as np
import onnx
import pytest

from veracity.assets import VERIFIER_DIR, load_tokenizer
from veracity.errors import InputError, ModelError
from veracity.models.onnx.rowwise import float_reference, open_row_independent, rowwise_quantization
from veracity.models.onnx.runtime import session
from veracity.models.pairs.shipped import read_pairs

helper, numpy_helper = onnx.helper, onnx.numpy_helper


def _dense_model(path: Path) -> Path:
    """x (batch, rows, 16) → MatMul → Add → Relu → MatMul, quantized as export.py does."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    rng = np.random.default_rng(0)
    first = numpy_helper.from_array(rng.normal(size=(16, 24)).astype(np.float32), "w1")
    bias = numpy_helper.from_array(rng.normal(size=24).astype(np.float32), "b1")
    second = numpy_helper.from_array(rng.normal(size=(24, 8)).astype(np.float32), "w2")
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w1"], ["h"], name="m1"),
            helper.make_node("Add", ["h", "b1"], ["hb"], name="a1"),
            helper.make_node("Relu", ["hb"], ["r"], name="r1"),
            helper.make_node("MatMul", ["r", "w2"], ["y"], name="m2"),
        ],
        "dense",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["b", "t", 16])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["b", "t", 8])],
        [first, bias, second],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    fp32 = path / "fp32.onnx"
    onnx.save(model, str(fp32))
    quantize_dynamic(
        str(fp32),
        str(path / "int8.onnx"),
        weight_type=QuantType.QInt8,
        per_channel=True,
        reduce_range=True,
    )
    return path / "int8.onnx"


@pytest.mark.unit
@pytest.mark.parametrize("codes", ["uint8", "int8"])
def test_rows_of_a_rewritten_product_do_not_depend_on_each_other(
    tmp_path: Path, codes: Literal["uint8", "int8"]
) -> None:
    model = onnx.load(str(_dense_model(tmp_path)))
    assert rowwise_quantization(model, code_type=codes) == 2
    onnx.checker.check_model(model)
    assert not [n for n in model.graph.node if n.op_type == "DynamicQuantizeLinear"]
    onnx.save(model, str(tmp_path / "rowwise.onnx"))
    rewritten = session(tmp_path / "rowwise.onnx", threads=1)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 7, 16)).astype(np.float32)
    x[2] *= 40  # a batch-mate with a far larger range moved every row under one scale
    (together,) = rewritten.run(["y"], {"x": x})
    for i in range(5):
        (alone,) = rewritten.run(["y"], {"x": x[i : i + 1]})
        assert np.array_equal(alone[0], together[i])
        (one_row,) = rewritten.run(["y"], {"x": x[i : i + 1, 3:4]})
        assert np.array_equal(one_row[0, 0], together[i, 3])
    original = session(tmp_path / "int8.onnx", threads=1)
    (moved,) = original.run(["y"], {"x": x})
    (alone,) = original.run(["y"], {"x": x[:1]})
    assert not np.array_equal(moved[0], alone[0])  # the defect the rewrite removes


@pytest.mark.unit
def test_the_two_activation_codes_compute_the_same_products(tmp_path: Path) -> None:
    source = _dense_model(tmp_path)
    outputs = []
    x = np.random.default_rng(2).normal(size=(3, 4, 16)).astype(np.float32)
    for codes in ("uint8", "int8"):
        model = onnx.load(str(source))
        rowwise_quantization(model, code_type=codes)
        onnx.save(model, str(tmp_path / f"rowwise-{codes}.onnx"))
        outputs.append(
            session(tmp_path / f"rowwise-{codes}.onnx", threads=1).run(["y"], {"x": x})[0]
        )
    reference = onnx.load(str(source))
    assert float_reference(reference) == 2
    onnx.save(reference, str(tmp_path / "float.onnx"))
    (exact,) = session(tmp_path / "float.onnx", threads=1).run(["y"], {"x": x})
    assert np.array_equal(outputs[0], outputs[1])
    assert np.abs(outputs[0] - exact).max() < 0.05 * np.abs(exact).max()


@pytest.mark.unit
def test_a_quantizer_feeding_anything_but_a_product_is_refused() -> None:
    graph = helper.make_graph(
        [
            helper.make_node("DynamicQuantizeLinear", ["x"], ["q", "s", "z"], name="odd"),
            helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], name="back"),
        ],
        "odd",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(InputError, match="'odd' feeds a DequantizeLinear"):
        rowwise_quantization(model)


@pytest.mark.unit
def test_a_missing_model_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not found"):
        open_row_independent(tmp_path / "model.onnx")


# --- the real shipped verifier ------------------------------------------------------------

PREMISES = [
    "Marie Curie won two Nobel Prizes, in 1903 and in 1911. She was born in Warsaw.",
    "Jupiter has at least 95 known moons. " * 3 + "It is the largest planet.",
    "Short.",
]
CLAIMS = ["Marie Curie won two Nobel Prizes.", "Jupiter has 12 moons.", "Bees dance."]


@pytest.mark.integration
def test_the_rewrite_stays_closer_to_the_float_network_than_batch_wide_scales(
    tmp_path: Path,
) -> None:
    """Per-row scales lose less than the export's one scale per tensor, even one pair a pass."""
    model = onnx.load(str(VERIFIER_DIR / "model.onnx"))
    float_reference(model)
    onnx.save(model, str(tmp_path / "float.onnx"))
    sessions = {
        "float": session(tmp_path / "float.onnx", threads=1),
        "rowwise": open_row_independent(VERIFIER_DIR / "model.onnx", threads=1),
        "exported": session(VERIFIER_DIR / "model.onnx", threads=1),
    }
    pairs = [(p, c) for p in PREMISES for c in CLAIMS]
    aligned = bool(json.loads((VERIFIER_DIR / "config.json").read_text()).get("aligner"))
    supported = {}
    for name, model_session in sessions.items():
        logits = read_pairs(
            model_session, load_tokenizer(), pairs, batch_size=1, bucket=None, aligned=aligned
        ).logits
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        supported[name] = shifted[:, 0] / shifted.sum(axis=1)
    rowwise = np.abs(supported["rowwise"] - supported["float"])
    exported = np.abs(supported["exported"] - supported["float"])
    assert rowwise.max() < 0.05
    assert rowwise.mean() < exported.mean()
