// Structure of the rewritten models: attention in integer form (S1-S4), passes that change nothing on
// their own output, and exporter variety (weights in Constant nodes, opsets below 13).
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "rewrite/passes.h"
#include "runtime/quant_table.h"
#include "runtime/model_io.h"
#include "runtime/npy.h"
#include "runtime/tensor_proto.h"
#include "tests/cli/cli_test_util.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::RunPtq;
using testing::TempDir;

const std::string kData = std::string(PTQ_SOURCE_DIR) + "/tests/data/";

// Calibrates and rewrites `model` with data from tests/data/<folder>; returns the output path.
// `method` "" keeps the default calibration method.
fs::path Quantize(const fs::path& dir, const std::string& model, const std::string& folder,
                  const nlohmann::json& quantization = nlohmann::json::object(), const std::string& method = "") {
  nlohmann::json c = {{"model", model},
                      {"output", (dir / "q.onnx").string()},
                      {"calibration", {{"data", kData + folder + "/calib"}, {"batch_size", 8}, {"table", (dir / "t.json").string()}}},
                      {"quantization", quantization}};
  if (!method.empty()) c["calibration"]["method"] = method;
  std::ofstream(dir / "c.json") << c.dump();
  const auto a = RunPtq("calibrate --config " + (dir / "c.json").string() + " --quiet");
  EXPECT_EQ(a.exit_code, 0) << a.output;
  const auto b = RunPtq("rewrite --config " + (dir / "c.json").string() + " --quiet");
  EXPECT_EQ(b.exit_code, 0) << b.output;
  return dir / "q.onnx";
}

const onnx::NodeProto* Producer(const onnx::ModelProto& m, const std::string& t) {
  for (const auto& n : m.graph().node()) {
    for (const auto& o : n.output()) {
      if (o == t) return &n;
    }
  }
  return nullptr;
}

std::vector<const onnx::NodeProto*> Readers(const onnx::ModelProto& m, const std::string& t) {
  std::vector<const onnx::NodeProto*> out;
  for (const auto& n : m.graph().node()) {
    for (const auto& i : n.input()) {
      if (i == t) {
        out.push_back(&n);
        break;
      }
    }
  }
  return out;
}

Tensor Init(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer()) {
    if (t.name() == name) return TensorFromProto(t, ".", name);
  }
  ADD_FAILURE() << "no initializer " << name;
  return Tensor();
}

// S2: Softmax reads float scores that come from DequantizeLinear(MatMulInteger) through the scaling and
// mask ops; S3: its output goes to a QuantizeLinear to uint8 with zero point 0 and the table's softmax
// scale; S4: that reaches input 0 of a QLinearMatMul (through shape-only ops).
TEST(RewriteStructure, AttentionIsIntegerScoresFloatSoftmaxQuantizedContext) {
  TempDir tmp;
  const fs::path q = Quantize(tmp.path(), kData + "digits_vit/digits_vit_opset13.onnx", "digits_vit");
  onnx::ModelProto m;
  LoadModelProto(q.string(), &m);
  const QuantTable table = ReadQuantTable((tmp.path() / "t.json").string());
  int softmaxes = 0;
  for (const auto& n : m.graph().node()) {
    if (n.op_type() != "Softmax") continue;
    ++softmaxes;
    // Walk back to the DequantizeLinear of an int32 MatMulInteger product.
    const onnx::NodeProto* p = Producer(m, n.input(0));
    for (int steps = 0; p && p->op_type() != "DequantizeLinear" && steps < 8; ++steps) p = Producer(m, p->input(0));
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(p->op_type(), "DequantizeLinear");
    const onnx::NodeProto* mm = Producer(m, p->input(0));
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->op_type(), "MatMulInteger");
    // The softmax output's quantization.
    const auto readers = Readers(m, n.output(0));
    ASSERT_EQ(readers.size(), 1u);
    const onnx::NodeProto* quant = readers[0];
    ASSERT_EQ(quant->op_type(), "QuantizeLinear");
    const Tensor scale = Init(m, quant->input(1)), zp = Init(m, quant->input(2));
    EXPECT_EQ(zp.dtype(), DataType::kUint8);
    EXPECT_EQ(zp.data<uint8_t>()[0], 0);
    const TensorQuant& entry = table.tensors.at(n.output(0));
    EXPECT_EQ(entry.role, TensorRole::kSoftmaxOutput);
    EXPECT_EQ(scale.data<float>()[0], entry.scales[0]);
    // P·V.
    std::string t = quant->output(0);
    const onnx::NodeProto* user = nullptr;
    for (int steps = 0; steps < 6; ++steps) {
      const auto r = Readers(m, t);
      ASSERT_EQ(r.size(), 1u) << t;
      user = r[0];
      if (user->op_type() == "QLinearMatMul") break;
      t = user->output(0);
    }
    ASSERT_NE(user, nullptr);
    EXPECT_EQ(user->op_type(), "QLinearMatMul");
  }
  EXPECT_EQ(softmaxes, 2);
}

// A second run of every pass over the emitted model changes nothing.
TEST(RewriteStructure, PassesChangeNothingOnTheirOwnOutput) {
  TempDir tmp;
  for (const auto& [model, folder] : std::vector<std::pair<std::string, std::string>>{
           {"digits_vit/digits_vit_opset17.onnx", "digits_vit"}, {"digits_cnn/digits_cnn.onnx", "digits_cnn"}}) {
    const fs::path q = Quantize(tmp.path(), kData + model, folder);
    onnx::ModelProto m;
    LoadModelProto(q.string(), &m);
    RewriteGraph g(m);
    QuantTable table;
    EXPECT_FALSE(CanonicalizeGemm(&g, QuantizationOptions{}, &table)) << model;
    EXPECT_FALSE(InsertQdq(&g, QuantPlan{})) << model;
    EXPECT_FALSE(ReadShapeBeforeDequantize(&g)) << model;
    EXPECT_FALSE(SinkDequantize(&g)) << model;
    EXPECT_FALSE(CancelQdqPairs(&g)) << model;
    EXPECT_FALSE(FuseQuantizedMatMul(&g)) << model;
    EXPECT_FALSE(FuseQuantizedConv(&g)) << model;
    EXPECT_FALSE(RemoveDeadNodes(&g)) << model;
  }
}

std::map<std::string, int> Ops(const fs::path& p) {
  onnx::ModelProto m;
  LoadModelProto(p.string(), &m);
  std::map<std::string, int> c;
  for (const auto& n : m.graph().node()) ++c[n.op_type()];
  return c;
}

int64_t Opset(const fs::path& p) {
  onnx::ModelProto m;
  LoadModelProto(p.string(), &m);
  for (const auto& o : m.opset_import()) {
    if (o.domain().empty()) return o.version();
  }
  return 0;
}

bool IsDataMovement(const std::string& op) {
  for (const char* m : {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Identity", "MaxPool", "Slice", "Gather"}) {
    if (op == m) return true;
  }
  return false;
}

bool IsGraphOutput(const onnx::ModelProto& m, const std::string& t) {
  for (const auto& o : m.graph().output()) {
    if (o.name() == t) return true;
  }
  return false;
}

// Shape and Size never read a DequantizeLinear output, so none is kept for shapes alone; in QOperator
// form no DequantizeLinear of an 8-bit tensor is read by one data-movement op alone (it would have
// moved below it, down to the next QuantizeLinear or float op).
void ExpectNoDequantizeForShapesOrDataMovement(const onnx::ModelProto& m, const std::string& label, bool qoperator) {
  for (const auto& n : m.graph().node()) {
    if (n.op_type() != "DequantizeLinear") continue;
    const auto readers = Readers(m, n.output(0));
    for (const onnx::NodeProto* r : readers) {
      EXPECT_TRUE(r->op_type() != "Shape" && r->op_type() != "Size") << label << ": " << r->name() << " reads " << n.output(0);
    }
    if (!qoperator || n.input_size() < 3 || IsGraphOutput(m, n.output(0))) continue;
    EXPECT_FALSE(readers.size() == 1 && IsDataMovement(readers[0]->op_type()))
        << label << ": " << readers[0]->op_type() << " '" << readers[0]->name() << "' runs in float after " << n.name();
  }
}

// The fixtures as scripts/ort/bench_int8.js quantizes them (percentile calibration, batches of 8).
TEST(RewriteStructure, ShapesReadQuantizedTensorsAndDataMovementRunsOnInt8) {
  struct Case {
    const char* model;
    const char* folder;
    int qoperator_dq;  // DequantizeLinear nodes left in QOperator form (before these passes: 16, 16, 18)
  };
  // 14 for the ViTs: the patch embedding's Conv stays float (float nodes read its output), reading its
  // input, weight and bias through DequantizeLinear.
  for (const Case& c : {Case{"digits_vit/digits_vit_opset13.onnx", "digits_vit", 14},
                        Case{"digits_vit/digits_vit_opset17.onnx", "digits_vit", 14},
                        // 10: the residual Adds read the LayerNorm outputs' float values (edges, not tensors)
                        Case{"bert_encoder/bert_encoder.onnx", "bert_encoder", 10}}) {
    for (const std::string format : {"qoperator", "qdq"}) {
      TempDir tmp;
      const fs::path q = Quantize(tmp.path(), kData + c.model, c.folder, {{"format", format}}, "percentile");
      onnx::ModelProto m;
      LoadModelProto(q.string(), &m);
      const std::string label = std::string(c.model) + " " + format;
      ExpectNoDequantizeForShapesOrDataMovement(m, label, format == "qoperator");
      if (format != "qoperator") continue;
      const auto ops = Ops(q);
      EXPECT_EQ(ops.at("DequantizeLinear"), c.qoperator_dq) << label;
      // The only float product left is the patch embedding's Conv, whose output float nodes read.
      EXPECT_EQ(ops.count("MatMul") + ops.count("Gemm"), 0u) << label;
      EXPECT_LE(ops.count("Conv"), 1u) << label;
      // Attention's context (QLinearMatMul) reaches the output projection through Transpose and
      // Reshape on int8: MatMulInteger reads the Reshape.
      int int8_context = 0;
      for (const auto& n : m.graph().node()) {
        if (n.op_type() != "QLinearMatMul") continue;
        const auto r = Readers(m, n.output(0));
        if (r.size() != 1 || r[0]->op_type() != "Transpose") continue;
        const auto r2 = Readers(m, r[0]->output(0));
        ASSERT_EQ(r2.size(), 1u) << label;
        ASSERT_EQ(r2[0]->op_type(), "Reshape") << label;
        const auto r3 = Readers(m, r2[0]->output(0));
        ASSERT_EQ(r3.size(), 1u) << label;
        EXPECT_EQ(r3[0]->op_type(), "MatMulInteger") << label;
        ++int8_context;
      }
      EXPECT_EQ(int8_context, 2) << label;
    }
  }
}

// QLinearConv -> MaxPool -> Flatten -> MatMulInteger all on uint8 (before: a DequantizeLinear before
// MaxPool and a QuantizeLinear after Flatten, MaxPool and Flatten in float).
TEST(RewriteStructure, CnnMaxPoolAndFlattenRunOnInt8) {
  for (const std::string method : {"percentile", ""}) {
    TempDir tmp;
    const fs::path q = Quantize(tmp.path(), kData + "digits_cnn/digits_cnn.onnx", "digits_cnn", nlohmann::json::object(), method);
    onnx::ModelProto m;
    LoadModelProto(q.string(), &m);
    EXPECT_EQ(Ops(q), (std::map<std::string, int>{{"QuantizeLinear", 2},
                                                  {"QLinearConv", 2},
                                                  {"MaxPool", 1},
                                                  {"Flatten", 1},
                                                  {"MatMulInteger", 2},
                                                  {"Add", 2},
                                                  {"DequantizeLinear", 2}}))
        << method;
    for (const auto& n : m.graph().node()) {
      if (n.op_type() == "MaxPool") {
        ASSERT_NE(Producer(m, n.input(0)), nullptr);
        EXPECT_EQ(Producer(m, n.input(0))->op_type(), "QLinearConv") << method;
        const auto r = Readers(m, n.output(0));
        ASSERT_EQ(r.size(), 1u);
        EXPECT_EQ(r[0]->op_type(), "Flatten");
        const auto r2 = Readers(m, r[0]->output(0));
        ASSERT_EQ(r2.size(), 1u);
        EXPECT_EQ(r2[0]->op_type(), "MatMulInteger") << method;
      }
    }
    ExpectNoDequantizeForShapesOrDataMovement(m, "digits_cnn " + method, true);
  }
}

// tf2onnx / Paddle2ONNX style: weights in Constant nodes.
TEST(RewriteStructure, WeightsInConstantNodesAreQuantized) {
  TempDir tmp;
  onnx::ModelProto cnn;
  LoadModelProto(kData + "digits_cnn/digits_cnn.onnx", &cnn);
  onnx::ModelProto constants = cnn;
  auto* g = constants.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (const auto& t : g->initializer()) {
    onnx::NodeProto* c = nodes.Add();
    c->set_op_type("Constant");
    c->set_name("const/" + t.name());
    c->add_output(t.name());
    auto* a = c->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    *a->mutable_t() = t;
  }
  for (const auto& n : g->node()) *nodes.Add() = n;
  g->clear_initializer();
  g->mutable_node()->Swap(&nodes);
  SaveModelProto(constants, (tmp.path() / "constants.onnx").string());
  fs::create_directories(tmp.path() / "a");
  const fs::path qa = Quantize(tmp.path() / "a", (tmp.path() / "constants.onnx").string(), "digits_cnn");
  EXPECT_EQ(Ops(qa)["QLinearConv"], 2);

}

// An opset-11 model (Conv, Relu, Flatten, Gemm, Softmax with 11's 2-D coercion) is converted to 13 by
// ONNX's version converter and quantized.
TEST(RewriteStructure, Opset11ModelIsConvertedAndQuantized) {
  TempDir tmp;
  testing::ModelBuilder b(11);
  b.Input("X", DataType::kFloat, {-1, 1, 6, 6});
  std::vector<float> w(4 * 9), w2(10 * 64), c2(10);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.7f * static_cast<float>(i));
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = std::cos(0.3f * static_cast<float>(i)) * 0.1f;
  for (size_t i = 0; i < c2.size(); ++i) c2[i] = 0.01f * static_cast<float>(i);
  b.Initializer("conv/W:0", Tensor::FromVector<float>({4, 1, 3, 3}, w));
  b.Initializer("fc/W:0", Tensor::FromVector<float>({10, 64}, w2));
  b.Initializer("fc/b:0", Tensor::FromVector<float>({10}, c2));
  b.Node("Conv", {"X", "conv/W:0"}, {"conv/out:0"}, "conv/Conv");
  b.Node("Relu", {"conv/out:0"}, {"relu/out:0"}, "relu");
  b.Node("Flatten", {"relu/out:0"}, {"flat:0"}, "flatten");
  auto& gemm = b.Node("Gemm", {"flat:0", "fc/W:0", "fc/b:0"}, {"logits:0"}, "fc/Gemm");
  auto* t = gemm.add_attribute();
  t->set_name("transB");
  t->set_type(onnx::AttributeProto::INT);
  t->set_i(1);
  b.Node("Softmax", {"logits:0"}, {"prob:0"}, "softmax");
  b.Output("prob:0", DataType::kFloat, {-1, 10});
  std::ofstream(tmp.path() / "opset11.onnx", std::ios::binary) << b.Serialize();
  Tensor x(DataType::kFloat, {32, 1, 6, 6});
  for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = std::sin(0.37f * static_cast<float>(i));
  fs::create_directories(tmp.path() / "data");
  WriteNpy((tmp.path() / "data" / "X.npy").string(), x);
  const nlohmann::json c = {{"model", (tmp.path() / "opset11.onnx").string()},
                            {"output", (tmp.path() / "q.onnx").string()},
                            {"calibration", {{"data", (tmp.path() / "data").string()}, {"batch_size", 8}}}};
  std::ofstream(tmp.path() / "c.json") << c.dump();
  auto r = RunPtq("calibrate --config " + (tmp.path() / "c.json").string() + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = RunPtq("rewrite --config " + (tmp.path() / "c.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path qb = tmp.path() / "q.onnx";
  EXPECT_EQ(Ops(qb)["QLinearConv"], 1);
  EXPECT_EQ(Ops(qb)["MatMulInteger"], 1);
  EXPECT_EQ(Opset(qb), 13);
  r = RunPtq("run " + qb.string() + " --inputs " + (tmp.path() / "data").string() + " --outputs " + (tmp.path() / "o").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// exclude_nodes keeps a node float (by name or /regex/); overrides fix a tensor's range.
TEST(RewriteStructure, ExcludedNodesStayFloatAndOverridesSetTheScale) {
  TempDir tmp;
  const fs::path q = Quantize(tmp.path(), kData + "digits_cnn/digits_cnn.onnx", "digits_cnn",
                              {{"exclude_nodes", {"/fc2/Gemm", "/^.fc1/"}},
                               {"overrides", {{"/Relu_output_0", {{"min", -2.0}, {"max", 6.0}}}}}});
  auto ops = Ops(q);
  EXPECT_EQ(ops["Gemm"], 2);  // fc2 excluded by name, fc1 by regex: left as they were
  EXPECT_EQ(ops["MatMulInteger"], 0);
  // conv1's Relu stays (the override's zero point is not 0, so quantizing does not clamp like Relu);
  // conv2's output reaches only the float fc1 (through its Relu, MaxPool and Flatten): no integer node
  // reads it, so its Relu stays too, and both convolutions compute in float with 8-bit inputs and
  // weights (their outputs feed float nodes).
  EXPECT_EQ(ops["Relu"], 3);
  EXPECT_EQ(ops["QLinearConv"], 0);
  EXPECT_EQ(ops["Conv"], 2);
  onnx::ModelProto m;
  LoadModelProto(q.string(), &m);
  bool found = false;
  for (const auto& n : m.graph().node()) {
    if (n.op_type() != "QuantizeLinear" || n.input(0) != "/Relu_output_0") continue;
    const Tensor scale = Init(m, n.input(1)), zp = Init(m, n.input(2));
    EXPECT_FLOAT_EQ(scale.data<float>()[0], 8.0f / 255.0f);
    EXPECT_EQ(zp.data<uint8_t>()[0], 64);  // round(0 - (-2) / (8/255)) = round(63.75)
    found = true;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace ptq
