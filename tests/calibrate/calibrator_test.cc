// Tests of the calibration pass on the digits ViT fixture: which tensors get statistics, the softmax
// output scale, per-channel weight scales, and determinism.
#include "calibrate/calibrator.h"

#include <gtest/gtest.h>

#include "runtime/attention_pattern.h"
#include "runtime/quant_math.h"
#include "calibrate/sample_reader.h"

namespace ptq {
namespace {

const std::string kVit = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/digits_vit_opset13.onnx";
const std::string kCalib = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/calib";

CalibrationResult Calibrate(const Graph& g, const CalibrationOptions& o, int64_t batch_size) {
  SampleOptions so;
  so.batch_size = batch_size;
  SampleReader reader = SampleReader::Open(g, kCalib, so);
  CalibrationResult r = CollectStatistics(g, reader, o);
  ChooseQuantization(g, o, &r);
  return r;
}

TEST(Calibrator, ObservesEveryQuantizedTensorAndMarksAttentionSoftmax) {
  const Graph g = LoadGraph(kVit);
  CalibrationOptions o;
  const CalibrationResult r = Calibrate(g, o, 16);
  EXPECT_EQ(r.samples, 64);
  int softmax = 0, weights = 0, activations = 0;
  for (const auto& kv : r.tensors) {
    const CalibratedTensor& t = kv.second;
    ASSERT_FALSE(t.histogram.empty()) << kv.first << " was never observed";
    ASSERT_FALSE(t.scales.empty()) << kv.first;
    for (float s : t.scales) EXPECT_TRUE(std::isfinite(s) && s > 0) << kv.first;
    if (t.role == TensorRole::kSoftmaxOutput) ++softmax;
    if (t.role == TensorRole::kWeight) ++weights;
    if (t.role == TensorRole::kActivation) ++activations;
  }
  EXPECT_EQ(softmax, static_cast<int>(FindAttention(g).size()));
  EXPECT_EQ(softmax, 2);
  EXPECT_GT(weights, 0);
  EXPECT_GT(activations, weights);
}

TEST(Calibrator, SoftmaxOutputScaleIsCalibratedMaxOver255OrFixed) {
  const Graph g = LoadGraph(kVit);
  CalibrationOptions o;
  const CalibrationResult calibrated = Calibrate(g, o, 16);
  o.softmax_calibrated = false;
  const CalibrationResult fixed = Calibrate(g, o, 16);
  for (const auto& kv : calibrated.tensors) {
    if (kv.second.role != TensorRole::kSoftmaxOutput) continue;
    const CalibratedTensor& t = kv.second;
    EXPECT_EQ(t.dtype, DataType::kUint8);
    EXPECT_EQ(t.zero_points, std::vector<int32_t>{0});
    EXPECT_LE(t.histogram.max(), 1.0f);
    EXPECT_GT(t.histogram.max(), 0.1f);
    EXPECT_FLOAT_EQ(t.scales[0], t.histogram.max() / 255.0f);
    EXPECT_EQ(fixed.tensors.at(kv.first).scales[0], 1.0f / 256.0f);
  }
}

TEST(Calibrator, WeightsGetOneSymmetricScalePerOutputColumn) {
  const Graph g = LoadGraph(kVit);
  CalibrationOptions o;
  const CalibrationResult r = Calibrate(g, o, 16);
  int checked = 0;
  for (const auto& kv : r.tensors) {
    if (kv.second.role != TensorRole::kWeight) continue;
    const Tensor& w = g.constants.at(kv.first);
    const CalibratedTensor& t = kv.second;
    ASSERT_GE(t.axis, 0) << kv.first;
    ASSERT_EQ(static_cast<int64_t>(t.scales.size()), w.dim(t.axis)) << kv.first;
    if (w.rank() != 2 || t.axis != 1) continue;
    for (int64_t c = 0; c < w.dim(1); ++c) {  // column c: max |w| / 127
      float amax = 0;
      for (int64_t k = 0; k < w.dim(0); ++k) amax = std::max(amax, std::fabs(w.data<float>()[k * w.dim(1) + c]));
      EXPECT_FLOAT_EQ(t.scales[static_cast<size_t>(c)], amax / 127.0f) << kv.first << " column " << c;
      EXPECT_EQ(t.zero_points[static_cast<size_t>(c)], 0);
    }
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(Calibrator, BatchSizeDoesNotChangeTheStatistics) {
  const Graph g = LoadGraph(kVit);
  CalibrationOptions o;
  o.method = "percentile";
  const CalibrationResult a = Calibrate(g, o, 1);
  const CalibrationResult b = Calibrate(g, o, 16);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& kv : a.tensors) {
    const CalibratedTensor& tb = b.tensors.at(kv.first);
    EXPECT_EQ(kv.second.histogram.count(), tb.histogram.count()) << kv.first;
    EXPECT_EQ(kv.second.histogram.bins(), tb.histogram.bins()) << kv.first;
    EXPECT_EQ(kv.second.scales, tb.scales) << kv.first;
    EXPECT_EQ(kv.second.zero_points, tb.zero_points) << kv.first;
  }
}

}  // namespace
}  // namespace ptq
