// `quantization.fallback: "auto"` end to end: a two-branch model whose second branch reads an input
// that 8 bits cannot hold (a column of ~1e-3 beside one up to 100). The default misses a 20 dB gate
// (exit 3); the fallback keeps only that branch's MatMul float, meets the gate (exit 0) and reports it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "runtime/npy.h"
#include "tests/cli/cli_test_util.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;
using testing::ReadText;
using testing::RunPtq;
using testing::TempDir;

constexpr int kSamples = 32;

// [kSamples, 2]: column 0 uniform in [0, hi0], column 1 uniform in [lo1, 2 lo1].
Tensor Columns(uint32_t seed, float hi0, float lo1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> a(0.0f, hi0), b(lo1, 2 * lo1);
  std::vector<float> v;
  for (int i = 0; i < kSamples; ++i) {
    v.push_back(a(rng));
    v.push_back(b(rng));
  }
  return Tensor::FromVector<float>({kSamples, 2}, v);
}

// ya = MatMul(x1, Wa) (ordinary data), yb = MatMul(x2, Wb) with Wb reading x2's tiny column.
fs::path WriteCase(const fs::path& dir, const nlohmann::json& quantization) {
  ModelBuilder b;
  b.Input("x1", DataType::kFloat, {-1, 2}).Input("x2", DataType::kFloat, {-1, 2});
  b.Output("ya", DataType::kFloat, {-1, 1}).Output("yb", DataType::kFloat, {-1, 1});
  b.Initializer("Wa", Tensor::FromVector<float>({2, 1}, {0.5f, -0.25f}));
  b.Initializer("Wb", Tensor::FromVector<float>({2, 1}, {0.0f, 1.0f}));
  b.Node("MatMul", {"x1", "Wa"}, {"ya"}, "mm_a");
  b.Node("MatMul", {"x2", "Wb"}, {"yb"}, "mm_b");
  std::ofstream(dir / "model.onnx", std::ios::binary) << b.Serialize();
  fs::create_directories(dir / "calib");
  WriteNpy((dir / "calib" / "x1.npy").string(), Columns(1, 4.0f, 1.0f));
  WriteNpy((dir / "calib" / "x2.npy").string(), Columns(2, 100.0f, 1e-3f));
  const nlohmann::json c = {{"model", (dir / "model.onnx").string()},
                            {"output", (dir / "q.onnx").string()},
                            {"calibration", {{"data", (dir / "calib").string()}, {"batch_size", 8}}},
                            {"quantization", quantization},
                            {"validation", {{"report", (dir / "q.report.html").string()}, {"gate", {{"min_sqnr_db", 20.0}}}}}};
  std::ofstream(dir / "c.json") << c.dump();
  return dir / "c.json";
}

// The float tensors the int8 model quantizes (the report's layer rows).
std::vector<std::string> QuantizedTensors(const nlohmann::json& report) {
  std::vector<std::string> out;
  for (const auto& l : report["layers"]) out.push_back(l["tensor"].get<std::string>());
  return out;
}

TEST(FallbackCli, KeepsOnlyTheNodeTheGateNeedsFloat) {
  for (const char* format : {"qoperator", "qdq"}) {
    TempDir without, with;
    const auto r0 = RunPtq("quantize --config " + WriteCase(without.path(), {{"format", format}}).string() + " --quiet");
    EXPECT_EQ(r0.exit_code, 3) << format << "\n" << r0.output;  // the default misses the gate
    const auto r1 = RunPtq("quantize --config " +
                           WriteCase(with.path(), {{"format", format}, {"fallback", "auto"}}).string() + " --quiet");
    ASSERT_EQ(r1.exit_code, 0) << format << "\n" << r1.output;
    const auto report = nlohmann::json::parse(ReadText(with.path() / "q.report.json"));
    const auto& fb = report["fallback"];
    EXPECT_TRUE(fb["met"].get<bool>()) << fb.dump();
    ASSERT_EQ(fb["kept_float"].size(), 1u) << fb.dump();
    EXPECT_EQ(fb["kept_float"][0]["nodes"], nlohmann::json::array({"mm_b"})) << fb.dump();
    EXPECT_GE(fb["runs"].get<int>(), 1);
    EXPECT_LT(fb["start"]["output_sqnr_db"].get<double>(), 20.0);
    EXPECT_GE(fb["kept_float"][0]["output_sqnr_db"].get<double>(), 20.0);
    EXPECT_GT(fb["cost"]["int8_bytes_after"].get<int64_t>(), 0);
    EXPECT_EQ(QuantizedTensors(report), std::vector<std::string>{"x1"}) << format;  // mm_a still reads 8 bits
    EXPECT_TRUE(report["gate"]["passed"].get<bool>());
    EXPECT_NE(ReadText(with.path() / "q.report.html").find("Automatic fallback"), std::string::npos);
  }
}

// A gate no model meets: the best model found is written and the exit code is 3.
TEST(FallbackCli, AnUnmeetableGateExitsThreeWithTheBestModel) {
  TempDir tmp;
  const fs::path cfg = WriteCase(tmp.path(), {{"fallback", "auto"}, {"fallback_budget", 1}});
  const auto r = RunPtq("quantize --config " + cfg.string() + " --set validation.gate.min_sqnr_db=200");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(fs::exists(tmp.path() / "q.onnx"));
  const auto report = nlohmann::json::parse(ReadText(tmp.path() / "q.report.json"));
  EXPECT_FALSE(report["fallback"]["met"].get<bool>());
  EXPECT_EQ(report["fallback"]["runs"].get<int>(), 1);
  EXPECT_NE(r.output.find("Automatic fallback"), std::string::npos) << r.output;
}

TEST(FallbackCli, AutoWithoutAGateIsAUsageError) {
  TempDir tmp;
  const fs::path cfg = WriteCase(tmp.path(), {{"fallback", "auto"}});
  const auto r = RunPtq("quantize --config " + cfg.string() + " --set validation.gate={}");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("validation.gate"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path() / "q.onnx"));
  const auto bad = RunPtq("quantize --config " + cfg.string() + " --set quantization.fallback=always");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("quantization.fallback"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace ptq
