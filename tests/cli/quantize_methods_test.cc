// The methods beyond plain calibration end to end through `ptq quantize`, both formats: SmoothQuant on
// a LayerNorm output with an outlier channel (the case it exists for) while the residual keeps the float
// values; bias correction on an input whose clipped tail shifts the product's mean; cross-layer
// equalization on the digits CNN (calibration and rewrite equalize alike); calibration.method "auto";
// config errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include <onnx/onnx_pb.h>

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

constexpr int kSamples = 64;
constexpr int kWidth = 16;

nlohmann::json RunCase(const fs::path& dir, const nlohmann::json& quantization, const nlohmann::json& calibration = nlohmann::json::object()) {
  nlohmann::json cal = {{"data", (dir / "data").string()}, {"batch_size", 16}};
  cal.update(calibration);
  const nlohmann::json c = {{"model", (dir / "model.onnx").string()},
                            {"output", (dir / "q.onnx").string()},
                            {"calibration", cal},
                            {"quantization", quantization},
                            {"validation", {{"report", (dir / "q.report.json").string()}}}};
  std::ofstream(dir / "c.json") << c.dump();
  const auto r = RunPtq("quantize --config " + (dir / "c.json").string() + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << quantization.dump() << "\n" << r.output;
  return nlohmann::json::parse(ReadText(dir / "q.report.json"));
}

double OutputSqnr(const nlohmann::json& report, const std::string& name) {
  for (const auto& o : report["outputs"]) {
    if (o["name"] == name) return o["sqnr_db"].is_number() ? o["sqnr_db"].get<double>() : 1e9;  // null: exact
  }
  ADD_FAILURE() << "no output " << name;
  return 0;
}

// x [N, 16] -> LayerNormalization (gamma 40 on channel 3: an outlier channel) -> X -> MatMul W -> y, and
// the residual r = X + x read in float.
void WriteOutlierEncoder(const fs::path& dir) {
  ModelBuilder m(17);
  m.Input("x", DataType::kFloat, {-1, kWidth}).Output("y", DataType::kFloat, {-1, 8}).Output("r", DataType::kFloat, {-1, kWidth});
  std::vector<float> gamma(kWidth, 1.0f), beta(kWidth, 0.0f), w(kWidth * 8);
  gamma[3] = 40.0f;
  std::mt19937 rng(5);
  std::normal_distribution<float> n(0.0f, 1.0f);
  for (float& v : w) v = 0.25f * n(rng);
  for (int j = 0; j < 8; ++j) w[3 * 8 + j] *= 0.05f;  // the outlier channel's weights are small, as trained ones are
  m.Initializer("gamma", Tensor::FromVector<float>({kWidth}, gamma)).Initializer("beta", Tensor::FromVector<float>({kWidth}, beta));
  m.Initializer("w", Tensor::FromVector<float>({kWidth, 8}, w));
  m.Node("LayerNormalization", {"x", "gamma", "beta"}, {"X"}, "ln");
  m.Node("MatMul", {"X", "w"}, {"y"}, "mm");
  m.Node("Add", {"X", "x"}, {"r"}, "residual");
  std::ofstream(dir / "model.onnx", std::ios::binary) << m.Serialize();
  std::vector<float> x(kSamples * kWidth);
  for (float& v : x) v = n(rng);
  fs::create_directories(dir / "data");
  WriteNpy((dir / "data" / "x.npy").string(), Tensor::FromVector<float>({kSamples, kWidth}, x));
}

TEST(QuantizeMethods, SmoothQuantRecoversAnOutlierChannelAndLeavesTheResidualFloat) {
  for (const char* format : {"qoperator", "qdq"}) {
    TempDir plain, smooth;
    WriteOutlierEncoder(plain.path());
    WriteOutlierEncoder(smooth.path());
    const auto a = RunCase(plain.path(), {{"format", format}});
    const auto b = RunCase(smooth.path(), {{"format", format}, {"smoothquant", true}});
    EXPECT_EQ(b["provenance"]["methods"]["smoothed_activations"], 1) << b["provenance"].dump();
    EXPECT_EQ(b["provenance"]["methods"]["smoothing_mul_nodes"], 1);  // the residual reads X: no folding
    // The outlier channel sets X's scale; smoothing moves it into the weight: several dB better.
    EXPECT_GT(OutputSqnr(b, "y"), OutputSqnr(a, "y") + 6) << format << ": " << OutputSqnr(a, "y") << " -> " << OutputSqnr(b, "y");
    EXPECT_GT(OutputSqnr(b, "r"), 100) << format;  // the residual reads the float LayerNorm output
    const auto table = nlohmann::json::parse(ReadText(smooth.path() / "q.calib.json"));
    ASSERT_EQ(table["smoothing"]["X"].size(), static_cast<size_t>(kWidth));
  }
}

// x [N, 4] -> MatMul(w) + b -> y. x's channel 0 is uniform in [0, 1] but 1 sample in 32 is 40 to 60:
// mse clips that tail, so Q(x) is too small on average and y's mean drops with it.
void WriteTailCase(const fs::path& dir) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 4}).Output("y", DataType::kFloat, {-1, 2});
  m.Initializer("w", Tensor::FromVector<float>({4, 2}, {1, 0.5f, 0.25f, -0.5f, 0.5f, 0.25f, -0.25f, 1}));
  m.Initializer("b", Tensor::FromVector<float>({2}, {0.1f, -0.2f}));
  m.Node("MatMul", {"x", "w"}, {"xw"}, "mm");
  m.Node("Add", {"xw", "b"}, {"y"}, "bias");
  std::ofstream(dir / "model.onnx", std::ios::binary) << m.Serialize();
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.0f, 1.0f), tail(40.0f, 60.0f);
  std::vector<float> x;
  for (int i = 0; i < 256; ++i) {
    x.push_back(i % 32 == 5 ? tail(rng) : u(rng));
    for (int c = 1; c < 4; ++c) x.push_back(u(rng));
  }
  fs::create_directories(dir / "data");
  WriteNpy((dir / "data" / "x.npy").string(), Tensor::FromVector<float>({256, 4}, x));
}

// x [N, 2] -> MatMul(w) + b -> y. x's channel 0 stays near 0.3 while channel 1 spans [0, 10] and sets
// the scale (10/255): 0.3 falls at 7.65 steps and rounds up to 8 in every sample, a shift that averages
// nowhere. With w0 = 20 that shift dominates y's error; bias correction takes it out (measured: 34.8 -> 40.7 dB;
// what is left is mostly y's own rounding).
void WriteBiasedRoundingCase(const fs::path& dir) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 2}).Output("y", DataType::kFloat, {-1, 1});
  m.Initializer("w", Tensor::FromVector<float>({2, 1}, {20, 0.5f}));
  m.Initializer("b", Tensor::FromVector<float>({1}, {0.1f}));
  m.Node("MatMul", {"x", "w"}, {"xw"}, "mm");
  m.Node("Add", {"xw", "b"}, {"y"}, "bias");
  std::ofstream(dir / "model.onnx", std::ios::binary) << m.Serialize();
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> near(0.299f, 0.301f), wide(0.0f, 10.0f);
  std::vector<float> x;
  for (int i = 0; i < 256; ++i) {
    x.push_back(near(rng));
    x.push_back(wide(rng));
  }
  fs::create_directories(dir / "data");
  WriteNpy((dir / "data" / "x.npy").string(), Tensor::FromVector<float>({256, 2}, x));
}

TEST(QuantizeMethods, BiasCorrectionRemovesAConsistentRoundingShift) {
  for (const char* format : {"qoperator", "qdq"}) {
    TempDir plain, corrected;
    WriteBiasedRoundingCase(plain.path());
    WriteBiasedRoundingCase(corrected.path());
    const auto a = RunCase(plain.path(), {{"format", format}, {"bias_correction", false}}, {{"method", "minmax"}});
    const auto b = RunCase(corrected.path(), {{"format", format}, {"bias_correction", true}}, {{"method", "minmax"}});
    EXPECT_EQ(b["provenance"]["methods"]["bias_corrected"], 1) << b["provenance"].dump();
    EXPECT_GT(OutputSqnr(b, "y"), OutputSqnr(a, "y") + 4) << format << ": " << OutputSqnr(a, "y") << " -> " << OutputSqnr(b, "y");
    const auto table = nlohmann::json::parse(ReadText(corrected.path() / "q.calib.json"));
    const auto& means = table["tensors"]["x"]["channel_means"];
    ASSERT_EQ(means["float"].size(), 2u) << table["tensors"]["x"].dump();
    const double scale = table["tensors"]["x"]["scale"][0].get<double>();
    // channel 0: Q(x) = 8 steps where x is 7.65 steps on average
    EXPECT_NEAR(means["quantized"][0].get<double>() - means["float"][0].get<double>(), 0.35 * scale, 0.03 * scale);
  }
}

TEST(QuantizeMethods, EqualizedModelsAreCalibratedAndRewrittenAlike) {
  const fs::path data = fs::path(PTQ_SOURCE_DIR) / "tests" / "data" / "digits_cnn";
  for (const char* format : {"qoperator", "qdq"}) {
    TempDir tmp;
    fs::copy_file(data / "digits_cnn.onnx", tmp.path() / "model.onnx");
    fs::create_directories(tmp.path() / "data");
    for (const auto& f : fs::directory_iterator(data / "calib")) fs::copy_file(f.path(), tmp.path() / "data" / f.path().filename());
    const auto r = RunCase(tmp.path(), {{"format", format}, {"cross_layer_equalization", true}});
    EXPECT_EQ(r["provenance"]["methods"]["equalized_pairs"], 1) << r["provenance"].dump();
    // A table made for other weights than the rewrite quantizes would wreck the output; equalized alike,
    // it stays where the plain model is (45 dB).
    EXPECT_GT(OutputSqnr(r, "logits"), 40) << format << " " << r["outputs"].dump();
  }
}

TEST(QuantizeMethods, AutoMethodMeasuresEachCandidateAndKeepsTheBest) {
  TempDir tmp;
  WriteTailCase(tmp.path());
  const auto r = RunCase(tmp.path(), nlohmann::json::object(), {{"method", "auto"}});
  const auto& c = r["provenance"]["method_choice"];
  ASSERT_TRUE(c.is_object()) << r["provenance"].dump();
  const double mse = c["worst_output_sqnr_db"]["mse"].get<double>(), minmax = c["worst_output_sqnr_db"]["minmax"].get<double>();
  EXPECT_EQ(c["chosen"], mse >= minmax ? "mse" : "minmax");
  EXPECT_NE(mse, minmax);  // the tail makes the two methods' ranges differ
  // The table holds the chosen method's ranges: those of a run with that method named.
  TempDir named;
  WriteTailCase(named.path());
  RunCase(named.path(), nlohmann::json::object(), {{"method", c["chosen"]}});
  const auto t_auto = nlohmann::json::parse(ReadText(tmp.path() / "q.calib.json"));
  const auto t_named = nlohmann::json::parse(ReadText(named.path() / "q.calib.json"));
  EXPECT_EQ(t_auto["tensors"]["x"]["scale"], t_named["tensors"]["x"]["scale"]);
  EXPECT_EQ(t_auto["tensors"]["x"]["zero_point"], t_named["tensors"]["x"]["zero_point"]);
}

// ptq calibrate with equalization, then ptq rewrite with a config that says otherwise: the rewrite
// follows the table (the model it describes), says so, and writes the same weights as a matching config.
TEST(QuantizeMethods, TheRewriteEqualizesAsTheTableSays) {
  const fs::path data = fs::path(PTQ_SOURCE_DIR) / "tests" / "data" / "digits_cnn";
  TempDir tmp;
  fs::copy_file(data / "digits_cnn.onnx", tmp.path() / "model.onnx");
  fs::create_directories(tmp.path() / "data");
  for (const auto& f : fs::directory_iterator(data / "calib")) fs::copy_file(f.path(), tmp.path() / "data" / f.path().filename());
  RunCase(tmp.path(), {{"cross_layer_equalization", true}});
  const std::string c = " --config " + (tmp.path() / "c.json").string() + " --table " + (tmp.path() / "q.calib.json").string();
  const auto same = RunPtq("rewrite" + c + " --out " + (tmp.path() / "same.onnx").string());
  const auto other = RunPtq("rewrite" + c + " --set quantization.cross_layer_equalization=false --out " +
                            (tmp.path() / "other.onnx").string());
  ASSERT_EQ(same.exit_code, 0) << same.output;
  ASSERT_EQ(other.exit_code, 0) << other.output;
  EXPECT_NE(other.output.find("the rewrite follows the table"), std::string::npos) << other.output;
  auto weights = [](const fs::path& p) {
    onnx::ModelProto m;
    const std::string bytes = ReadText(p);
    EXPECT_TRUE(m.ParseFromString(bytes));
    return m.graph().SerializeAsString();  // metadata (the config digest) aside
  };
  EXPECT_EQ(weights(tmp.path() / "same.onnx"), weights(tmp.path() / "other.onnx"));
  const auto table = nlohmann::json::parse(ReadText(tmp.path() / "q.calib.json"));
  EXPECT_EQ(table["cross_layer_equalization"], true);
}

TEST(QuantizeMethods, BadMethodKeysAreUsageErrorsNamingTheKey) {
  TempDir tmp;
  WriteTailCase(tmp.path());
  RunCase(tmp.path(), nlohmann::json::object());
  for (const std::string set : {"quantization.smoothquant_alpha=2", "quantization.bias_correction=yes",
                                "quantization.cross_layer_equalization=1", "calibration.method=best"}) {
    fs::remove(tmp.path() / "q.onnx");
    const auto r = RunPtq("quantize --config " + (tmp.path() / "c.json").string() + " --set " + set);
    EXPECT_EQ(r.exit_code, 1) << set << "\n" << r.output;
    EXPECT_NE(r.output.find(set.substr(0, set.find('='))), std::string::npos) << set << "\n" << r.output;
    EXPECT_FALSE(fs::exists(tmp.path() / "q.onnx")) << set;
  }
}

}  // namespace
}  // namespace ptq
