// End-to-end reproductions of silently wrong results: three-node float models built for the purpose,
// quantized with `ptq quantize`, the int8 model run with `ptq run`, its values checked against float.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

// x [kSamples, 2]: column 0 uniform in [0, 100], column 1 uniform in [1e-3, 2e-3].
Tensor MixedScaleInput(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> big(0.0f, 100.0f), tiny(1e-3f, 2e-3f);
  std::vector<float> v;
  for (int i = 0; i < kSamples; ++i) {
    v.push_back(big(rng));
    v.push_back(tiny(rng));
  }
  return Tensor::FromVector<float>({kSamples, 2}, v);
}

// Writes model.onnx, calib/x.npy and a config; returns the config path.
fs::path WriteCase(const fs::path& dir, ModelBuilder& b, const Tensor& x, const nlohmann::json& validation,
               const std::string& format = "qoperator") {
  std::ofstream(dir / "model.onnx", std::ios::binary) << b.Serialize();
  fs::create_directories(dir / "calib");
  WriteNpy((dir / "calib" / "x.npy").string(), x);
  const nlohmann::json c = {{"model", (dir / "model.onnx").string()},
                            {"output", (dir / "q.onnx").string()},
                            {"calibration", {{"data", (dir / "calib").string()}, {"batch_size", 8}}},
                            {"quantization", {{"format", format}}},
                            {"validation", validation}};
  std::ofstream(dir / "c.json") << c.dump();
  return dir / "c.json";
}

// Runs `model` on one input folder; returns the output `name`.
Tensor RunModel(const fs::path& model, const fs::path& inputs, const fs::path& outputs, const std::string& name) {
  const auto r = RunPtq("run " + model.string() + " --inputs " + inputs.string() + " --outputs " + outputs.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return ReadNpy((outputs / (name + ".npy")).string());
}

// Reciprocal(MatMul(x, W)) with W = [[0], [1]]: float y = 1 / x[:, 1] (500..1000). x is quantized per
// tensor over [0, 100], so x[:, 1] becomes 0 and the int8 model returns +Inf for every sample.
TEST(QuantizeCorrectness, TheGateFailsWhenTheInt8OutputIsNotFinite) {
  TempDir tmp;
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {-1, 2}).Output("y", DataType::kFloat, {-1, 1});
  b.Initializer("W", Tensor::FromVector<float>({2, 1}, {0.0f, 1.0f}));
  b.Node("MatMul", {"x", "W"}, {"p"}, "mm");
  b.Node("Reciprocal", {"p"}, {"y"}, "recip");
  const fs::path cfg = WriteCase(tmp.path(), b, MixedScaleInput(1), {{"gate", {{"min_sqnr_db", 20.0}}}});
  const auto r = RunPtq("quantize --config " + cfg.string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("not finite"), std::string::npos) << r.output;
  const auto report = nlohmann::json::parse(ReadText(tmp.path() / "q.report.json"));
  const auto& y = report["outputs"][0];
  EXPECT_EQ(y["name"], "y");
  EXPECT_EQ(y["nonfinite"]["count"], kSamples) << y.dump();
  EXPECT_EQ(y["nonfinite"]["first_index"], 0) << y.dump();
  EXPECT_EQ(y["sqnr_db"], "-inf") << y.dump();
  EXPECT_FALSE(report["gate"]["passed"].get<bool>());
}

// An output the validation cannot compare (here int64, from ArgMax) is named in the report and in the
// gate's verdict instead of disappearing from both.
TEST(QuantizeCorrectness, AnOutputThatIsNotComparedIsNamed) {
  TempDir tmp;
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {-1, 2}).Output("y", DataType::kFloat, {-1, 2}).Output("k", DataType::kInt64, {-1, 1});
  b.Initializer("W", Tensor::FromVector<float>({2, 2}, {1.0f, 0.5f, -0.5f, 1.0f}));
  b.Node("MatMul", {"x", "W"}, {"y"}, "mm");
  b.Node("ArgMax", {"y"}, {"k"}, "argmax").add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("axis");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(1);
    return a;
  }());
  const fs::path cfg = WriteCase(tmp.path(), b, MixedScaleInput(2), {{"gate", {{"min_sqnr_db", 20.0}}}});
  const auto r = RunPtq("quantize --config " + cfg.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto report = nlohmann::json::parse(ReadText(tmp.path() / "q.report.json"));
  ASSERT_EQ(report["outputs"].size(), 2u);
  const auto& k = report["outputs"][1];
  EXPECT_EQ(k["name"], "k");
  EXPECT_FALSE(k["compared"].get<bool>()) << k.dump();
  EXPECT_NE(k["reason"].get<std::string>().find("int64"), std::string::npos) << k.dump();
  EXPECT_EQ(k["exact_match"].get<double>(), 1.0) << k.dump();  // argmax agrees on these samples
  ASSERT_EQ(report["gate"]["unchecked"].size(), 1u) << report["gate"].dump();
  EXPECT_NE(report["gate"]["unchecked"][0].get<std::string>().find("'k'"), std::string::npos);
}

// r = Relu(MatMul(x, W1)) is a model output and also feeds MatMul(r, W2). The Relu must not be folded
// away from the output: the int8 model's r has no negative values.
TEST(QuantizeCorrectness, AReluWhoseOutputIsAModelOutputKeepsItsValues) {
  for (const char* format : {"qoperator", "qdq"}) {
    TempDir tmp;
    ModelBuilder b;
    b.Input("x", DataType::kFloat, {-1, 2}).Output("r", DataType::kFloat, {-1, 2}).Output("z", DataType::kFloat, {-1, 1});
    b.Initializer("W1", Tensor::FromVector<float>({2, 2}, {0.1f, -0.1f, -1.0f, 1.0f}));
    b.Initializer("W2", Tensor::FromVector<float>({2, 1}, {1.0f, 1.0f}));
    b.Node("MatMul", {"x", "W1"}, {"h"}, "mm1");
    b.Node("Relu", {"h"}, {"r"}, "relu");
    b.Node("MatMul", {"r", "W2"}, {"z"}, "mm2");
    const fs::path cfg = WriteCase(tmp.path(), b, MixedScaleInput(3), nlohmann::json::object(), format);
    const auto q = RunPtq("quantize --config " + cfg.string() + " --quiet");
    ASSERT_EQ(q.exit_code, 0) << q.output;
    const Tensor r = RunModel(tmp.path() / "q.onnx", tmp.path() / "calib", tmp.path() / "out", "r");
    const float* v = r.data<float>();
    EXPECT_GE(*std::min_element(v, v + r.size()), 0.0f) << format;
  }
}

// MatMul(x, W) + b where W's second column is ~1e-7 and its bias 5.0: int32 bias = 5 / (x_scale *
// w_scale) does not fit in 32 bits. The weight scale of that channel is raised until it fits (and the
// report says so), so the column keeps its bias instead of saturating to ~0.
TEST(QuantizeCorrectness, ABiasTooLargeForInt32RaisesItsChannelsWeightScale) {
  for (const char* format : {"qoperator", "qdq"}) {
    TempDir tmp;
    ModelBuilder b;
    b.Input("x", DataType::kFloat, {-1, 2}).Output("y", DataType::kFloat, {-1, 2});
    b.Initializer("W", Tensor::FromVector<float>({2, 2}, {0.5f, 1e-7f, 0.25f, -1e-7f}));
    b.Initializer("B", Tensor::FromVector<float>({2}, {0.5f, 5.0f}));
    b.Node("MatMul", {"x", "W"}, {"p"}, "mm");
    b.Node("Add", {"p", "B"}, {"y"}, "bias");
    const fs::path cfg = WriteCase(tmp.path(), b, MixedScaleInput(4), nlohmann::json::object(), format);
    const auto q = RunPtq("quantize --config " + cfg.string());
    ASSERT_EQ(q.exit_code, 0) << q.output;
    EXPECT_NE(q.output.find("int32"), std::string::npos) << q.output;
    const Tensor y = RunModel(tmp.path() / "q.onnx", tmp.path() / "calib", tmp.path() / "out", "y");
    ASSERT_EQ(y.size(), 2 * kSamples);
    for (int i = 0; i < kSamples; ++i) EXPECT_NEAR(y.data<float>()[2 * i + 1], 5.0f, 0.05f) << format << " sample " << i;
    const auto report = nlohmann::json::parse(ReadText(tmp.path() / "q.report.json"));
    ASSERT_GE(report["warnings"].size(), 1u) << report.dump();
    EXPECT_NE(report["warnings"][0].get<std::string>().find("'W'"), std::string::npos) << report["warnings"].dump();
  }
}

}  // namespace
}  // namespace ptq
