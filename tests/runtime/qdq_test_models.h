// Helpers of the QDQ execution tests: random 8-bit tensors, quantization parameters, dequantized
// weights, and the comparison of a fused session with the literal one.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "runtime/session.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace qdq_test {

using testing::ModelBuilder;

inline onnx::AttributeProto IntsAttr(const std::string& name, std::initializer_list<int64_t> v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a.add_ints(x);
  return a;
}
inline onnx::AttributeProto IntAttr(const std::string& name, int64_t v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}

inline onnx::AttributeProto FloatAttr(const std::string& name, float v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(v);
  return a;
}

inline Tensor Random8(std::mt19937& rng, DataType t, Shape shape) {
  Tensor x(t, std::move(shape));
  std::uniform_int_distribution<int> byte(0, 255);
  for (int64_t i = 0; i < x.size(); ++i) static_cast<uint8_t*>(x.raw())[i] = static_cast<uint8_t>(byte(rng));
  return x;
}
inline Tensor Floats(std::mt19937& rng, Shape shape, float lo, float hi) {
  Tensor s(DataType::kFloat, std::move(shape));
  std::uniform_real_distribution<float> d(lo, hi);
  for (int64_t i = 0; i < s.size(); ++i) s.data<float>()[i] = d(rng);
  return s;
}

// DequantizeLinear of a constant 8-bit weight `name` with its scale and zero point (per channel along
// `axis` when `channels` > 0), written as `name`/dq.
inline void Weight(ModelBuilder& b, std::mt19937& rng, const std::string& name, DataType t, Shape shape, int64_t channels,
            int64_t axis) {
  b.Initializer(name, Random8(rng, t, shape));
  const Shape ps = channels > 0 ? Shape{channels} : Shape{};
  b.Initializer(name + "/scale", Floats(rng, ps, 0.002f, 0.02f));
  b.Initializer(name + "/zp", Tensor(t, ps));  // symmetric weights
  auto& n = b.Node("DequantizeLinear", {name, name + "/scale", name + "/zp"}, {name + "/dq"});
  n.add_attribute()->CopyFrom(IntAttr("axis", axis));
}

// Activation quantization parameters `name`/scale and `name`/zp.
inline void Params(ModelBuilder& b, const std::string& name, float scale, const Tensor& zp) {
  b.Initializer(name + "/scale", Tensor::Scalar<float>(scale));
  b.Initializer(name + "/zp", zp);
}

inline int Count(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op_type == op;
  return n;
}

// The outputs of `graph` on `feeds`, run with its QDQ groups fused and literally.
struct FusedAndLiteral {
  std::vector<Tensor> fused, literal;
  QdqFusionCount count;
};
inline FusedAndLiteral RunBoth(const std::shared_ptr<const Graph>& graph, const std::map<std::string, Tensor>& feeds) {
  Session fused(graph, SessionOptions{false}), literal(graph, SessionOptions{true});
  return {fused.Run(feeds), literal.Run(feeds), fused.fused()};
}

// The largest difference between two 8-bit tensors of one shape, in units; *differ counts the elements
// that differ.
inline double MaxUnitsApart(const Tensor& got, const Tensor& want, int64_t* differ) {
  EXPECT_EQ(got.dtype(), want.dtype());
  EXPECT_EQ(got.shape(), want.shape());
  double worst = 0;
  *differ = 0;
  for (int64_t i = 0; i < want.size() && i < got.size(); ++i) {
    const double d = std::abs(got.GetAsDouble(i) - want.GetAsDouble(i));
    worst = std::max(worst, d);
    *differ += d != 0;
  }
  return worst;
}

}  // namespace qdq_test
}  // namespace ptq
