// End-to-end tests of `ptq rewrite` on the fixtures: both formats rewrite, pass the checker (the
// command validates before writing), run on ptq's runtime with int8 accuracy close to float, are
// deterministic, and bad inputs are refused without output.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "runtime/quant_table.h"
#include "rewrite/rewriter.h"
#include "runtime/error.h"
#include "runtime/model_io.h"
#include "runtime/npy.h"
#include "runtime/sha256.h"
#include "tests/cli/cli_test_util.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ReadText;
using testing::RunPtq;
using testing::TempDir;

struct Fixture {
  const char* model;   // under tests/data
  const char* folder;  // tests/data/<folder>/{calib,eval}
};

const std::string kData = std::string(PTQ_SOURCE_DIR) + "/tests/data/";

fs::path WriteConfig(const fs::path& dir, const Fixture& f, const std::string& format) {
  const nlohmann::json c = {
      {"model", kData + f.model},
      {"output", (dir / ("model." + format + ".onnx")).string()},
      {"calibration",
       {{"data", kData + f.folder + "/calib"}, {"batch_size", 8}, {"method", "percentile"},
        {"table", (dir / "table.json").string()}}},
      {"quantization", {{"format", format}}}};
  const fs::path p = dir / (format + ".json");
  std::ofstream(p) << c.dump(1);
  return p;
}

std::map<std::string, int> OpCounts(const fs::path& model) {
  onnx::ModelProto m;
  LoadModelProto(model.string(), &m);
  std::map<std::string, int> counts;
  for (const auto& n : m.graph().node()) ++counts[n.op_type()];
  return counts;
}

// Runs `model` on the fixture's eval split; returns the first output.
Tensor RunEval(const fs::path& model, const Fixture& f, const fs::path& out_dir) {
  const auto r = RunPtq("run " + model.string() + " --inputs " + kData + f.folder + "/eval --outputs " + out_dir.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const auto& e : fs::directory_iterator(out_dir)) return ReadNpy(e.path().string());
  ADD_FAILURE() << "no output from " << model;
  return Tensor();
}

double Top1(const Tensor& logits, const Tensor& labels) {
  const int64_t n = logits.dim(0), c = logits.dim(1);
  int64_t right = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float* row = logits.data<float>() + i * c;
    const int64_t best = std::max_element(row, row + c) - row;
    right += best == labels.data<int64_t>()[i];
  }
  return static_cast<double>(right) / static_cast<double>(n);
}

double SqnrDb(const Tensor& ref, const Tensor& x) {
  double s = 0, e = 0;
  for (int64_t i = 0; i < ref.size(); ++i) {
    const double r = ref.data<float>()[i], d = r - x.data<float>()[i];
    s += r * r;
    e += d * d;
  }
  return 10 * std::log10(s / std::max(e, 1e-30));
}

class RewriteFixture : public ::testing::TestWithParam<Fixture> {};

TEST_P(RewriteFixture, BothFormatsRewriteRunAndStayAccurate) {
  const Fixture f = GetParam();
  TempDir tmp;
  const auto cal = RunPtq("calibrate --config " + WriteConfig(tmp.path(), f, "qoperator").string() + " --quiet");
  ASSERT_EQ(cal.exit_code, 0) << cal.output;
  fs::create_directories(tmp.path() / "float");
  const Tensor ref = RunEval(kData + f.model, f, tmp.path() / "float");
  for (const std::string format : {"qoperator", "qdq"}) {
    const fs::path cfg = WriteConfig(tmp.path(), f, format);
    const fs::path out = tmp.path() / ("model." + format + ".onnx");
    const auto r = RunPtq("rewrite --config " + cfg.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("check_model and strict shape/type inference"), std::string::npos) << r.output;
    const std::string first = ReadText(out);
    ASSERT_EQ(RunPtq("rewrite --config " + cfg.string() + " --quiet").exit_code, 0);
    EXPECT_TRUE(first == ReadText(out)) << format << ": a second rewrite gave different bytes";
    EXPECT_LT(fs::file_size(out), fs::file_size(kData + f.model)) << format;

    auto ops = OpCounts(out);
    onnx::ModelProto emitted;
    LoadModelProto(out.string(), &emitted);
    std::map<std::string, std::string> meta;
    for (const auto& p : emitted.metadata_props()) meta[p.key()] = p.value();
    EXPECT_EQ(meta["ptq_version"], PTQ_VERSION);
    EXPECT_EQ(meta["ptq_calibration_table_sha256"], Sha256Hex(ReadText(tmp.path() / "table.json")));
    EXPECT_EQ(meta["ptq_float_model_sha256"], Sha256Hex(ReadText(kData + f.model)));
    EXPECT_GT(ops["QuantizeLinear"], 0) << format;
    if (format == "qoperator") {
      const bool conv = std::string(f.model).find("cnn") != std::string::npos;
      EXPECT_GT(ops[conv ? "QLinearConv" : "MatMulInteger"], 0) << format;
      // A product left in float (its output is read by float nodes) computes with the 8-bit weight.
      for (const auto& n : emitted.graph().node()) {
        if (n.op_type() != "MatMul" && n.op_type() != "Gemm" && n.op_type() != "Conv") continue;
        bool dequantized = false;
        for (const auto& p : emitted.graph().node()) {
          if (p.output_size() > 0 && p.output(0) == n.input(1)) dequantized = p.op_type() == "DequantizeLinear";
        }
        EXPECT_TRUE(dequantized) << n.op_type() << " '" << n.name() << "' in " << f.model << " has a float weight";
      }
    }
    const fs::path dir = tmp.path() / ("out_" + format);
    fs::create_directories(dir);
    const Tensor q = RunEval(out, f, dir);
    ASSERT_EQ(q.shape(), ref.shape());
    const fs::path labels = kData + f.folder + "/eval_labels.npy";
    if (fs::exists(labels)) {
      const Tensor y = ReadNpy(labels.string());
      EXPECT_NEAR(Top1(q, y), Top1(ref, y), 0.01) << f.model << " " << format << ": top-1 int8 vs float";
    }
    EXPECT_GT(SqnrDb(ref, q), 25.0) << f.model << " " << format;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RewriteFixture,
                         ::testing::Values(Fixture{"digits_vit/digits_vit_opset13.onnx", "digits_vit"},
                                           Fixture{"digits_vit/digits_vit_opset17.onnx", "digits_vit"},
                                           Fixture{"digits_cnn/digits_cnn.onnx", "digits_cnn"},
                                           Fixture{"bert_encoder/bert_encoder.onnx", "bert_encoder"}));

TEST(RewriteCommand, RefusesQuantizedModelsForeignTablesAndTheInputPath) {
  TempDir tmp;
  const Fixture vit{"digits_vit/digits_vit_opset13.onnx", "digits_vit"};
  const fs::path cfg = WriteConfig(tmp.path(), vit, "qoperator");
  ASSERT_EQ(RunPtq("calibrate --config " + cfg.string() + " --quiet").exit_code, 0);
  ASSERT_EQ(RunPtq("rewrite --config " + cfg.string() + " --quiet").exit_code, 0);
  // The table belongs to the opset-13 model, not to the CNN.
  auto r = RunPtq("rewrite --config " + cfg.string() + " --set model=" + kData + "digits_cnn/digits_cnn.onnx --out " +
                  (tmp.path() / "x.onnx").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("made for another model"), std::string::npos) << r.output;
  // Output path equal to the input path.
  r = RunPtq("rewrite --config " + cfg.string() + " --out " + kData + vit.model);
  EXPECT_NE(r.exit_code, 0) << r.output;
  // An already quantized model is refused before anything is written.
  onnx::ModelProto quantized;
  LoadModelProto((tmp.path() / "model.qoperator.onnx").string(), &quantized);
  const QuantTable table = ReadQuantTable((tmp.path() / "table.json").string());
  try {
    RewriteModel(quantized, tmp.path().string(), table, QuantizationOptions{}, {}, nullptr);
    ADD_FAILURE() << "a quantized model was rewritten";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    EXPECT_NE(std::string(e.what()).find("already quantized"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(tmp.path() / "x.onnx"));
}

}  // namespace
}  // namespace ptq
