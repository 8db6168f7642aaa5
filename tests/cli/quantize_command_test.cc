// Tests of `ptq quantize`: one command from config to model, table and report; the gate's exit code;
// --print-config; and failures that leave nothing behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ReadText;
using testing::RunPtq;
using testing::TempDir;

const std::string kVit = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/";

fs::path WriteConfig(const fs::path& dir, const nlohmann::json& validation) {
  const nlohmann::json c = {{"model", kVit + "digits_vit_opset13.onnx"},
                            {"output", (dir / "out" / "vit.int8.onnx").string()},
                            {"calibration", {{"data", kVit + "calib"}, {"batch_size", 16}, {"method", "percentile"}}},
                            {"validation", validation}};
  std::ofstream(dir / "c.json") << c.dump(1);
  return dir / "c.json";
}

TEST(QuantizeCommand, WritesModelTableAndReportsAndTheGateSetsTheExitCode) {
  TempDir tmp;
  const nlohmann::json val = {{"data", kVit + "eval"},
                              {"labels", kVit + "eval_labels.npy"},
                              {"gate", {{"min_sqnr_db", 20.0}, {"max_top1_drop", 0.01}}}};
  auto r = RunPtq("quantize --config " + WriteConfig(tmp.path(), val).string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path out = tmp.path() / "out";
  for (const char* f : {"vit.int8.onnx", "vit.int8.calib.json", "vit.int8.report.html", "vit.int8.report.json"}) {
    EXPECT_TRUE(fs::exists(out / f)) << f;
  }
  const auto report = nlohmann::json::parse(ReadText(out / "vit.int8.report.json"));
  EXPECT_EQ(report["format"], "ptq-report");
  EXPECT_EQ(report["provenance"]["validation_samples"], 128);
  EXPECT_EQ(report["provenance"]["calibration_samples"], 64);
  EXPECT_TRUE(report["gate"]["passed"].get<bool>());
  const auto& out0 = report["outputs"][0];
  EXPECT_GT(out0["sqnr_db"].get<double>(), 30.0);
  EXPECT_NEAR(out0["top1"]["float"].get<double>() - out0["top1"]["int8"].get<double>(), 0.0, 0.01);
  // Layers are ranked worst first, each with a histogram and the clipped fraction.
  const auto& layers = report["layers"];
  ASSERT_GT(layers.size(), 10u);
  for (size_t i = 1; i < layers.size(); ++i) {
    EXPECT_LE(layers[i - 1]["sqnr_db"].get<double>(), layers[i]["sqnr_db"].get<double>());
  }
  EXPECT_EQ(layers[0]["histogram"]["counts"].size(), 64u);
  EXPECT_EQ(report["recovery"].size(), 3u);
  EXPECT_NE(ReadText(out / "vit.int8.report.html").find("<svg"), std::string::npos);

  // A gate the model cannot meet: exit code 3, everything still written, the failure named.
  fs::remove_all(out);
  r = RunPtq("quantize --config " + WriteConfig(tmp.path(), {{"data", kVit + "eval"}, {"gate", {{"min_sqnr_db", 99.0}}}}).string() +
             " --quiet");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("gate failed: output 'logits': SQNR"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(out / "vit.int8.onnx"));
  const auto failed = nlohmann::json::parse(ReadText(out / "vit.int8.report.json"));
  EXPECT_FALSE(failed["gate"]["passed"].get<bool>());
  EXPECT_EQ(failed["gate"]["failures"].size(), 1u);
}

TEST(QuantizeCommand, PrintConfigFillsEveryDefault) {
  TempDir tmp;
  const auto r = RunPtq("quantize --config " + WriteConfig(tmp.path(), nlohmann::json::object()).string() + " --print-config");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto c = nlohmann::json::parse(r.output);
  EXPECT_EQ(c["calibration"]["method"], "percentile");
  EXPECT_EQ(c["calibration"]["softmax_output"], "calibrated");
  EXPECT_EQ(c["calibration"]["max_samples"], "all");
  EXPECT_EQ(c["quantization"]["format"], "qoperator");
  EXPECT_EQ(c["quantization"]["weights"]["per_channel"], true);
  EXPECT_EQ(c["quantization"]["op_types"], nlohmann::json::array({"MatMul", "Gemm", "Conv"}));
  EXPECT_EQ(c["quantization"]["opset"], 13);
  EXPECT_EQ(c["validation"]["data"], kVit + "calib");  // defaults to the calibration data
  EXPECT_FALSE(fs::exists(tmp.path() / "out"));
}

TEST(QuantizeCommand, FailuresNameTheProblemAndWriteNothing) {
  TempDir tmp;
  auto r = RunPtq("quantize --config " + WriteConfig(tmp.path(), {{"dat", kVit + "eval"}}).string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("unknown key 'validation.dat' (did you mean 'validation.data'?)"), std::string::npos) << r.output;
  r = RunPtq("quantize --config " + WriteConfig(tmp.path(), {{"data", (tmp.path() / "missing").string()}}).string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("missing"), std::string::npos) << r.output;
  r = RunPtq("quantize --config " + WriteConfig(tmp.path(), nlohmann::json::object()).string() + " --set output=" + kVit +
             "digits_vit_opset13.onnx");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("never overwrites"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path() / "out"));
}

}  // namespace
}  // namespace ptq
