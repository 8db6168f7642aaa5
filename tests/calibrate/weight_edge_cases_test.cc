// ChooseQuantization on weights that are not ordinary matrices: no elements, a rank the op does not
// expect, and a table weight the model lacks.
#include <gtest/gtest.h>

#include <string>

#include "calibrate/calibrator.h"
#include "runtime/error.h"
#include "runtime/quant_math.h"

namespace ptq {
namespace {

// A graph with one node `op` reading input x and weight w (a float constant of `shape`, values i % 5 - 2).
Graph OneWeight(const std::string& op, const Shape& shape) {
  Graph g;
  g.source = "edge.onnx";
  Tensor w(DataType::kFloat, shape);
  for (int64_t i = 0; i < w.size(); ++i) w.data<float>()[i] = static_cast<float>(i % 5) - 2.0f;
  g.constants["w"] = w;
  Node n;
  n.op_type = op;
  n.name = "n";
  n.inputs = {"x", "w"};
  n.outputs = {"y"};
  g.nodes.push_back(n);
  return g;
}

CalibratedTensor ChooseWeight(const Graph& g) {
  CalibrationResult r;
  r.tensors["w"].role = TensorRole::kWeight;
  ChooseQuantization(g, CalibrationOptions(), &r);  // int8, symmetric, per channel
  return r.tensors["w"];
}

TEST(WeightEdgeCases, WeightWithoutElementsGetsOnePerTensorScale) {
  for (const Shape& shape : {Shape{0, 4}, Shape{4, 0}, Shape{0, 3, 3, 3}}) {
    SCOPED_TRACE(ShapeToString(shape));
    const CalibratedTensor t = ChooseWeight(OneWeight(shape.size() == 4 ? "Conv" : "MatMul", shape));
    EXPECT_EQ(t.axis, -1);
    ASSERT_EQ(t.scales.size(), 1u);
    const QuantParams zero = ChooseQuantParams(0.0f, 0.0f, DataType::kInt8, true);
    EXPECT_EQ(t.scales[0], zero.scale);
    EXPECT_EQ(t.zero_points, std::vector<int32_t>{zero.zero_point});
    EXPECT_EQ(t.range_min, 0.0f);
    EXPECT_EQ(t.range_max, 0.0f);
  }
}

TEST(WeightEdgeCases, PerChannelAxisFollowsTheOp) {
  // MatMul [3, 4]: 4 columns (values i % 5 - 2 by row-major index; column 0 holds -2, 2, 1).
  CalibratedTensor t = ChooseWeight(OneWeight("MatMul", {3, 4}));
  EXPECT_EQ(t.axis, 1);
  ASSERT_EQ(t.scales.size(), 4u);
  EXPECT_EQ(t.scales[0], ChooseQuantParams(-2.0f, 2.0f, DataType::kInt8, true).scale);
  // A scalar Conv weight and a rank-1 Gemm weight have no channel axis: per tensor.
  t = ChooseWeight(OneWeight("Conv", {}));
  EXPECT_EQ(t.axis, -1);
  EXPECT_EQ(t.scales.size(), 1u);
  t = ChooseWeight(OneWeight("Gemm", {6}));
  EXPECT_EQ(t.axis, -1);
  EXPECT_EQ(t.scales.size(), 1u);
}

TEST(WeightEdgeCases, TableWeightTheModelLacksIsAnInputError) {
  const Graph g = OneWeight("MatMul", {3, 4});
  CalibrationResult r;
  r.tensors["v"].role = TensorRole::kWeight;
  try {
    ChooseQuantization(g, CalibrationOptions(), &r);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    EXPECT_NE(std::string(e.what()).find("names weight 'v', which is not a float constant of edge.onnx"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ptq
