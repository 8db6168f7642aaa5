// Regression tests of calibration: which constants are weights (a Gather's indices never are), and the
// number of quantization levels the range methods are told (reduce_range: 128, like the scales).
#include <gtest/gtest.h>

#include "calibrate/calibrator.h"
#include "calibrate/range_method.h"
#include "runtime/quant_math.h"
#include "tests/runtime/model_builder.h"
#include "calibrate/sample_reader.h"

namespace ptq {
namespace {

using testing::ModelBuilder;

const std::string kVit = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/digits_vit_opset13.onnx";
const std::string kCalib = std::string(PTQ_SOURCE_DIR) + "/tests/data/digits_vit/calib";

TEST(CalibrationSelection, ConstantGatherIndicesAreNoWeight) {
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 4}).Output("y", DataType::kFloat, {2, 4});
  Tensor table(DataType::kFloat, {6, 4});
  for (int64_t i = 0; i < table.size(); ++i) table.data<float>()[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  m.Initializer("table", table).Initializer("positions", Tensor::FromVector<int64_t>({2}, {1, 3}));
  m.Node("Gather", {"table", "positions"}, {"e"}, "gather");
  m.Node("Add", {"x", "e"}, {"y"}, "add");
  const Graph g = GraphFromModel(m.model(), ".", "gather model");
  CalibrationOptions o;
  o.quant.op_types = {"MatMul", "Gather"};
  const auto selected = SelectTensors(g, o);
  EXPECT_EQ(selected.count("positions"), 0u);
  ASSERT_EQ(selected.count("table"), 1u);
  EXPECT_EQ(selected.at("table"), TensorRole::kWeight);
  // Its parameters are chosen (one per-tensor scale: rows are gathered).
  CalibrationResult r;
  for (const auto& [name, role] : selected) r.tensors[name].role = role;
  ChooseQuantization(g, o, &r);
  EXPECT_EQ(r.tensors.at("table").scales.size(), 1u);
}

// entropy picks its threshold for the number of levels it is told: with reduce_range the activations
// get 128 levels, and so must the method; the scale then spans the chosen range over 127 steps.
TEST(CalibrationLevels, ReduceRangeTellsTheRangeMethodsItsLevels) {
  const Graph g = LoadGraph(kVit);
  CalibrationOptions o;
  o.method = "entropy";
  o.quant.reduce_range = true;
  SampleOptions so;
  so.batch_size = 16;
  SampleReader reader = SampleReader::Open(g, kCalib, so);
  CalibrationResult r = CollectStatistics(g, reader, o);
  ChooseQuantization(g, o, &r);
  const auto method = MakeRangeMethod("entropy");
  RangeOptions ro128, ro256;
  ro128.levels = 128;
  ro256.levels = 256;
  int checked = 0, differ = 0;
  for (const auto& [name, t] : r.tensors) {
    if (t.role != TensorRole::kActivation || t.histogram.empty()) continue;
    const Range want = method->Choose(t.histogram, ro128);
    EXPECT_EQ(t.range_min, want.min) << name;
    EXPECT_EQ(t.range_max, want.max) << name;
    const QuantParams p = ChooseQuantParams(want.min, want.max, 0, 127, false);
    EXPECT_EQ(t.scales[0], p.scale) << name;
    EXPECT_EQ(t.zero_points[0], p.zero_point) << name;
    const Range full = method->Choose(t.histogram, ro256);
    differ += full.min != want.min || full.max != want.max;
    ++checked;
  }
  EXPECT_GT(checked, 10);
  EXPECT_GT(differ, 0);  // the level count matters on this model: the test can tell them apart
}

}  // namespace
}  // namespace ptq
