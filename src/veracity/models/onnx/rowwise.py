"""Make an int8 ONNX export row-independent: each row's output the same, to the bit, alone and
in any batch.

``quantize_dynamic`` (onnxruntime) puts a ``DynamicQuantizeLinear`` before every integer matrix
product: it quantizes the activations with one scale and zero point for the whole tensor, so a
pair's activations are rounded on a grid set by its batch-mates, and its score moves with them
(by up to 0.06 on the verifier). :func:`rowwise_quantization` replaces each of those nodes by a
quantization of every row (token) on its own: symmetric, scale ``max|x| / 127`` over the last
axis, and a fixed zero point, which onnxruntime's ``MatMulInteger`` needs as a scalar. The
product's integer result is exact, and the per-row scale multiplies it after the weights'
per-channel scale. Every other op of a BERT encoder already works row by row, except attention,
which sums over the padded sequence: the runtime pads each row to a length bucket chosen by its
own length (:func:`veracity.models.onnx.runtime.bucket_width`), so no sum ever sees another row's
length.

The weights keep ``quantize_dynamic``'s per-channel 7-bit range (``reduce_range``): AVX2's u8s8
kernels add pairs of products in 16 bits, which 8-bit activations times 7-bit weights cannot
overflow.

:func:`open_row_independent` loads any exported verifier (or reranker) rewritten in memory (about
0.3 s for the verifier; the file is left as it is), so a model exported before the rewrite
existed, or on another branch, batches too. The rewrite costs speed on CPUs where onnxruntime
fuses the per-tensor quantizer into its integer product (``DynamicQuantizeMatMul``, which takes
one scalar scale): see ``defaults.EMBEDDED_ACTIVATIONS``. Uses the ``onnx`` package.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import numpy as np

from veracity.errors import InputError, ModelError, OptionError
from veracity.models.onnx.runtime import session

__all__ = ["CODE_TYPES", "float_reference", "open_row_independent", "rowwise_quantization"]

CodeType = Literal["uint8", "int8"]
#: ``uint8``: codes 1..255 around a fixed zero point of 128 (onnxruntime's u8s8 kernels, the
#: ones ``quantize_dynamic`` uses); ``int8``: codes -127..127 and no zero point (s8s8 kernels).
CODE_TYPES: tuple[CodeType, ...] = ("uint8", "int8")
_LEVELS = 127.0
_ZERO_POINT = 128
#: A row of zeros gets this scale instead of 0 (its codes are then all the zero point).
_TINY = 1e-30


def _onnx_package() -> Any:
    try:
        import onnx
    except ImportError as exc:  # a core dependency: only a broken install lacks it
        raise ModelError(
            "rewriting a model's quantization needs the package 'onnx', a "
            "dependency of veracity that is not installed: pip install "
            "'onnx>=1.16'"
        ) from exc
    return onnx


def open_row_independent(model_file: Path, *, threads: int = 0) -> Any:
    """An onnxruntime session of ``model_file`` (a ``quantize_dynamic`` export) rewritten in
    memory by :func:`rowwise_quantization`; the file is left as it is. A model without any
    ``DynamicQuantizeLinear`` (a float export) is run as it is."""
    if not model_file.is_file():
        raise ModelError(
            f"ONNX model file not found: {model_file}. Reinstall veracity or pass "
            "the folder of an exported model."
        )
    onnx = _onnx_package()
    try:
        model = onnx.load(str(model_file))
    except Exception as exc:  # onnx raises protobuf's untyped errors
        raise ModelError(f"cannot read ONNX model {model_file}: {exc}") from exc
    rowwise_quantization(model)
    return session(model_file, threads=threads, content=model.SerializeToString())


def _consumers(graph: Any) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            found.setdefault(name, []).append(node)
    return found


def _opset(model: Any) -> int:
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            return int(entry.version)
    raise InputError("the model imports no ai.onnx opset")


def rowwise_quantization(model: Any, *, code_type: CodeType = "uint8") -> int:
    """Rewrite every ``DynamicQuantizeLinear`` of ``model`` (an ``onnx.ModelProto``, changed in
    place) into a per-row quantization (see the module docstring); returns how many.

    Each must feed only ``MatMulInteger`` nodes, whose output goes through ``Cast`` and a
    ``Mul`` by ``scale × weight scale``, as ``quantize_dynamic`` writes them; any other use
    raises :class:`~veracity.errors.InputError` naming the node.
    """
    if code_type not in CODE_TYPES:
        raise OptionError("code_type", code_type, f"one of {', '.join(CODE_TYPES)}")
    onnx = _onnx_package()
    helper, numpy_helper = onnx.helper, onnx.numpy_helper
    graph = model.graph
    consumers = _consumers(graph)
    producers = {out: node for node in graph.node for out in node.output}
    initializers = {init.name for init in graph.initializer}
    opset = _opset(model)
    new_inits: list[Any] = [
        numpy_helper.from_array(np.array(_LEVELS, dtype=np.float32), "rowwise/levels"),
        numpy_helper.from_array(np.array(_TINY, dtype=np.float32), "rowwise/tiny"),
    ]
    new_inits.append(numpy_helper.from_array(np.array([-1], dtype=np.int64), "rowwise/flat"))
    if opset >= 18:
        new_inits.append(
            numpy_helper.from_array(np.array([-1], dtype=np.int64), "rowwise/last_axis")
        )
    replaced: dict[int, list[Any]] = {}
    count = 0
    for index, node in enumerate(graph.node):
        if node.op_type != "DynamicQuantizeLinear":
            continue
        source = node.input[0]
        codes, scale, zero = node.output
        where = f"DynamicQuantizeLinear {node.name!r}"
        for user in consumers.get(codes, []) + consumers.get(zero, []):
            if (
                user.op_type != "MatMulInteger"
                or list(user.input[:1]) != [codes]
                or (len(user.input) > 2 and user.input[2] != zero)
            ):
                raise InputError(
                    f"{where} feeds a {user.op_type} {user.name!r}; only "
                    "MatMulInteger products (quantize_dynamic's) can be rewritten"
                )
        tag = f"rowwise/{count}"
        nodes = _row_quantizer(
            helper, onnx.TensorProto, source, codes, scale, tag, opset, code_type
        )
        if code_type == "uint8":
            new_inits.append(numpy_helper.from_array(np.array(_ZERO_POINT, dtype=np.uint8), zero))
        else:
            for user in consumers.get(codes, []):
                if len(user.input) > 2:
                    user.input[2] = ""  # symmetric int8: no zero point
                while user.input and not user.input[-1]:
                    del user.input[-1]
        replaced[index] = nodes
        for mul in consumers.get(scale, []):
            _reorder_scales(mul, scale, consumers, producers, initializers, where)
        count += 1
    if not count:
        return 0
    rebuilt = []
    for index, node in enumerate(graph.node):
        rebuilt.extend(replaced.get(index, [node]))
    del graph.node[:]
    graph.node.extend(
        _topological(
            rebuilt,
            {i.name for i in graph.input} | initializers | {init.name for init in new_inits},
        )
    )
    graph.initializer.extend(new_inits)
    return count


def _row_quantizer(
    helper: Any,
    types: Any,
    source: str,
    codes: str,
    scale: str,
    tag: str,
    opset: int,
    code_type: CodeType,
) -> list[Any]:
    """Nodes that quantize ``source`` row by row into ``codes``, with the per-row ``scale``.

    The range is ``max(max x, -min x)`` over the last axis (two reductions, no ``Abs`` copy);
    the codes come from one per-axis ``QuantizeLinear`` over the rows flattened to a matrix
    (one fused pass, as ``DynamicQuantizeLinear`` makes) with a zero point of 128 (``uint8``)
    or 0 (``int8``) for every row.
    """

    def reduce(op: str, out: str) -> Any:
        if opset >= 18:  # the reductions took their axes as an attribute before opset 18
            return helper.make_node(
                op, [source, "rowwise/last_axis"], [out], keepdims=1, name=f"{tag}/{op}"
            )
        return helper.make_node(op, [source], [out], axes=[-1], keepdims=1, name=f"{tag}/{op}")

    element = types.UINT8 if code_type == "uint8" else types.INT8
    zero = _ZERO_POINT if code_type == "uint8" else 0
    return [
        reduce("ReduceMax", f"{tag}/max"),
        reduce("ReduceMin", f"{tag}/min"),
        helper.make_node("Neg", [f"{tag}/min"], [f"{tag}/neg_min"], name=f"{tag}/Neg"),
        helper.make_node(
            "Max",
            [f"{tag}/max", f"{tag}/neg_min", "rowwise/tiny"],
            [f"{tag}/range"],
            name=f"{tag}/Max",
        ),
        helper.make_node("Div", [f"{tag}/range", "rowwise/levels"], [scale], name=f"{tag}/Scale"),
        helper.make_node("Flatten", [source], [f"{tag}/rows"], axis=-1, name=f"{tag}/Flatten"),
        helper.make_node(
            "Reshape", [scale, "rowwise/flat"], [f"{tag}/row_scales"], name=f"{tag}/RowScales"
        ),
        helper.make_node("Shape", [f"{tag}/row_scales"], [f"{tag}/count"], name=f"{tag}/Count"),
        helper.make_node(
            "ConstantOfShape",
            [f"{tag}/count"],
            [f"{tag}/zeros"],
            value=helper.make_tensor("zero", element, [1], [zero]),
            name=f"{tag}/Zeros",
        ),
        helper.make_node(
            "QuantizeLinear",
            [f"{tag}/rows", f"{tag}/row_scales", f"{tag}/zeros"],
            [f"{tag}/row_codes"],
            axis=0,
            name=f"{tag}/Quantize",
        ),
        helper.make_node("Shape", [source], [f"{tag}/shape"], name=f"{tag}/Shape"),
        helper.make_node(
            "Reshape", [f"{tag}/row_codes", f"{tag}/shape"], [codes], name=f"{tag}/Codes"
        ),
    ]


def _reorder_scales(
    mul: Any,
    scale: str,
    consumers: dict[str, list[Any]],
    producers: dict[str, Any],
    initializers: set[str],
    where: str,
) -> None:
    """``y = Cast(product) × Mul(scale, weight_scale)`` becomes ``y = (Cast(product) ×
    weight_scale) × scale``: the per-row scale is a column, and multiplying it into the weight
    scales first would build a whole (rows × columns) tensor of scales."""
    if mul.op_type != "Mul" or len(mul.input) != 2:
        raise InputError(
            f"{where}: its scale feeds a {mul.op_type} {mul.name!r}, not the Mul by "
            "the weight scale"
        )
    weight_scale = mul.input[1] if mul.input[0] == scale else mul.input[0]
    if weight_scale not in initializers:
        raise InputError(
            f"{where}: its scale is multiplied by {weight_scale!r}, which is not a "
            "weight scale (an initializer)"
        )
    (combined,) = mul.output
    users = consumers.get(combined, [])
    if len(users) != 1 or users[0].op_type != "Mul":
        raise InputError(f"{where}: the scale product {combined!r} does not feed one Mul")
    (apply,) = users
    product = apply.input[1] if apply.input[0] == combined else apply.input[0]
    cast = producers.get(product)
    if (
        cast is None
        or cast.op_type != "Cast"
        or producers.get(cast.input[0]) is None
        or producers[cast.input[0]].op_type != "MatMulInteger"
    ):
        raise InputError(
            f"{where}: the scale product multiplies {product!r}, not the cast "
            "output of a MatMulInteger"
        )
    partial = f"{combined}/weight_scaled"
    mul.input[:] = [product, weight_scale]
    mul.output[:] = [partial]
    apply.input[:] = [partial, scale]


def _topological(nodes: list[Any], available: Iterable[str]) -> list[Any]:
    """``nodes`` in an order where every input is made before it is read (stable otherwise)."""
    ready = set(available) | {""}
    made = {out for node in nodes for out in node.output}
    pending = list(nodes)
    ordered: list[Any] = []
    while pending:
        waiting = []
        for node in pending:
            if all(name in ready or name not in made for name in node.input):
                ordered.append(node)
                ready.update(node.output)
            else:
                waiting.append(node)
        if len(waiting) == len(pending):
            raise InputError(f"the rewritten graph has a cycle at {waiting[0].name!r}")
        pending = waiting
    return ordered


def float_reference(model: Any) -> int:
    """Replace every quantized product of a ``quantize_dynamic`` export (``model``, changed in
    place) by a float ``MatMul`` with its dequantized weights: the same network with float
    activations, the reference both quantizations are measured against. Returns how many."""
    onnx = _onnx_package()
    helper, numpy_helper = onnx.helper, onnx.numpy_helper
    graph = model.graph
    consumers = _consumers(graph)
    producers = {out: node for node in graph.node for out in node.output}
    weights = {init.name: init for init in graph.initializer}
    dropped: set[str] = set()
    made: dict[str, Any] = {}
    added: list[Any] = []
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        quantizer = producers[node.input[0]]
        if quantizer.op_type != "DynamicQuantizeLinear":
            raise InputError(
                f"MatMulInteger {node.name!r} reads {quantizer.op_type} output, "
                "not a DynamicQuantizeLinear's: not a quantize_dynamic export"
            )
        (cast,) = consumers[node.output[0]]
        (apply,) = consumers[cast.output[0]]
        combined = apply.input[1] if apply.input[0] == cast.output[0] else apply.input[0]
        scales = producers[combined]
        weight_scale = (
            scales.input[1] if scales.input[0] == quantizer.output[1] else scales.input[0]
        )
        name = f"{node.input[1]}/dequantized"
        if name not in made:
            codes = numpy_helper.to_array(weights[node.input[1]]).astype(np.float32)
            zero = (
                numpy_helper.to_array(weights[node.input[3]]).astype(np.float32)
                if len(node.input) > 3 and node.input[3]
                else np.float32(0)
            )
            scale = numpy_helper.to_array(weights[weight_scale]).astype(np.float32)
            made[name] = numpy_helper.from_array(((codes - zero) * scale).astype(np.float32), name)
        added.append(
            helper.make_node(
                "MatMul", [quantizer.input[0], name], [apply.output[0]], name=f"{node.name}/float"
            )
        )
        for part in (node, cast, apply, scales, quantizer):
            if not part.name:
                raise InputError(f"a {part.op_type} node of the model has no name")
            dropped.add(part.name)
    kept = [node for node in graph.node if node.name not in dropped]
    del graph.node[:]
    graph.initializer.extend(made.values())
    graph.node.extend(
        _topological(
            kept + added, {i.name for i in graph.input} | {init.name for init in graph.initializer}
        )
    )
    used = {name for node in graph.node for name in node.input}
    unused = [init for init in graph.initializer if init.name not in used]
    for init in unused:
        graph.initializer.remove(init)
    return len(added)
