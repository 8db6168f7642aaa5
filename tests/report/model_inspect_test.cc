// Tests of InspectModel and CountMacs on small models built here: MACs against hand-computed counts
// (float, fully integer, mixed, unknown shapes), weights by type, op counts, external data.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "report/model_inspect.h"
#include "tests/cli/cli_test_util.h"
#include "tests/error_of.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ErrorOf;
using testing::ModelBuilder;
using testing::TempDir;

void Ints(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void Int(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

std::string Save(const TempDir& dir, ModelBuilder& m, const std::string& name) {
  const fs::path p = dir.path() / name;
  std::ofstream(p, std::ios::binary) << m.Serialize();
  return p.string();
}

Tensor Floats(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return Tensor::FromVector<float>(shape, std::vector<float>(static_cast<size_t>(n), 0.5f));
}

Tensor Int8s(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return Tensor::FromVector<int8_t>(shape, std::vector<int8_t>(static_cast<size_t>(n), 3));
}

// MatMul [N,4]x[4,8] (32 MACs at N = 1), Conv [1,2,5,5] * [3,2,3,3] with pads 1 (1*3*5*5 outputs of
// 2*3*3 MACs: 1350), Gemm [N,8] x [6,8]^T (48); two Constant nodes.
TEST(InspectModel, FloatModelHasNoIntegerWorkAndItsWeightsAndOpsAreCounted) {
  TempDir tmp;
  ModelBuilder m;
  m.Input("a", DataType::kFloat, {-1, 4}).Input("x", DataType::kFloat, {1, 2, 5, 5}).Input("g", DataType::kFloat, {-1, 8});
  m.Output("y1", DataType::kFloat, {-1, 8}).Output("y2", DataType::kFloat, {1, 3, 5, 5}).Output("y3", DataType::kFloat, {-1, 6});
  m.Initializer("W", Floats({4, 8})).Initializer("Wc", Floats({3, 2, 3, 3})).Initializer("Bg", Floats({6, 8}));
  m.Node("MatMul", {"a", "W"}, {"y1"}, "mm");
  Ints(m.Node("Conv", {"x", "Wc"}, {"y2"}, "conv"), "pads", {1, 1, 1, 1});
  Int(m.Node("Gemm", {"g", "Bg"}, {"y3"}, "gemm"), "transB", 1);
  auto& c = m.Node("Constant", {}, {"c"});
  auto* value = c.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  TensorToProto(Tensor::FromVector<int64_t>({3}, {1, 2, 3}), "c", value->mutable_t());
  auto* floats = m.Node("Constant", {}, {"cf"}).add_attribute();
  floats->set_name("value_floats");
  floats->set_type(onnx::AttributeProto::FLOATS);
  floats->add_floats(2);
  floats->add_floats(3);
  const ModelInspection r = InspectModel(Save(tmp, m, "float.onnx"));
  EXPECT_EQ(r.macs.total, 32 + 1350 + 48);
  EXPECT_EQ(r.macs.integer, 0);
  EXPECT_EQ(r.macs.integer_share(), 0.0);
  EXPECT_EQ(r.macs.by_op, (std::map<std::string, int64_t>{{"MatMul", 32}, {"Conv", 1350}, {"Gemm", 48}}));
  EXPECT_TRUE(r.macs.unknown.empty());
  ASSERT_EQ(r.macs.assumed.size(), 2u);
  EXPECT_EQ(r.macs.assumed[0].input, "a");
  EXPECT_EQ(r.macs.assumed[0].dim, 0);
  EXPECT_EQ(r.macs.assumed[0].param, "N");
  EXPECT_EQ(r.macs.assumed[1].input, "g");
  EXPECT_EQ(r.op_counts, (std::map<std::string, int64_t>{{"MatMul", 1}, {"Conv", 1}, {"Gemm", 1}, {"Constant", 2}}));
  EXPECT_EQ(r.nodes, 5);
  ASSERT_EQ(r.weights.size(), 2u);
  const WeightCount& f = r.weights.at("float32");
  EXPECT_EQ(f.tensors, 4);
  EXPECT_EQ(f.elements, 32 + 54 + 48 + 2);
  EXPECT_EQ(f.bytes, 4 * f.elements);
  const WeightCount& i = r.weights.at("int64");
  EXPECT_EQ(i.tensors, 1);
  EXPECT_EQ(i.elements, 3);
  EXPECT_EQ(i.bytes, 24);
  EXPECT_EQ(r.file_bytes, static_cast<int64_t>(fs::file_size(tmp.path() / "float.onnx")));
  EXPECT_EQ(r.opsets, (std::map<std::string, int64_t>{{"ai.onnx", 13}}));
  ASSERT_EQ(r.inputs.size(), 3u);
  EXPECT_EQ(r.inputs[0].dims, (std::vector<std::string>{"N", "4"}));
  EXPECT_EQ(r.inputs[0].type, "float32");
  const nlohmann::json j = InspectionJson(r);
  EXPECT_EQ(j["macs"]["integer_share"], 0.0);
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json::parse(R"(["N", 4])"));
  EXPECT_EQ(j["weights"]["float32"]["bytes"], 4 * (32 + 54 + 48 + 2));
}

// QLinearMatMul [2,4]x[4,8] (64), QLinearConv [1,2,5,5] * [3,2,3,3] stride 2 (2x2 outputs: 216) and
// com.microsoft's QGemm [2,4] x [3,4]^T (24): all integer.
TEST(InspectModel, FullyQuantizedModelIsAllInteger) {
  TempDir tmp;
  ModelBuilder m;
  auto* ms = m.model().add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  m.Input("a", DataType::kUint8, {2, 4}).Input("x", DataType::kUint8, {1, 2, 5, 5});
  m.Output("y1", DataType::kUint8, {2, 8}).Output("y2", DataType::kUint8, {1, 3, 2, 2}).Output("y3", DataType::kUint8, {2, 3});
  m.Initializer("s", Tensor::Scalar<float>(0.1f)).Initializer("zu", Tensor::Scalar<uint8_t>(0));
  m.Initializer("zi", Tensor::Scalar<int8_t>(0));
  m.Initializer("W", Int8s({4, 8})).Initializer("Wc", Int8s({3, 2, 3, 3})).Initializer("B", Int8s({3, 4}));
  m.Node("QLinearMatMul", {"a", "s", "zu", "W", "s", "zi", "s", "zu"}, {"y1"}, "qmm");
  Ints(m.Node("QLinearConv", {"x", "s", "zu", "Wc", "s", "zi", "s", "zu"}, {"y2"}, "qconv"), "strides", {2, 2});
  auto& qgemm = m.Node("QGemm", {"a", "s", "zu", "B", "s", "zi", "", "s", "zu"}, {"y3"}, "qgemm");
  qgemm.set_domain("com.microsoft");
  Int(qgemm, "transB", 1);
  const ModelInspection r = InspectModel(Save(tmp, m, "int8.onnx"));
  EXPECT_EQ(r.macs.by_op, (std::map<std::string, int64_t>{{"QLinearMatMul", 64}, {"QLinearConv", 216}, {"com.microsoft:QGemm", 24}}));
  EXPECT_EQ(r.macs.total, 304);
  EXPECT_EQ(r.macs.integer, 304);
  EXPECT_EQ(r.macs.integer_share(), 1.0);
  EXPECT_TRUE(r.macs.assumed.empty());
  EXPECT_EQ(r.op_counts.at("com.microsoft:QGemm"), 1);
  EXPECT_EQ(r.opsets.at("com.microsoft"), 1);
  EXPECT_EQ(r.weights.at("int8").elements, 32 + 54 + 12 + 1);  // W, Wc, B and the zero point zi
  EXPECT_EQ(r.weights.at("int8").bytes, 32 + 54 + 12 + 1);
}

// A float MatMul [1,4]x[4,8] (32), a MatMul in QDQ form [1,8]x[8,2] (16, integer) and a MatMul of a
// float activation with a dequantized weight (16, float: only the weight is 8-bit): 16 of 64 integer.
TEST(InspectModel, MixedModelShareIsTheQdqMatMulsShare) {
  TempDir tmp;
  ModelBuilder m;
  m.Input("a", DataType::kFloat, {1, 4}).Input("b", DataType::kFloat, {1, 8});
  m.Output("y1", DataType::kFloat, {1, 8}).Output("y2", DataType::kFloat, {1, 2}).Output("y3", DataType::kFloat, {1, 2});
  m.Initializer("W", Floats({4, 8})).Initializer("W2q", Int8s({8, 2}));
  m.Initializer("s", Tensor::Scalar<float>(0.1f)).Initializer("zu", Tensor::Scalar<uint8_t>(0));
  m.Initializer("zi", Tensor::Scalar<int8_t>(0));
  m.Node("MatMul", {"a", "W"}, {"y1"}, "float_mm");
  m.Node("QuantizeLinear", {"b", "s", "zu"}, {"bq"});
  m.Node("DequantizeLinear", {"bq", "s", "zu"}, {"bd"});
  m.Node("DequantizeLinear", {"W2q", "s", "zi"}, {"w2d"});
  m.Node("MatMul", {"bd", "w2d"}, {"y2"}, "qdq_mm");
  m.Node("MatMul", {"b", "w2d"}, {"y3"}, "weight_only_mm");
  const ModelInspection r = InspectModel(Save(tmp, m, "mixed.onnx"));
  EXPECT_EQ(r.macs.by_op, (std::map<std::string, int64_t>{{"MatMul", 48}, {"MatMul (QDQ)", 16}}));
  EXPECT_EQ(r.macs.total, 64);
  EXPECT_EQ(r.macs.integer, 16);
  EXPECT_DOUBLE_EQ(r.macs.integer_share(), 0.25);
  EXPECT_DOUBLE_EQ(InspectionJson(r)["macs"]["integer_share"].get<double>(), 0.25);
}

// An input with no shape leaves its MatMul uncounted (and says so); a MatMul inside an If body is
// counted among the ops but not in the MACs.
TEST(InspectModel, UnknownShapesAndSubgraphsAreNamedNotGuessed) {
  TempDir tmp;
  ModelBuilder m;
  m.Input("u", DataType::kFloat, {}).Input("cond", DataType::kBool, {});
  m.model().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  m.Output("y", DataType::kFloat, {-1, 8}).Output("z", DataType::kFloat, {-1, 8});
  m.Initializer("W", Floats({4, 8}));
  m.Node("MatMul", {"u", "W"}, {"y"}, "mm_unknown");
  ModelBuilder body;
  body.Output("t", DataType::kFloat, {-1, 8});
  body.Node("MatMul", {"u", "W"}, {"t"}, "mm_in_body");
  auto& node = m.Node("If", {"cond"}, {"z"}, "if");
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = node.add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = body.model().graph();
  }
  const ModelInspection r = InspectModel(Save(tmp, m, "unknown.onnx"));
  EXPECT_EQ(r.macs.total, 0);
  EXPECT_LT(r.macs.integer_share(), 0);
  ASSERT_EQ(r.macs.unknown.size(), 1u);
  EXPECT_NE(r.macs.unknown[0].find("mm_unknown (MatMul)"), std::string::npos) << r.macs.unknown[0];
  EXPECT_EQ(r.macs.no_shape_inputs, std::vector<std::string>{"u"});
  EXPECT_EQ(r.macs.subgraph_nodes, 2);
  EXPECT_EQ(r.op_counts.at("MatMul"), 3);
  EXPECT_EQ(r.nodes, 4);
  EXPECT_TRUE(InspectionJson(r)["macs"]["integer_share"].is_null());
  EXPECT_NE(RenderInspection(r).find("not counted: mm_unknown (MatMul)"), std::string::npos) << RenderInspection(r);
}

// A weight in an external data file: its bytes are counted from its dims, the file's size is added to
// the model's; a missing data file is an input error naming it.
TEST(InspectModel, ExternalDataIsCountedAndAMissingFileNamed) {
  TempDir tmp;
  ModelBuilder m;
  m.Input("a", DataType::kFloat, {1, 4}).Output("y", DataType::kFloat, {1, 8});
  m.Node("MatMul", {"a", "W"}, {"y"}, "mm");
  onnx::TensorProto* w = m.model().mutable_graph()->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->add_dims(8);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{{"location", "weights.bin"}, {"offset", "0"}, {"length", "128"}}) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  const std::string path = Save(tmp, m, "ext.onnx");
  const std::string e = ErrorOf([&] { InspectModel(path); });
  EXPECT_NE(e.find("weights.bin"), std::string::npos) << e;
  std::ofstream(tmp.path() / "weights.bin", std::ios::binary) << std::string(128, '\0');
  const ModelInspection r = InspectModel(path);
  ASSERT_EQ(r.external_files.size(), 1u);
  EXPECT_EQ(fs::path(r.external_files[0]).filename(), "weights.bin");
  EXPECT_EQ(r.external_bytes, 128);
  EXPECT_EQ(r.weights.at("float32").bytes, 128);
  EXPECT_EQ(r.macs.total, 32);
  EXPECT_EQ(InspectionJson(r)["total_bytes"], r.file_bytes + 128);
}

}  // namespace
}  // namespace ptq
