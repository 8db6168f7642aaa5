// Pooled summaries keep their min/max range under any method: the same values clipped (percentile 99)
// where they are an ordinary activation reach the end of the range where GlobalAveragePool wrote them.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "calibrate/calibrator.h"
#include "runtime/npy.h"
#include "tests/cli/cli_test_util.h"
#include "tests/runtime/model_builder.h"
#include "calibrate/sample_reader.h"

namespace ptq {
namespace {

using testing::ModelBuilder;
using testing::TempDir;

TEST(PooledSummary, KeepsItsMinMaxRangeWhereTheSameValuesAreClipped) {
  // x [N, 8, 1, 1]: GlobalAveragePool of a 1x1 map is x itself, so `pooled` (through Flatten) and `flat`
  // (Flatten of x directly) hold the same values; each feeds a MatMul.
  ModelBuilder m;
  m.Input("x", DataType::kFloat, {-1, 8, 1, 1}).Output("a", DataType::kFloat).Output("b", DataType::kFloat);
  m.Initializer("w", Tensor::FromVector<float>({8, 1}, {1, 1, 1, 1, 1, 1, 1, 1}));
  m.Initializer("v", Tensor::FromVector<float>({8, 1}, {1, 1, 1, 1, 1, 1, 1, 1}));
  m.Node("GlobalAveragePool", {"x"}, {"gap"}, "gap");
  m.Node("Flatten", {"gap"}, {"pooled"}, "flatten_pooled");
  m.Node("Flatten", {"x"}, {"flat"}, "flatten_x");
  m.Node("MatMul", {"pooled", "w"}, {"a"}, "mm_a");
  m.Node("MatMul", {"flat", "v"}, {"b"}, "mm_b");
  const Graph g = GraphFromModel(m.model(), ".", "test");
  // Log-normal (sigma 1.5): a long thin tail.
  std::mt19937 rng(1);
  std::lognormal_distribution<float> e(0.0f, 1.5f);
  std::vector<float> x(512 * 8);
  float max = 0;
  for (float& v : x) max = std::max(max, v = e(rng));
  TempDir dir;
  WriteNpy((dir.path() / "x.npy").string(), Tensor::FromVector<float>({512, 8, 1, 1}, x));
  CalibrationOptions o;
  o.method = "percentile";  // 99: the top 1% of an ordinary activation is clipped
  o.percentile = 99.0;
  SampleReader reader = SampleReader::Open(g, dir.path().string(), SampleOptions());
  CalibrationResult r = CollectStatistics(g, reader, o);
  ChooseQuantization(g, o, &r);
  EXPECT_LT(r.tensors.at("flat").range_max, 0.5f * max) << "max " << max;  // an ordinary activation's tail is clipped
  EXPECT_NEAR(r.tensors.at("pooled").range_max, max, 0.01f * max);         // the pooled summary keeps it
}

}  // namespace
}  // namespace ptq
