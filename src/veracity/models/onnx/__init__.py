"""The ONNX runtime of the shipped networks: one onnxruntime session per model file and padded,
length-bucketed batches (:mod:`~veracity.models.onnx.runtime`), and the rewrite that makes an
int8 export row-independent, so that a score does not depend on its batch
(:mod:`~veracity.models.onnx.rowwise`).
"""
