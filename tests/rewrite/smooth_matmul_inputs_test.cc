// SmoothQuant on the float model: which activations qualify, the factors by their formula, the model's
// outputs kept, the factor folded into a LayerNorm where every reader is smoothed, and float readers
// (a residual Add) still reading the unsmoothed values.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "rewrite/smooth_matmul_inputs.h"
#include "runtime/error.h"
#include "runtime/graph.h"
#include "runtime/session.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;

// w1 rows' largest |value|: 2, 0.5, 1, 1 (w2's are smaller: w1 sets the maximum).
Tensor W1() { return Tensor::FromVector<float>({4, 3}, {2, -1, 0, 0.5f, 0.25f, 0, -1, 0.5f, 0, 1, 0, 0.25f}); }
Tensor W2() { return Tensor::FromVector<float>({4, 2}, {0.5f, 0, 0.25f, 0.125f, 0.5f, 0, 0.25f, 0.5f}); }

// x [N, 4] -> LayerNormalization (or its opset-13 decomposition ending in Mul(gamma), Add(beta)) -> X ->
// MatMul w1 -> y1, MatMul w2 -> y2 [, Add(X, x) -> r: a residual that reads X in float]
ModelBuilder Encoder(bool decomposed, bool residual) {
  ModelBuilder m(17);
  m.Input("x", DataType::kFloat, {-1, 4}).Output("y1", DataType::kFloat).Output("y2", DataType::kFloat);
  m.Initializer("gamma", Tensor::FromVector<float>({4}, {1.5f, 0.5f, 2, 1}));
  m.Initializer("beta", Tensor::FromVector<float>({4}, {0.1f, -0.2f, 0.3f, 0}));
  m.Initializer("w1", W1()).Initializer("w2", W2());
  if (decomposed) {
    m.Node("ReduceMean", {"x"}, {"mean"}, "mean").add_attribute()->CopyFrom([] {
      onnx::AttributeProto a;
      a.set_name("axes");
      a.set_type(onnx::AttributeProto::INTS);
      a.add_ints(-1);
      return a;
    }());
    m.Node("Sub", {"x", "mean"}, {"centered"}, "sub");
    m.Node("Mul", {"centered", "gamma"}, {"scaled"}, "mul_gamma");
    m.Node("Add", {"scaled", "beta"}, {"X"}, "add_beta");
  } else {
    m.Node("LayerNormalization", {"x", "gamma", "beta"}, {"X"}, "ln");
  }
  m.Node("MatMul", {"X", "w1"}, {"y1"}, "mm1");
  m.Node("MatMul", {"X", "w2"}, {"y2"}, "mm2");
  if (residual) {
    m.Node("Add", {"X", "x"}, {"r"}, "residual");
    m.Output("r", DataType::kFloat);
  }
  return m;
}

std::vector<Tensor> RunModel(const onnx::ModelProto& model) {
  auto g = std::make_shared<const Graph>(GraphFromModel(model, ".", "test"));
  Session s(g);
  Tensor x = Tensor::FromVector<float>({3, 4}, {9, -1, 0.5f, 2, -3, 4, 1, 0, 0.25f, 0.5f, 7, -6});
  return s.Run({{"x", x}});
}

void ExpectSameOutputs(const onnx::ModelProto& a, const onnx::ModelProto& b) {
  const auto ya = RunModel(a), yb = RunModel(b);
  ASSERT_EQ(ya.size(), yb.size());
  for (size_t k = 0; k < ya.size(); ++k) {
    for (int64_t i = 0; i < ya[k].size(); ++i) {
      // float rounding: a few ulps of values of order 10
      EXPECT_NEAR(ya[k].data<float>()[i], yb[k].data<float>()[i], 1e-5) << "output " << k << " element " << i;
    }
  }
}

int Count(const onnx::ModelProto& m, const std::string& op) {
  int n = 0;
  for (const auto& node : m.graph().node()) n += node.op_type() == op;
  return n;
}

// s[k] = absmax[k]^0.5 / wmax[k]^0.5 with wmax = (2, 0.5, 1, 1): (8, 2, 1, 0) gives 2, 2, 1 and 1 (an
// all-zero activation channel keeps 1).
const std::map<std::string, std::vector<float>> kAbsMax = {{"X", {8, 2, 1, 0}}};

TEST(SmoothMatMulInputs, FactorsFollowTheFormula) {
  ModelBuilder m = Encoder(false, false);
  const auto candidates = SmoothingCandidates(m.model());
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates.at("X"), (std::vector<std::string>{"mm1", "mm2"}));
  const auto f = SmoothingFactors(m.model(), ".", kAbsMax, 0.5);
  ASSERT_EQ(f.count("X"), 1u);
  EXPECT_EQ(f.at("X"), (std::vector<float>{2, 2, 1, 1}));
  // alpha 1: all of the activation's range moves into the weight (s = absmax, zero channel 1).
  EXPECT_EQ(SmoothingFactors(m.model(), ".", kAbsMax, 1.0).at("X"), (std::vector<float>{8, 2, 1, 1}));
}

TEST(SmoothMatMulInputs, FoldedIntoTheLayerNormWhenEveryReaderIsSmoothed) {
  for (bool decomposed : {false, true}) {
    ModelBuilder m = Encoder(decomposed, false);
    onnx::ModelProto after = m.model();
    const auto read = ApplySmoothing(&after, ".", {{"X", {2, 2, 1, 1}}});
    EXPECT_EQ(read.at("X"), "X") << "decomposed " << decomposed;  // no new tensor: gamma and beta carry 1/s
    EXPECT_EQ(Count(after, "Mul"), Count(m.model(), "Mul"));
    ExpectSameOutputs(m.model(), after);
  }
}

TEST(SmoothMatMulInputs, AFloatReaderKeepsTheUnsmoothedValues) {
  ModelBuilder m = Encoder(false, true);
  onnx::ModelProto after = m.model();
  const auto read = ApplySmoothing(&after, ".", {{"X", {2, 2, 1, 1}}});
  ASSERT_NE(read.at("X"), "X");
  EXPECT_EQ(Count(after, "Mul"), 1);
  for (const auto& n : after.graph().node()) {
    if (n.name() == "residual") {
      EXPECT_EQ(n.input(0), "X");
    }
    if (n.name() == "mm1" || n.name() == "mm2") {
      EXPECT_EQ(n.input(0), read.at("X"));
    }
  }
  ExpectSameOutputs(m.model(), after);  // y1, y2 and the residual r
}

TEST(SmoothMatMulInputs, SharedWeightsAndForeignTablesAreRefused) {
  ModelBuilder m = Encoder(false, false);
  m.Node("MatMul", {"x", "w1"}, {"y3"}, "mm3");  // w1 is now shared: mm1 no longer qualifies
  m.Output("y3", DataType::kFloat);
  EXPECT_EQ(SmoothingCandidates(m.model()).at("X"), (std::vector<std::string>{"mm2"}));
  onnx::ModelProto after = m.model();
  try {
    ApplySmoothing(&after, ".", {{"not_a_tensor", {1, 1, 1, 1}}});
    FAIL() << "expected an input error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    EXPECT_NE(std::string(e.what()).find("not_a_tensor"), std::string::npos) << e.what();
  }
  try {
    ApplySmoothing(&after, ".", {{"X", {1, 1, 1}}});
    FAIL() << "expected an input error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("3 factors"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ptq
