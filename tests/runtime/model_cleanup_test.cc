// Tests of the clean-up of exported graphs: weights behind Identity, Constant nodes and Transpose become
// initializers, shape arithmetic over static dimensions folds, and the model computes the same values.
#include "runtime/model_cleanup.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>

#include "runtime/session.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;

Tensor Uniform(const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Tensor t(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

onnx::AttributeProto Ints(const std::string& name, std::vector<int64_t> v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a.add_ints(x);
  return a;
}

// x [N, 4] -> MatMul(x, Identity(W)) -> MatMul(., Transpose(W2)) -> MatMul(., Constant node) ->
// Reshape to [N, Gather(Shape(.), 1)] ; an Identity of W is also a graph output and stays.
onnx::ModelProto ExportLikeModel() {
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {-1, 4}).Output("y", DataType::kFloat, {-1, 4}).Output("w_copy", DataType::kFloat, {4, 4});
  b.Initializer("W", Uniform({4, 4}, 1)).Initializer("W2", Uniform({4, 4}, 2));
  b.Initializer("one", Tensor::FromVector<int64_t>({}, {1})).Initializer("zero", Tensor::FromVector<int64_t>({1}, {0}));
  b.Node("Identity", {"W"}, {"W_tied"}, "tie");
  b.Node("Identity", {"W"}, {"w_copy"}, "copy");
  b.Node("MatMul", {"x", "W_tied"}, {"h1"}, "mm1");
  b.Node("Transpose", {"W2"}, {"W2t"}, "transpose").add_attribute()->CopyFrom(Ints("perm", {1, 0}));
  b.Node("MatMul", {"h1", "W2t"}, {"h2"}, "mm2");
  onnx::NodeProto& c = b.Node("Constant", {}, {"W3"}, "const");
  onnx::AttributeProto* value = c.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  TensorToProto(Uniform({4, 4}, 3), "W3", value->mutable_t());
  b.Node("MatMul", {"h2", "W3"}, {"h3"}, "mm3");
  b.Node("Shape", {"h3"}, {"s"}, "shape");
  b.Node("Gather", {"s", "one"}, {"cols"}, "gather");
  b.Node("Unsqueeze", {"cols", "zero"}, {"cols1"}, "unsqueeze");
  onnx::NodeProto& minus_one = b.Node("Constant", {}, {"m1"}, "m1");
  onnx::AttributeProto* mv = minus_one.add_attribute();
  mv->set_name("value");
  mv->set_type(onnx::AttributeProto::TENSOR);
  TensorToProto(Tensor::FromVector<int64_t>({1}, {-1}), "m1", mv->mutable_t());
  b.Node("Concat", {"m1", "cols1"}, {"target"}, "concat").add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("axis");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(0);
    return a;
  }());
  b.Node("Reshape", {"h3", "target"}, {"y"}, "reshape");
  return b.model();
}

std::vector<Tensor> RunModel(const onnx::ModelProto& m, const Tensor& x) {
  Session s(std::make_shared<const Graph>(GraphFromModel(m, ".", "model")));
  return s.Run({{"x", x}});
}

TEST(ModelCleanup, WeightsBehindExportNodesBecomeInitializersAndValuesStayTheSame) {
  const onnx::ModelProto original = ExportLikeModel();
  onnx::ModelProto m = original;
  const CleanupReport r = CleanUpModel(&m, ".");
  EXPECT_EQ(r.constants, 2);
  EXPECT_EQ(r.identities, 1);  // the Identity writing a graph output stays
  EXPECT_GE(r.folded, 3);      // Transpose, Unsqueeze, Concat
  EXPECT_EQ(r.shapes, 1);      // Gather(Shape(h3), 1): h3's column count is static, its batch is not
  std::set<std::string> inits;
  for (const auto& t : m.graph().initializer()) inits.insert(t.name());
  std::map<std::string, const onnx::NodeProto*> by_name;
  for (const auto& n : m.graph().node()) by_name[n.name()] = &n;
  for (const char* mm : {"mm1", "mm2", "mm3"}) {
    ASSERT_TRUE(by_name.count(mm)) << mm;
    EXPECT_TRUE(inits.count(by_name[mm]->input(1))) << mm << " reads " << by_name[mm]->input(1);
  }
  EXPECT_EQ(by_name["mm1"]->input(1), "W");  // the tied weight is the weight itself
  EXPECT_TRUE(by_name.count("copy"));
  EXPECT_FALSE(by_name.count("shape"));  // dead once its Gather folded
  EXPECT_TRUE(inits.count("target"));
  EXPECT_FALSE(inits.count("W2"));  // read only by the folded Transpose
  // The same values, bit for bit, at two batch sizes.
  for (int64_t n : {1, 5}) {
    const Tensor x = Uniform({n, 4}, 7);
    const std::vector<Tensor> a = RunModel(original, x), b = RunModel(m, x);
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) {
      ASSERT_EQ(a[k].shape(), b[k].shape());
      EXPECT_EQ(std::memcmp(a[k].raw(), b[k].raw(), a[k].nbytes()), 0) << k;
    }
  }
}

// A fold that would write a large initializer (ConstantOfShape of a big shape) stays a node.
TEST(ModelCleanup, FoldsThatWouldGrowTheModelStayNodes) {
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {1000, 1000}).Output("y", DataType::kFloat, {1000, 1000});
  b.Initializer("shape", Tensor::FromVector<int64_t>({2}, {1000, 1000}));
  b.Node("ConstantOfShape", {"shape"}, {"zeros"}, "zeros");
  b.Node("Add", {"x", "zeros"}, {"y"}, "add");
  onnx::ModelProto m = b.model();
  const CleanupReport r = CleanUpModel(&m, ".");
  EXPECT_EQ(r.folded, 0);
  EXPECT_EQ(m.graph().node_size(), 2);
}

}  // namespace
}  // namespace ptq
