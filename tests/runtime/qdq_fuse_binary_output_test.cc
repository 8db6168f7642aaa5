// A float Add / Mul whose only reader is QuantizeLinear runs as one AddQuantizeLinear / MulQuantizeLinear: the
// literal evaluation's bits for every broadcast form (short runs per channel, long runs over many blocks, a
// scalar), NaN, infinities and saturation included, on one and two threads; not fused where the float is read.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "tests/runtime/qdq_test_models.h"

namespace ptq {
namespace {

using namespace qdq_test;

// Shapes: x [2, 6, 5, 40] (channels last) times a gate [2, 1, 1, 40] (runs of 40 channels over two outer axes),
// into int8; x + r of one shape [3, 700] (one run of 2100 values, over three blocks) into uint8; x times a
// constant scalar; an int32 Add; a Mul that a float node also reads and a Mul that is a graph output (both stay).
std::shared_ptr<const Graph> BinaryOutputModel(Shape x_shape, Shape gate_shape) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, x_shape);
  b.Input("gate", DataType::kFloat, gate_shape);
  b.Input("u", DataType::kFloat, {3, 700});
  b.Input("v", DataType::kFloat, {3, 700});
  b.Input("i", DataType::kInt32, {4, 9});
  b.Input("j", DataType::kInt32, {4, 1});
  Params(b, "q8", 0.02f, Tensor::Scalar<int8_t>(-3));
  Params(b, "u8", 0.05f, Tensor::Scalar<uint8_t>(128));
  Params(b, "i8", 3.0f, Tensor::Scalar<int8_t>(0));
  b.Initializer("k", Tensor::Scalar<float>(-1.75f));
  b.Node("Mul", {"x", "gate"}, {"excited"}, "excite");
  b.Node("QuantizeLinear", {"excited", "q8/scale", "q8/zp"}, {"excited_q"});
  b.Node("Add", {"u", "v"}, {"sum"}, "residual");
  b.Node("QuantizeLinear", {"sum", "u8/scale", "u8/zp"}, {"sum_q"});
  b.Node("Mul", {"k", "x"}, {"scaled"}, "scalar_first");
  b.Node("QuantizeLinear", {"scaled", "u8/scale", "u8/zp"}, {"scaled_q"});
  b.Node("Add", {"i", "j"}, {"isum"}, "int32");
  b.Node("QuantizeLinear", {"isum", "i8/scale", "i8/zp"}, {"isum_q"});
  b.Node("Mul", {"x", "x"}, {"square"}, "read_twice");
  b.Node("QuantizeLinear", {"square", "q8/scale", "q8/zp"}, {"square_q"});
  b.Node("Relu", {"square"}, {"square_relu"});
  b.Node("Mul", {"u", "u"}, {"u2"}, "graph_output");
  b.Node("QuantizeLinear", {"u2", "q8/scale", "q8/zp"}, {"u2_q"});
  for (const char* o : {"excited_q", "sum_q", "scaled_q", "isum_q", "square_q", "square_relu", "u2", "u2_q"}) {
    b.Output(o, DataType::kUndefined);
  }
  return std::make_shared<const Graph>(GraphFromModel(b.model(), "", "binary_output.onnx"));
}

// Floats in [-4, 4] with NaN, infinities and values past the 8-bit ranges at a few places.
Tensor Awkward(std::mt19937& rng, Shape shape) {
  Tensor t = Floats(rng, std::move(shape), -4.0f, 4.0f);
  float* p = t.data<float>();
  const float special[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), 1e6f, -1e6f};
  for (int64_t k = 0; k < 5 && k * 37 < t.size(); ++k) p[k * 37] = special[k];
  return t;
}

std::map<std::string, Tensor> Feeds(std::mt19937& rng, const Shape& x_shape, const Shape& gate_shape) {
  Tensor i(DataType::kInt32, {4, 9}), j(DataType::kInt32, {4, 1});
  std::uniform_int_distribution<int32_t> big(-2000, 2000);
  for (int64_t k = 0; k < i.size(); ++k) i.data<int32_t>()[k] = big(rng);
  for (int64_t k = 0; k < j.size(); ++k) j.data<int32_t>()[k] = big(rng);
  return {{"x", Awkward(rng, x_shape)}, {"gate", Awkward(rng, gate_shape)}, {"u", Awkward(rng, {3, 700})},
          {"v", Awkward(rng, {3, 700})}, {"i", i}, {"j", j}};
}

void ExpectLiteralBits(const Shape& x_shape, const Shape& gate_shape, int threads) {
  std::mt19937 rng(11);
  const auto graph = BinaryOutputModel(x_shape, gate_shape);
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  const FusedAndLiteral r = RunBoth(graph, Feeds(rng, x_shape, gate_shape));
  omp_set_num_threads(before);
  EXPECT_EQ(r.count.binary_outputs, 4);  // excite, residual, scalar_first, int32
  EXPECT_EQ(r.count.total(), 4);
  for (size_t o = 0; o < r.literal.size(); ++o) {
    const Tensor& want = r.literal[o];
    ASSERT_EQ(r.fused[o].dtype(), want.dtype()) << graph->outputs[o].name;
    ASSERT_EQ(r.fused[o].shape(), want.shape()) << graph->outputs[o].name;
    EXPECT_EQ(0, std::memcmp(r.fused[o].raw(), want.raw(), want.nbytes())) << graph->outputs[o].name;
  }
  // Both ends of the ranges are reached (saturation, NaN to qmin), and values between them.
  const Tensor& excited = r.fused[0];
  int64_t low = 0, high = 0, inside = 0;
  for (int64_t k = 0; k < excited.size(); ++k) {
    const double v = excited.GetAsDouble(k);
    low += v == -128;
    high += v == 127;
    inside += v > -128 && v < 127;
  }
  EXPECT_GT(low, 0);
  EXPECT_GT(high, 0);
  EXPECT_GT(inside, excited.size() / 4);
}

TEST(QdqBinaryOutputFusion, GivesTheLiteralBitsOnOneThread) { ExpectLiteralBits({2, 6, 5, 40}, {2, 1, 1, 40}, 1); }

// Large enough to be shared between threads (ElementwiseThreads): 2 x 64 x 32 x 33 outputs in runs of 33.
TEST(QdqBinaryOutputFusion, GivesTheLiteralBitsOnTwoThreads) { ExpectLiteralBits({2, 64, 32, 33}, {2, 1, 1, 33}, 2); }

// A gate along a middle axis ([N, C, 1, 1] against channels first): runs of H x W values, one outer axis.
TEST(QdqBinaryOutputFusion, GivesTheLiteralBitsChannelsFirst) { ExpectLiteralBits({2, 40, 6, 5}, {2, 40, 1, 1}, 1); }

TEST(QdqBinaryOutputFusion, FusedGraphKeepsTheFloatsOthersRead) {
  Session s(BinaryOutputModel({2, 6, 5, 40}, {2, 1, 1, 40}), SessionOptions{false});
  EXPECT_EQ(Count(s.graph(), "MulQuantizeLinear"), 2);  // excite, scalar_first
  EXPECT_EQ(Count(s.graph(), "AddQuantizeLinear"), 2);  // residual, int32
  EXPECT_EQ(Count(s.graph(), "Mul"), 2);                // read_twice, graph_output
  EXPECT_EQ(Count(s.graph(), "QuantizeLinear"), 2);
  EXPECT_EQ(Count(s.graph(), "Add"), 0);
}

}  // namespace
}  // namespace ptq
