// Tests of `ptq calibrate` on awkward data: NaN/Inf, constant tensors, shapes that vary between
// samples, extra and mis-typed files; each gives a warning with a defined result or an error before work.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "runtime/npy.h"
#include "runtime/tensor_proto.h"
#include "tests/cli/cli_test_util.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;
using testing::ReadText;
using testing::RunPtq;
using testing::TempDir;

// y = X·W and z = Zc·W with a [1, S, 4] input X (S symbolic) and a [1, S, 4] input Zc.
void WriteModel(const fs::path& path) {
  ModelBuilder b(13);
  b.Input("X", DataType::kFloat, {1, -1, 4}).Input("Zc", DataType::kFloat, {1, -1, 4});
  b.Initializer("W", Tensor::FromVector<float>({4, 3}, {1, 2, 3, 4, 5, 6, -1, -2, -3, 0.5f, 0.25f, 0}));
  b.Node("MatMul", {"X", "W"}, {"y"}, "mm_x");
  b.Node("MatMul", {"Zc", "W"}, {"z"}, "mm_z");
  b.Output("y", DataType::kFloat).Output("z", DataType::kFloat);
  std::ofstream(path, std::ios::binary) << b.Serialize();
}

// minmax: the tests check ranges against the data's extremes.
fs::path WriteConfig(const fs::path& dir, const fs::path& data) {
  WriteModel(dir / "m.onnx");
  const nlohmann::json c = {{"model", (dir / "m.onnx").string()},
                            {"output", (dir / "m.int8.onnx").string()},
                            {"calibration", {{"data", data.string()}, {"batch_size", 1}, {"method", "minmax"}}}};
  std::ofstream(dir / "c.json") << c.dump();
  return dir / "c.json";
}

// Values 0, 1, ..., n-1 shifted by `offset`.
Tensor Ramp(Shape shape, float offset) {
  Tensor t(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = static_cast<float>(i) + offset;
  return t;
}

nlohmann::json RunAndReadTable(const fs::path& cfg, const fs::path& out, std::string* output) {
  const auto r = RunPtq("calibrate --config " + cfg.string() + " --out " + out.string());
  *output = r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.exit_code == 0 ? nlohmann::json::parse(ReadText(out)) : nlohmann::json();
}

TEST(CalibrateData, NanAndInfAreWarnedCountedAndExcluded) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "d");
  Tensor x = Ramp({3, 2, 4}, -4.0f);  // 3 samples of [1, 2, 4] (fixed batch 1: rows), values -4 .. 19
  x.data<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  x.data<float>()[9] = std::numeric_limits<float>::infinity();
  x.data<float>()[23] = -std::numeric_limits<float>::infinity();
  WriteNpy((tmp.path() / "d" / "X.npy").string(), x);
  WriteNpy((tmp.path() / "d" / "Zc.npy").string(), Ramp({3, 2, 4}, 0.0f));
  std::string out;
  const auto table = RunAndReadTable(WriteConfig(tmp.path(), tmp.path() / "d"), tmp.path() / "t.json", &out);
  EXPECT_NE(out.find("model input 'X' has 1 NaN and 2 infinite values"), std::string::npos) << out;
  EXPECT_NE(out.find("tensor 'X': 1 NaN and 2 infinite values, excluded from its statistics"), std::string::npos) << out;
  const auto& stats = table["tensors"]["X"]["stats"];
  EXPECT_EQ(stats["nan"], 1);
  EXPECT_EQ(stats["pos_inf"], 1);
  EXPECT_EQ(stats["neg_inf"], 1);
  EXPECT_EQ(stats["count"], 21);
  // The finite values -4 .. 18 (19 was the -Inf) set the range; the scale is finite.
  EXPECT_EQ(table["tensors"]["X"]["range"], nlohmann::json::array({-4.0, 18.0}));
  EXPECT_FLOAT_EQ(table["tensors"]["X"]["scale"][0].get<float>(), 22.0f / 255.0f);
  // The outputs of X·W carry NaN too (rows with NaN/Inf): counted, excluded, warned.
  EXPECT_GT(table["tensors"]["y"]["stats"]["nan"].get<int>(), 0);
  EXPECT_TRUE(std::isfinite(table["tensors"]["y"]["scale"][0].get<float>()));
}

TEST(CalibrateData, AllZeroTensorGetsTheZeroWidthScaleAndAWarning) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "d");
  WriteNpy((tmp.path() / "d" / "X.npy").string(), Ramp({2, 3, 4}, 1.0f));
  Tensor zeros(DataType::kFloat, {2, 3, 4});
  for (int64_t i = 0; i < zeros.size(); ++i) zeros.data<float>()[i] = 0.0f;
  WriteNpy((tmp.path() / "d" / "Zc.npy").string(), zeros);
  std::string out;
  const auto table = RunAndReadTable(WriteConfig(tmp.path(), tmp.path() / "d"), tmp.path() / "t.json", &out);
  for (const char* name : {"Zc", "z"}) {
    const auto& t = table["tensors"][name];
    EXPECT_EQ(t["range"], nlohmann::json::array({0.0, 0.0})) << name;
    EXPECT_EQ(t["scale"][0], 1.0) << name;
    EXPECT_EQ(t["zero_point"][0], 0) << name;
    EXPECT_NE(out.find(std::string("tensor '") + name + "' is constant (0) over all samples"), std::string::npos) << out;
  }
  EXPECT_EQ(out.find("tensor 'X' is constant"), std::string::npos) << out;
}

// Samples in test_data_set_* folders may differ in a symbolic dimension (here the sequence length):
// every sample is observed, and the table records the largest shape seen.
TEST(CalibrateData, SymbolicDimensionMayDifferBetweenSamples) {
  TempDir tmp;
  const int64_t lengths[] = {5, 9, 2};
  int64_t elements = 0;
  for (int i = 0; i < 3; ++i) {
    const fs::path d = tmp.path() / "d" / ("test_data_set_" + std::to_string(i));
    fs::create_directories(d);
    for (const char* name : {"X", "Zc"}) {
      onnx::TensorProto p;
      TensorToProto(Ramp({1, lengths[i], 4}, static_cast<float>(i)), name, &p);
      std::ofstream(d / (std::string("input_") + (name[0] == 'X' ? "0" : "1") + ".pb"), std::ios::binary)
          << p.SerializeAsString();
    }
    elements += lengths[i] * 4;
  }
  std::string out;
  const auto table = RunAndReadTable(WriteConfig(tmp.path(), tmp.path() / "d"), tmp.path() / "t.json", &out);
  EXPECT_EQ(table["samples"], 3);
  EXPECT_EQ(table["tensors"]["X"]["shape"], nlohmann::json::array({1, 9, 4}));
  EXPECT_EQ(table["tensors"]["X"]["stats"]["count"], elements);
  EXPECT_EQ(table["tensors"]["y"]["shape"], nlohmann::json::array({1, 9, 3}));
  // Sample 1 holds 1 .. 36, the largest value of all.
  EXPECT_EQ(table["tensors"]["X"]["range"], nlohmann::json::array({0.0, 36.0}));
}

TEST(CalibrateData, ExtraOrMistypedFilesFailBeforeWorkAndWriteNothing) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "d");
  WriteNpy((tmp.path() / "d" / "X.npy").string(), Ramp({2, 3, 4}, 0.0f));
  WriteNpy((tmp.path() / "d" / "Zc.npy").string(), Ramp({2, 3, 4}, 0.0f));
  WriteNpy((tmp.path() / "d" / "mask.npy").string(), Ramp({2, 3}, 0.0f));
  const fs::path cfg = WriteConfig(tmp.path(), tmp.path() / "d");
  auto r = RunPtq("calibrate --config " + cfg.string() + " --out " + (tmp.path() / "t.json").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("mask.npy"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("match(es) no input of the model"), std::string::npos) << r.output;
  fs::remove(tmp.path() / "d" / "mask.npy");
  WriteNpy((tmp.path() / "d" / "Zc.npy").string(), Tensor::FromVector<double>({1, 1, 4}, {0, 1, 2, 3}));
  r = RunPtq("calibrate --config " + cfg.string() + " --out " + (tmp.path() / "t.json").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("Zc"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("expects float32 data but the file holds float64"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp.path() / "t.json"));
}

}  // namespace
}  // namespace ptq
