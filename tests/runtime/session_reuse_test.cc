// Tests of outputs written over inputs that no one reads again: which buffers a session reuses, and that no value read
// later (by another node, the caller or an observer) changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/graph.h"
#include "runtime/session.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;

// x and y [2, 300]: r = Relu(x) read by two nodes, a = r - Neg(r), m = a * y, s = Sigmoid(m) (a graph output that a
// later node reads too), t = Neg(s), u = t * t (one tensor through both inputs), v = Abs(u) (an output).
std::shared_ptr<const Graph> ChainModel() {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {2, 300}).Input("y", DataType::kFloat, {2, 300});
  b.Output("s", DataType::kFloat).Output("v", DataType::kFloat);
  b.Node("Relu", {"x"}, {"r"}, "relu");
  b.Node("Neg", {"r"}, {"n"}, "neg");
  b.Node("Sub", {"r", "n"}, {"a"}, "sub");
  b.Node("Mul", {"a", "y"}, {"m"}, "mul");
  b.Node("Sigmoid", {"m"}, {"s"}, "sigmoid");
  b.Node("Neg", {"s"}, {"t"}, "neg2");
  b.Node("Mul", {"t", "t"}, {"u"}, "square");
  b.Node("Abs", {"u"}, {"v"}, "abs");
  return std::make_shared<const Graph>(GraphFromModel(b.model(), "", "reuse.onnx"));
}

Tensor Ramp(float start, float step) {
  Tensor t(DataType::kFloat, {2, 300});
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = start + step * static_cast<float>(i % 97) * (i % 2 ? 1 : -1);
  return t;
}

Tensor Copy(const Tensor& t) {
  Tensor c(t.dtype(), t.shape());
  std::memcpy(c.raw(), t.raw(), static_cast<size_t>(t.size()) * 4);
  return c;
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.raw(), b.raw(), static_cast<size_t>(a.size()) * 4) == 0;
}

TEST(SessionReuse, OutputsOverLastReadInputsKeepEveryValueReadLater) {
  Session session(ChainModel());
  const Tensor x = Ramp(0.25f, 0.031f), y = Ramp(-1.5f, 0.017f);
  const Tensor x_copy = Copy(x), y_copy = Copy(y);
  const std::vector<Tensor> got = session.Run({{"x", x}, {"y", y}});
  // Neg over r (r is read again by Sub): no; Sub over r: yes; Mul over a (y is the caller's): yes; Sigmoid over m:
  // yes; Neg over s (an output): no; t * t (t through both inputs): no; Abs over u: yes.
  EXPECT_EQ(session.reused_buffers(), 4);
  EXPECT_TRUE(SameBits(x, x_copy));  // the caller's feeds are untouched
  EXPECT_TRUE(SameBits(y, y_copy));
  // The values of the same run with an observer, which keeps every buffer.
  std::vector<Tensor> seen;
  const std::vector<Tensor> want = session.Run({{"x", x}, {"y", y}}, [&](const Observation& o) { seen.push_back(o.value); });
  EXPECT_EQ(session.reused_buffers(), 0);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(SameBits(got[0], want[0]));
  EXPECT_TRUE(SameBits(got[1], want[1]));
  // And of the definition: s = sigmoid(2 relu(x) y) (a Neg written over r would have made a zero), v = s^2.
  for (int64_t i = 0; i < got[0].size(); ++i) {
    const double m = 2.0 * std::max(0.0f, x.data<float>()[i]) * y.data<float>()[i];
    const double s = 1.0 / (1.0 + std::exp(-m));
    ASSERT_NEAR(got[0].data<float>()[i], s, 1e-6) << i;
    ASSERT_NEAR(got[1].data<float>()[i], s * s, 1e-6) << i;
  }
}

}  // namespace
}  // namespace ptq
