// Tests of Scan (reverse scan input, scan output axis and direction, mismatched lengths) and of the
// window functions (symmetric vs periodic, size 1, integer output type, errors).
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/graph.h"
#include "runtime/session.h"
#include "tests/error_of.h"
#include "tests/runtime/model_builder.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::IntAttr;
using testing::ModelBuilder;
using testing::RunOp;
using testing::ToVector;

constexpr double kTol = 1e-6;  // absolute, window values lie in [0, 1]

void AddInts(onnx::NodeProto& n, const std::string& name, std::initializer_list<int64_t> v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

// Scan (opset 11) over x [2, 3] along axis 1, in reverse: sum = sum + column; scan outputs the
// running sums stacked on axis 1, in reverse order.
ModelBuilder ScanModel() {
  ModelBuilder b(11);
  b.Input("x", DataType::kFloat, {2, 3}).Output("sum", DataType::kFloat).Output("running", DataType::kFloat);
  b.Initializer("zero", Tensor::FromVector<float>({2}, {0, 0}));
  onnx::NodeProto& n = b.Node("Scan", {"zero", "x"}, {"sum", "running"}, "scan");
  onnx::AttributeProto* body = n.add_attribute();
  body->set_name("body");
  body->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto* g = body->mutable_g();
  for (const char* in : {"s_in", "col"}) g->add_input()->set_name(in);
  onnx::NodeProto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("s_in");
  add->add_input("col");
  add->add_output("s_out");
  for (const char* out : {"s_out", "s_out"}) g->add_output()->set_name(out);
  onnx::AttributeProto* m = n.add_attribute();
  m->set_name("num_scan_inputs");
  m->set_type(onnx::AttributeProto::INT);
  m->set_i(1);
  AddInts(n, "scan_input_axes", {1});
  AddInts(n, "scan_input_directions", {1});
  AddInts(n, "scan_output_axes", {-1});
  AddInts(n, "scan_output_directions", {1});
  return b;
}

TEST(ScanOp, ReverseInputAndOutputOnTheLastAxis) {
  ModelBuilder b = ScanModel();
  Session s(std::make_shared<const Graph>(GraphFromModel(b.model(), "", "scan.onnx")));
  const auto out = s.Run({{"x", Tensor::FromVector<float>({2, 3}, {1, 2, 3, 10, 20, 30})}});
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{6, 60}));
  // Running sums from the end: 3, 5, 6 (rows 30, 50, 60), stored in reverse: [6, 5, 3].
  EXPECT_EQ(out[1].shape(), (Shape{2, 3}));
  EXPECT_EQ(ToVector<float>(out[1]), (std::vector<float>{6, 5, 3, 60, 50, 30}));
}

TEST(ScanOp, EmptyScanAxisIsRefused) {
  ModelBuilder b = ScanModel();
  b.model().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  Session s(std::make_shared<const Graph>(GraphFromModel(b.model(), "", "scan.onnx")));
  EXPECT_NE(ErrorOf([&] {
              s.Run({{"x", Tensor(DataType::kFloat, {2, 0})}});
            }).find("node 'scan' (Scan): the scan inputs are empty"),
            std::string::npos);
}

TEST(WindowOps, SymmetricPeriodicAndSizeOne) {
  Attributes symmetric;
  symmetric.Set("periodic", IntAttr(0));
  const std::vector<float> hann = ToVector<float>(RunOp("HannWindow", 17, symmetric, {Tensor::Scalar<int64_t>(5)})[0]);
  const std::vector<double> want = {0, 0.5, 1, 0.5, 0};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(hann[i], want[i], kTol) << i;
  const std::vector<float> periodic =
      ToVector<float>(RunOp("HannWindow", 17, Attributes(), {Tensor::Scalar<int32_t>(4)})[0]);
  EXPECT_NEAR(periodic[2], 1.0, kTol);
  EXPECT_EQ(ToVector<float>(RunOp("BlackmanWindow", 17, symmetric, {Tensor::Scalar<int64_t>(1)})[0]),
            (std::vector<float>{1}));
  EXPECT_EQ(RunOp("HammingWindow", 17, Attributes(), {Tensor::Scalar<int64_t>(0)})[0].shape(), (Shape{0}));
  const std::vector<float> hamming =
      ToVector<float>(RunOp("HammingWindow", 17, symmetric, {Tensor::Scalar<int64_t>(3)})[0]);
  EXPECT_NEAR(hamming[0], 25.0 / 46 - 21.0 / 46, kTol);
  EXPECT_NEAR(hamming[1], 1.0, kTol);
}

TEST(WindowOps, OutputTypeAndErrors) {
  Attributes as_int;
  as_int.Set("output_datatype", IntAttr(static_cast<int64_t>(DataType::kInt32)));
  as_int.Set("periodic", IntAttr(0));
  EXPECT_EQ(ToVector<int32_t>(RunOp("HannWindow", 17, as_int, {Tensor::Scalar<int64_t>(3)})[0]),
            (std::vector<int32_t>{0, 1, 0}));
  EXPECT_NE(ErrorOf([&] { RunOp("HannWindow", 17, Attributes(), {Tensor::Scalar<int64_t>(-1)}); }).find("'size' is -1"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { RunOp("HannWindow", 17, Attributes(), {Tensor::Scalar<float>(4)}); }), "");
  Attributes bad;
  bad.Set("output_datatype", IntAttr(8));  // string
  EXPECT_NE(ErrorOf([&] { RunOp("HannWindow", 17, bad, {Tensor::Scalar<int64_t>(2)}); }), "");
}

}  // namespace
}  // namespace ptq
