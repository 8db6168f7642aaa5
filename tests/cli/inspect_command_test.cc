// Tests of `ptq inspect`: op counts and weights against a walk of the model done here, the integer MAC
// share of float and ptq-quantized models, the table, and the errors.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "runtime/model_io.h"
#include "tests/cli/cli_test_util.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ReadText;
using testing::RunPtq;
using testing::TempDir;

const std::string kData = std::string(PTQ_SOURCE_DIR) + "/tests/data/";

nlohmann::json Inspect(const std::string& model) {
  const auto r = RunPtq("inspect " + model + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return nlohmann::json::parse(r.output);
}

// Counts by op type and weights by type ({tensors, elements, bytes}) of the main graph (the fixtures have
// no subgraphs), from the stored bytes of each initializer and Constant value.
void WalkModel(const std::string& path, std::map<std::string, int64_t>* ops, nlohmann::json* weights) {
  onnx::ModelProto m;
  LoadModelProto(path, &m);
  ASSERT_EQ(m.graph().sparse_initializer_size(), 0);
  auto add = [&](const onnx::TensorProto& t) {
    int64_t n = 1;
    for (int64_t d : t.dims()) n *= d;
    int64_t bytes = static_cast<int64_t>(t.raw_data().size());
    if (t.raw_data().empty()) bytes = 4 * int64_t{t.float_data_size()} + 8 * int64_t{t.int64_data_size()};
    ASSERT_TRUE(t.raw_data().size() > 0 || t.float_data_size() == n || t.int64_data_size() == n) << t.name();
    const std::string type = t.data_type() == onnx::TensorProto::FLOAT ? "float32" : t.data_type() == onnx::TensorProto::INT64 ? "int64" : "other";
    auto& w = (*weights)[type];
    if (w.is_null()) w = {{"tensors", 0}, {"elements", 0}, {"bytes", 0}};
    w["tensors"] = w["tensors"].get<int64_t>() + 1;
    w["elements"] = w["elements"].get<int64_t>() + n;
    w["bytes"] = w["bytes"].get<int64_t>() + bytes;
  };
  for (const auto& t : m.graph().initializer()) add(t);
  for (const auto& n : m.graph().node()) {
    ++(*ops)[n.op_type()];
    if (n.op_type() != "Constant") continue;
    ASSERT_EQ(n.attribute_size(), 1);
    ASSERT_TRUE(n.attribute(0).has_t()) << n.name();
    add(n.attribute(0).t());
  }
}

// The BERT-shaped encoder (113 Constant nodes, int64 and float) and the CNN.
TEST(InspectCommand, OpCountsAndWeightsMatchAWalkOfTheModel) {
  for (const std::string& model : {kData + "bert_encoder/bert_encoder.onnx", kData + "digits_cnn/digits_cnn.onnx"}) {
    std::map<std::string, int64_t> ops;
    nlohmann::json weights = nlohmann::json::object();
    WalkModel(model, &ops, &weights);
    const auto j = Inspect(model);
    EXPECT_EQ(j["op_counts"].get<decltype(ops)>(), ops) << model;
    EXPECT_EQ(j["weights"], weights) << model;
    EXPECT_EQ(j["file_bytes"], fs::file_size(model));
    EXPECT_EQ(j["total_bytes"], fs::file_size(model));
    EXPECT_TRUE(j["external_files"].empty());
    EXPECT_EQ(j["producer_name"], "pytorch");
    EXPECT_EQ(j["ir_version"], 7);
  }
  const auto bert = Inspect(kData + "bert_encoder/bert_encoder.onnx");
  EXPECT_EQ(bert["opsets"], nlohmann::json::parse(R"({"ai.onnx": 14})"));
  EXPECT_EQ(bert["inputs"][0]["shape"], nlohmann::json::parse(R"(["batch", "sequence"])"));
  EXPECT_EQ(bert["macs"]["assumed_dims"].size(), 4u);  // batch and sequence of both inputs
  EXPECT_TRUE(bert["macs"]["unknown"].empty()) << bert["macs"]["unknown"];
}

// The float CNN does no integer work; ptq's QOperator and QDQ models of it do all of it, the same MACs;
// the tiny QLinearMatMul fixture ([batch, 16] x [16, 8] at batch 1: 128 MACs) is all integer.
TEST(InspectCommand, IntegerShareOfFloatAndQuantizedModels) {
  TempDir tmp;
  const std::string cnn = kData + "digits_cnn/digits_cnn.onnx";
  const auto f = Inspect(cnn);
  EXPECT_EQ(f["macs"]["integer_share"], 0.0);
  EXPECT_GT(f["macs"]["total"].get<int64_t>(), 0);
  for (const char* format : {"qoperator", "qdq"}) {
    const nlohmann::json c = {{"model", cnn},
                              {"output", (tmp.path() / (std::string(format) + ".onnx")).string()},
                              {"calibration", {{"data", kData + "digits_cnn/calib"}}},
                              {"quantization", {{"format", format}}}};
    std::ofstream(tmp.path() / "c.json") << c.dump();
    const auto r = RunPtq("quantize --quiet --config " + (tmp.path() / "c.json").string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto q = Inspect((tmp.path() / (std::string(format) + ".onnx")).string());
    EXPECT_EQ(q["macs"]["integer_share"], 1.0) << format << q["macs"];
    EXPECT_EQ(q["macs"]["total"], f["macs"]["total"]) << format;
    EXPECT_TRUE(q["metadata"].contains("ptq_float_model_sha256")) << format;
    EXPECT_GT(q["weights"]["int8"]["elements"].get<int64_t>(), 38000) << format;  // the CNN's 38,282 weights
  }
  const auto tiny = Inspect(kData + "tiny_qlinear_matmul/model.onnx");
  EXPECT_EQ(tiny["macs"]["total"], 128);
  EXPECT_EQ(tiny["macs"]["integer_share"], 1.0);
  EXPECT_EQ(tiny["macs"]["assumed_dims"][0]["param"], "batch");
}

TEST(InspectCommand, PrintsATableByDefault) {
  const auto r = RunPtq("inspect " + kData + "digits_cnn/digits_cnn.onnx");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* s : {"ops (9 nodes)", "Conv", "float32", "[batch, 1, 8, 8]", "0.0% integer",
                        "assumed: input 'images' dim 0 ('batch') = 1", "ai.onnx:13"}) {
    EXPECT_NE(r.output.find(s), std::string::npos) << s << "\n" << r.output;
  }
}

TEST(InspectCommand, BadModelsExitWith2AndUsageErrorsWith1) {
  TempDir tmp;
  const std::string bytes = ReadText(kData + "digits_cnn/digits_cnn.onnx");
  std::ofstream(tmp.path() / "truncated.onnx", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  for (const char* name : {"missing.onnx", "truncated.onnx"}) {
    const auto r = RunPtq("inspect " + (tmp.path() / name).string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(name), std::string::npos) << r.output;
  }
  EXPECT_EQ(RunPtq("inspect").exit_code, 1);
  EXPECT_EQ(RunPtq("inspect a.onnx b.onnx").exit_code, 1);
  const auto help = RunPtq("inspect --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("--json"), std::string::npos);
}

}  // namespace
}  // namespace ptq
