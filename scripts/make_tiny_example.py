#!/usr/bin/python3
"""Writes tests/data/tiny_qlinear_matmul: a float input quantized to uint8, a QLinearMatMul with int8
weights, dequantized to float; plus one input .npy. Deterministic (seeded)."""
import os
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "tiny_qlinear_matmul")
rng = np.random.default_rng(7)
w = rng.integers(-127, 128, size=(16, 8), dtype=np.int8)
inits = [
    numpy_helper.from_array(np.array(0.02, np.float32), "x_scale"),
    numpy_helper.from_array(np.array(128, np.uint8), "x_zero_point"),
    numpy_helper.from_array(w, "fc.weight_quantized"),
    numpy_helper.from_array(np.array(0.01, np.float32), "fc.weight_scale"),
    numpy_helper.from_array(np.array(0, np.int8), "fc.weight_zero_point"),
    numpy_helper.from_array(np.array(0.05, np.float32), "y_scale"),
    numpy_helper.from_array(np.array(120, np.uint8), "y_zero_point"),
]
nodes = [
    helper.make_node("QuantizeLinear", ["input:0", "x_scale", "x_zero_point"], ["x_q"], name="/input/QuantizeLinear"),
    helper.make_node("QLinearMatMul", ["x_q", "x_scale", "x_zero_point", "fc.weight_quantized", "fc.weight_scale",
                                       "fc.weight_zero_point", "y_scale", "y_zero_point"], ["y_q"], name="/fc/QLinearMatMul"),
    helper.make_node("DequantizeLinear", ["y_q", "y_scale", "y_zero_point"], ["logits"], name="/fc/DequantizeLinear"),
]
graph = helper.make_graph(nodes, "tiny_qlinear_matmul",
                          [helper.make_tensor_value_info("input:0", TensorProto.FLOAT, ["batch", 16])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 8])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="ptq-example")
onnx.checker.check_model(model, full_check=True)
os.makedirs(os.path.join(out, "inputs"), exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
np.save(os.path.join(out, "inputs", "input_0.npy"), rng.standard_normal((4, 16)).astype(np.float32))
print("wrote", out)
