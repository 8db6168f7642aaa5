// The automatic fallback's search on a simulated model: four quantized tensors, each adding known noise
// to the output unless its producer is kept float. The search must meet the gate with the fewest
// nodes, stop at the budget, and stop when keeping nodes float no longer helps.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/auto_fallback.h"

namespace ptq {
namespace {

// Noise power each node's quantized output adds to the output (signal power 1).
const std::map<std::string, double> kNoise = {{"a", 0.004}, {"b", 0.002}, {"c", 0.0005}, {"d", 0.0001}};

ErrorMetrics MetricsWithSqnr(double db) {
  ErrorMetrics m;
  const float ref = 1.0f, got = static_cast<float>(1.0 - std::pow(10.0, -db / 20));
  m.Add(&ref, &got, 1);
  return m;
}

// The simulated validation: output SQNR from the noise of the nodes not excluded; one layer per such
// node, worst first, its SQNR from its own noise alone; `mislabelled` samples of 100 flip per node.
struct Simulated {
  std::map<std::string, int> mislabelled;  // top-1 losses per node (none: no labels)
  int measured = 0;

  void Measure(FallbackCandidate* c) {
    ++measured;
    const std::set<std::string> excluded(c->options.exclude_nodes.begin(), c->options.exclude_nodes.end());
    double noise = 1e-6;
    int lost = 0;
    ValidationResult r;
    for (const auto& [node, n] : kNoise) {
      if (excluded.count(node)) continue;
      noise += n;
      if (mislabelled.count(node)) lost += mislabelled.at(node);
      LayerStats l;
      l.tensor = node + "_out";
      l.error = MetricsWithSqnr(-10 * std::log10(n));
      r.layers.push_back(l);
    }
    std::sort(r.layers.begin(), r.layers.end(),
              [](const LayerStats& x, const LayerStats& y) { return x.error.sqnr_db() < y.error.sqnr_db(); });
    OutputStats o;
    o.name = "y";
    o.error = MetricsWithSqnr(-10 * std::log10(noise));
    if (!mislabelled.empty()) {
      o.has_top1 = true;
      o.labelled = 100;
      o.float_right = 90;
      o.int8_right = 90 - lost;
    }
    r.outputs.push_back(o);
    r.samples = 100;
    c->result = r;
    for (const auto& [node, n] : kNoise) c->info.quantized_by[node + "_out"] = node;
  }
};

FallbackCandidate Rewrite(const QuantizationOptions& o) {
  FallbackCandidate c;
  c.options = o;
  return c;
}

FallbackOutcome Search(Simulated* sim, const GateConfig& gate, int64_t budget) {
  FallbackCandidate start = Rewrite(QuantizationOptions());
  sim->Measure(&start);
  sim->measured = 0;
  const Graph none;
  return AutoFallback(none, gate, budget, start, Rewrite, [&](FallbackCandidate* c) { sim->Measure(c); });
}

std::vector<std::string> KeptNodes(const FallbackOutcome& f) {
  std::vector<std::string> out;
  for (const auto& s : f.kept) out.insert(out.end(), s.nodes.begin(), s.nodes.end());
  return out;
}

// Output SQNR with everything quantized: 10 log10(1 / 0.0066) = 21.8 dB. A 25 dB gate needs the
// noise below 0.00316: keeping a alone leaves 0.0026 (25.85 dB), so one node suffices.
TEST(AutoFallback, MeetsTheGateWithTheFewestNodes) {
  Simulated sim;
  GateConfig gate;
  gate.min_sqnr_db = 25.0;
  const FallbackOutcome f = Search(&sim, gate, 12);
  EXPECT_TRUE(f.met) << f.stopped;
  EXPECT_EQ(KeptNodes(f), std::vector<std::string>{"a"});
  EXPECT_NEAR(f.start_sqnr_db, 21.8, 0.05);
  ASSERT_EQ(f.kept.size(), 1u);
  EXPECT_NEAR(f.kept[0].output_sqnr_db, 25.85, 0.05);
  EXPECT_NEAR(f.kept[0].layer_sqnr_db, 23.98, 0.05);  // a's own noise
  EXPECT_EQ(f.runs, kFallbackCandidatesPerStep);       // one step, its candidates all measured
  EXPECT_EQ(sim.measured, f.runs);
  EXPECT_EQ(f.final.options.exclude_nodes, std::vector<std::string>{"a"});
}

// 30 dB needs the noise below 0.001: a and b kept (0.0006), in that order, over two steps.
TEST(AutoFallback, KeepsTheWorstLayersOneStepAtATime) {
  Simulated sim;
  GateConfig gate;
  gate.min_sqnr_db = 30.0;
  const FallbackOutcome f = Search(&sim, gate, 12);
  EXPECT_TRUE(f.met) << f.stopped;
  EXPECT_EQ(KeptNodes(f), (std::vector<std::string>{"a", "b"}));
  EXPECT_LE(f.runs, 2 * kFallbackCandidatesPerStep);
}

// The budget bounds the models measured; the best model found so far is the result, gate unmet.
TEST(AutoFallback, StopsAtTheBudgetWithTheBestModel) {
  Simulated sim;
  GateConfig gate;
  gate.min_sqnr_db = 30.0;
  const FallbackOutcome f = Search(&sim, gate, 2);
  EXPECT_FALSE(f.met);
  EXPECT_EQ(f.runs, 2);
  EXPECT_EQ(sim.measured, 2);
  EXPECT_EQ(KeptNodes(f), std::vector<std::string>{"a"});  // the better of the two measured
  EXPECT_NE(f.stopped.find("budget"), std::string::npos) << f.stopped;
}

// A gate no number of float nodes meets (the floor is 60 dB): the search keeps nodes while that
// helps and stops when no layer is left.
TEST(AutoFallback, StopsWhenNothingIsLeftToKeepFloat) {
  Simulated sim;
  GateConfig gate;
  gate.min_sqnr_db = 70.0;
  const FallbackOutcome f = Search(&sim, gate, 50);
  EXPECT_FALSE(f.met);
  EXPECT_EQ(KeptNodes(f).size(), 4u);
  EXPECT_NE(f.stopped.find("no quantized layer"), std::string::npos) << f.stopped;
}

// A top-1 gate: c costs 3 labels, a costs 1; max drop 0.02 needs c kept float even though a is the
// worst layer by SQNR (the smaller top-1 excess wins).
TEST(AutoFallback, ATop1GateKeepsTheNodeThatCostsLabels) {
  Simulated sim;
  sim.mislabelled = {{"a", 1}, {"c", 3}};
  GateConfig gate;
  gate.max_top1_drop = 0.02;
  const FallbackOutcome f = Search(&sim, gate, 12);
  EXPECT_TRUE(f.met) << f.stopped;
  EXPECT_EQ(KeptNodes(f), std::vector<std::string>{"c"});
  ASSERT_TRUE(f.start_top1_drop.has_value());
  EXPECT_NEAR(*f.start_top1_drop, 0.04, 1e-9);
  ASSERT_TRUE(f.kept[0].top1_drop.has_value());
  EXPECT_NEAR(*f.kept[0].top1_drop, 0.01, 1e-9);
}

}  // namespace
}  // namespace ptq
