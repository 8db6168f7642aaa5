// The statistics passes of the methods beyond plain calibration: bias correction's channel means (float
// and quantized with the chosen parameters, clipping included) and SmoothQuant's channel maxima, on
// inputs whose answers are worked out by hand; and the table keeping them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <cmath>
#include <memory>

#include "calibrate/calibration_table.h"
#include "calibrate/channel_absmax.h"
#include "calibrate/channel_means.h"
#include "runtime/error.h"
#include "runtime/npy.h"
#include "tests/cli/cli_test_util.h"
#include "tests/runtime/model_builder.h"
#include "calibrate/sample_reader.h"

namespace ptq {
namespace {

using testing::ModelBuilder;
using testing::TempDir;

// x [N, 2] -> MatMul(w [2, 1]) -> y; two samples written to dir/x.npy.
Graph MatMulGraph(const TempDir& dir) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 2}).Output("y", DataType::kFloat);
  m.Initializer("w", Tensor::FromVector<float>({2, 1}, {1, 1}));
  m.Node("MatMul", {"x", "w"}, {"y"}, "mm");
  // channel 0: 0.14 and 0.34 (0.7 and 1.7 steps of 0.2: quantized to 0.2 and 0.4); channel 1: 1.02 and
  // 60 (5.1 steps: 1.0; 300 steps: clipped to 255, i.e. 51).
  WriteNpy((dir.path() / "x.npy").string(), Tensor::FromVector<float>({2, 2}, {0.14f, 1.02f, 0.34f, 60.0f}));
  return GraphFromModel(m.model(), ".", "test");
}

CalibrationResult UInt8Table() {
  CalibrationResult r;
  CalibratedTensor& x = r.tensors["x"];
  x.role = TensorRole::kActivation;
  x.dtype = DataType::kUint8;
  x.scales = {0.2f};
  x.zero_points = {0};
  x.shape = {2, 2};
  return r;
}

TEST(ChannelStats, MeansOfFloatAndQuantizedValuesPerChannel) {
  TempDir dir;
  const Graph g = MatMulGraph(dir);
  CalibrationResult r = UInt8Table();
  CalibrationOptions o;
  EXPECT_EQ(ChannelMeanTensors(g, o, r), (std::map<std::string, int64_t>{{"x", -1}}));
  SampleReader reader = SampleReader::Open(g, dir.path().string(), SampleOptions());
  CollectChannelMeans(g, reader, o, &r);
  const CalibratedTensor& x = r.tensors.at("x");
  EXPECT_EQ(x.mean_axis, 1);
  ASSERT_EQ(x.float_mean.size(), 2u);
  EXPECT_NEAR(x.float_mean[0], 0.24, 1e-6);
  EXPECT_NEAR(x.quantized_mean[0], 0.3, 1e-6);
  EXPECT_NEAR(x.float_mean[1], 30.51, 1e-5);
  EXPECT_NEAR(x.quantized_mean[1], 26.0, 1e-5);
  // The table keeps them, and reads them back.
  const nlohmann::json j = CalibrationTableToJson(r, TableProvenance());
  TableProvenance p;
  const CalibrationResult back = CalibrationTableFromJson(j, "table", &p);
  EXPECT_EQ(back.tensors.at("x").float_mean, x.float_mean);
  EXPECT_EQ(back.tensors.at("x").quantized_mean, x.quantized_mean);
  EXPECT_EQ(back.tensors.at("x").mean_axis, 1);
}

TEST(ChannelStats, NonFiniteValuesAreLeftOutOfTheMeans) {
  TempDir dir;
  const Graph g = MatMulGraph(dir);
  // a third sample: NaN in channel 0, +Inf in channel 1
  WriteNpy((dir.path() / "x.npy").string(),
           Tensor::FromVector<float>({3, 2}, {0.14f, 1.02f, 0.34f, 60.0f, NAN, INFINITY}));
  CalibrationResult r = UInt8Table();
  SampleReader reader = SampleReader::Open(g, dir.path().string(), SampleOptions());
  CollectChannelMeans(g, reader, CalibrationOptions(), &r);
  const CalibratedTensor& x = r.tensors.at("x");
  EXPECT_NEAR(x.float_mean[0], 0.24, 1e-6);  // the two finite values, as before
  EXPECT_NEAR(x.quantized_mean[1], 26.0, 1e-5);
  // and the table stays readable (a NaN would be written as null)
  TableProvenance p;
  EXPECT_NO_THROW(CalibrationTableFromJson(CalibrationTableToJson(r, TableProvenance()), "table", &p));
}

TEST(ChannelStats, AbsoluteMaximaAlongTheLastAxis) {
  TempDir dir;
  const Graph g = MatMulGraph(dir);
  SampleReader reader = SampleReader::Open(g, dir.path().string(), SampleOptions());
  const auto m = CollectChannelAbsMax(g, reader, {"x", "not_produced"});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m.at("x"), (std::vector<float>{0.34f, 60.0f}));
}

TEST(ChannelStats, MalformedMeansAndSmoothingInATableAreInputErrors) {
  CalibrationResult r = UInt8Table();
  r.tensors.at("x").mean_axis = 1;
  r.tensors.at("x").float_mean = {1, 2};
  r.tensors.at("x").quantized_mean = {1, 2};
  r.smoothing["x"] = {1, 2};
  const nlohmann::json good = CalibrationTableToJson(r, TableProvenance());
  TableProvenance p;
  EXPECT_EQ(CalibrationTableFromJson(good, "table", &p).smoothing.at("x"), (std::vector<float>{1, 2}));
  auto expect_error = [&](nlohmann::json j, const std::string& says) {
    try {
      CalibrationTableFromJson(j, "table", &p);
      ADD_FAILURE() << "expected an input error saying " << says;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInput);
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  nlohmann::json j = good;
  j["tensors"]["x"]["channel_means"]["quantized"] = {1};
  expect_error(j, "one mean per channel");
  j = good;
  j["tensors"]["x"]["channel_means"]["axis"] = 5;
  expect_error(j, "axis");
  j = good;
  j["smoothing"]["x"] = {1, -2};
  expect_error(j, "not a positive finite number");
  j = good;
  j["smoothing"]["x"] = "2";
  expect_error(j, "list of factors");
}

TEST(ChannelStats, MergingDropsMeansAndRefusesSmoothedTables) {
  CalibrationResult a = UInt8Table(), b = UInt8Table();
  a.tensors.at("x").mean_axis = b.tensors.at("x").mean_axis = 1;
  a.tensors.at("x").float_mean = b.tensors.at("x").float_mean = {1, 2};
  a.tensors.at("x").quantized_mean = b.tensors.at("x").quantized_mean = {1, 2};
  MergeCalibrationResults(&a, TableProvenance(), b, TableProvenance(), "b");
  EXPECT_TRUE(a.tensors.at("x").float_mean.empty());  // measured with each shard's parameters
  b.smoothing["x"] = {1, 2};
  EXPECT_THROW(MergeCalibrationResults(&a, TableProvenance(), b, TableProvenance(), "b"), Error);
}

}  // namespace
}  // namespace ptq
