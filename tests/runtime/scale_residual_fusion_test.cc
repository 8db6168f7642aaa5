// Scale-residual fusion: Add(x, Mul(x, s)) in any operand order (PP-OCRv4's RSE layers: x + x * HardSigmoid(...) of
// a squeeze-and-excitation) becomes one ScaleResidual with the bits of the two nodes (but NaNs' signs), channels
// first and last, on any thread count, float32 and integers (which wrap); a product read elsewhere, or an Add of
// something else, stays.
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <random>
#include <string>

#include "runtime/graph.h"
#include "runtime/session.h"
#include "tests/runtime/float_fusion_test_util.h"
#include "tests/runtime/model_builder.h"
#include "tests/runtime/qdq_test_models.h"

namespace ptq {
namespace {

using testing::ExpectSameBits;
using testing::ModelBuilder;
using testing::Values;
using qdq_test::Count;

// A float convolution (the session's channels-last layout takes what follows it) and its squeeze-and-excitation
// scale s [N, C, 1, 1]; then c + c * s, (s * c) + c and c * s + c (its product first). Where the nodes give a NaN
// (inf * 0, a NaN input) the fused node gives a NaN too, but not always of the same sign: which operand's NaN an
// addition of two NaNs returns depends on the order the compiler gave the instruction's operands.
TEST(ScaleResidualFusion, SqueezeExcitationResidualsBecomeOneNodeWithTheSameBits) {
  std::mt19937 rng(8);
  ModelBuilder b(11);
  const Shape shape = {2, 3, 60, 60};  // 57600 outputs of 8 channels a branch: threads share them
  b.Input("x", DataType::kFloat, shape);
  Tensor w(DataType::kFloat, {8, 3, 1, 1});
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (int64_t i = 0; i < w.size(); ++i) w.data<float>()[i] = d(rng);
  b.Initializer("w", w);
  b.Node("Conv", {"x", "w"}, {"c"});
  b.Node("GlobalAveragePool", {"c"}, {"pooled"});
  b.Node("Sigmoid", {"pooled"}, {"s"});
  b.Node("Mul", {"c", "s"}, {"cs"});
  b.Node("Add", {"c", "cs"}, {"y1"});
  b.Node("Mul", {"s", "c"}, {"sc"});
  b.Node("Add", {"sc", "c"}, {"y2"});
  b.Node("Mul", {"c", "s"}, {"cs3"});
  b.Node("Add", {"cs3", "c"}, {"y3"});
  b.Output("y1", DataType::kFloat).Output("y2", DataType::kFloat).Output("y3", DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "se.onnx"));
  ExpectSameBits(g, {{"x", Values(rng, shape)}}, [](const Session& s, bool channels_last, const std::vector<Tensor>&) {
    EXPECT_EQ(s.fused_float().scale_residuals, 3);
    EXPECT_EQ(Count(s.graph(), "ScaleResidual"), 3);
    EXPECT_EQ(Count(s.graph(), "Mul"), 0);
    EXPECT_EQ(Count(s.graph(), "Add"), 0);
    if (channels_last) {
      EXPECT_GT(s.channels_last().convs, 0);
    }
  }, /*any_nan=*/true);
}

// Integers wrap in the one pass as in the two nodes; a product also read elsewhere, and an Add of another tensor,
// stay as written.
TEST(ScaleResidualFusion, IntegersWrapAndOtherReadersStayAsWritten) {
  ModelBuilder b(13);
  b.Input("i", DataType::kInt32, {3, 5}).Input("j", DataType::kInt32, {5});
  b.Input("x", DataType::kFloat, {4, 6}).Input("z", DataType::kFloat, {4, 6});
  b.Node("Mul", {"i", "j"}, {"ij"});
  b.Node("Add", {"ij", "i"}, {"wrapped"});
  b.Node("Mul", {"x", "z"}, {"xz"});
  b.Node("Add", {"x", "xz"}, {"read_twice"});
  b.Node("Mul", {"x", "x"}, {"xx"});
  b.Node("Add", {"xx", "z"}, {"other"});
  b.Output("wrapped", DataType::kInt32).Output("read_twice", DataType::kFloat).Output("xz", DataType::kFloat);
  b.Output("other", DataType::kFloat);
  const auto g = std::make_shared<const Graph>(GraphFromModel(b.model(), "", "se_stays.onnx"));
  Tensor i(DataType::kInt32, {3, 5}), j(DataType::kInt32, {5});
  for (int64_t k = 0; k < i.size(); ++k) {
    i.data<int32_t>()[k] = k % 2 ? std::numeric_limits<int32_t>::max() - static_cast<int32_t>(k) : -7 * k;
  }
  for (int64_t k = 0; k < j.size(); ++k) j.data<int32_t>()[k] = k % 2 ? 65537 : -3;
  std::mt19937 rng(9);
  ExpectSameBits(g, {{"i", i}, {"j", j}, {"x", Values(rng, {4, 6})}, {"z", Values(rng, {4, 6})}},
                 [](const Session& s, bool, const std::vector<Tensor>& want) {
                   EXPECT_EQ(s.fused_float().scale_residuals, 1);  // the integer one
                   EXPECT_EQ(Count(s.graph(), "Add"), 2);
                   // Wrapped: (max - 1) * 65537 + (max - 1) modulo 2^32.
                   const uint32_t v = static_cast<uint32_t>(std::numeric_limits<int32_t>::max() - 1);
                   EXPECT_EQ(want[0].data<int32_t>()[1], static_cast<int32_t>(v * 65537u + v));
                 });
}

}  // namespace
}  // namespace ptq
