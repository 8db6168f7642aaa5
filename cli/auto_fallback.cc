// AutoFallback: greedy keep-float search that meets validation.gate with the fewest float nodes.
#include "cli/auto_fallback.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <cmath>
#include <set>
#include <utility>

#include "report/keep_float.h"
#include "runtime/session.h"

namespace ptq {
namespace {

// How far a model is from the gate, compared lexicographically: passing first, then the top-1 drop
// beyond max_top1_drop (smaller is better), then the task agreement missing to min_task_agreement
// (summed over the outputs; smaller is better), then the worst output SQNR (higher is better).
struct Score {
  bool passes = false;
  double top1_excess = 0;
  double task_shortfall = 0;
  double sqnr_db = 0;
};

Score ScoreOf(const ValidationResult& r, const GateConfig& gate) {
  Score s;
  s.passes = GateFailures(r, gate).empty();
  const std::optional<double> drop = Top1Drop(r);
  if (gate.max_top1_drop && drop) s.top1_excess = std::max(0.0, *drop - *gate.max_top1_drop);
  for (const auto& o : r.outputs) {
    const std::optional<double> agreement = o.task ? TaskAgreement(*o.task) : std::nullopt;
    if (gate.min_task_agreement && agreement) s.task_shortfall += std::max(0.0, *gate.min_task_agreement - *agreement);
  }
  s.sqnr_db = WorstOutputSqnr(r);
  if (std::isnan(s.sqnr_db)) s.sqnr_db = -INFINITY;
  return s;
}

bool Better(const Score& a, const Score& b) {
  if (a.passes != b.passes) return a.passes;
  if (a.top1_excess != b.top1_excess) return a.top1_excess < b.top1_excess;
  if (a.task_shortfall != b.task_shortfall) return a.task_shortfall < b.task_shortfall;
  return a.sqnr_db > b.sqnr_db;
}

nlohmann::json Db(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

nlohmann::json Optional(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

}  // namespace

std::optional<double> Top1Drop(const ValidationResult& r) {
  std::optional<double> worst;
  for (const auto& o : r.outputs) {
    if (!o.has_top1 || o.labelled == 0) continue;
    const double drop = static_cast<double>(o.float_right - o.int8_right) / static_cast<double>(o.labelled);
    worst = worst ? std::max(*worst, drop) : drop;
  }
  return worst;
}

FallbackOutcome AutoFallback(const Graph& float_model, const GateConfig& gate, int64_t budget, FallbackCandidate start,
                             const FallbackRewrite& rewrite, const FallbackMeasure& measure) {
  FallbackOutcome out;
  out.budget = budget;
  out.start_sqnr_db = WorstOutputSqnr(start.result);
  out.start_top1_drop = Top1Drop(start.result);
  FallbackCandidate current = std::move(start);
  Score current_score = ScoreOf(current.result, gate);
  std::set<std::string> kept_nodes;
  while (!current_score.passes) {
    if (out.runs >= budget) {
      out.stopped = "the budget of " + std::to_string(budget) + " candidate models is spent";
      break;
    }
    // The candidates: the nodes behind the current model's worst layers.
    std::vector<FallbackStep> steps;
    std::set<std::vector<std::string>> seen;
    for (const LayerStats& l : current.result.layers) {
      if (static_cast<int>(steps.size()) >= kFallbackCandidatesPerStep) break;
      const std::vector<std::string> nodes = NodesToUnquantize(float_model, current.info.quantized_by, l.tensor);
      std::vector<std::string> fresh;
      for (const auto& n : nodes) {
        if (!kept_nodes.count(n)) fresh.push_back(n);
      }
      if (fresh.empty() || seen.count(fresh)) continue;
      seen.insert(fresh);
      FallbackStep s;
      s.nodes = fresh;
      s.tensor = l.tensor;
      s.layer_sqnr_db = l.error.sqnr_db();
      steps.push_back(s);
    }
    if (steps.empty()) {
      out.stopped = "no quantized layer is left to keep float";
      break;
    }
    std::optional<FallbackCandidate> best;
    Score best_score;
    FallbackStep best_step;
    for (FallbackStep& s : steps) {
      if (out.runs >= budget) break;
      QuantizationOptions o = current.options;
      o.exclude_nodes.insert(o.exclude_nodes.end(), s.nodes.begin(), s.nodes.end());
      FallbackCandidate c = rewrite(o);
      measure(&c);
      ++out.runs;
      const Score sc = ScoreOf(c.result, gate);
      if (!best || Better(sc, best_score)) {
        s.output_sqnr_db = sc.sqnr_db;
        s.top1_drop = Top1Drop(c.result);
        best_score = sc;
        best_step = s;
        best = std::move(c);
      }
    }
    if (!best || !Better(best_score, current_score)) {
      out.stopped = "keeping any of the worst layers float does not improve the model";
      break;
    }
    for (const auto& n : best_step.nodes) kept_nodes.insert(n);
    out.kept.push_back(best_step);
    current = std::move(*best);
    current_score = best_score;
  }
  out.met = current_score.passes;
  if (out.met) out.stopped = "the gate passes";
  out.final = std::move(current);
  return out;
}

double MedianRunSeconds(const std::shared_ptr<const Graph>& model, const std::map<std::string, Tensor>& batch) {
  Session session(model, SessionOptions::ObservingEveryTensor());
  session.Run(batch);
  std::vector<double> t;
  for (int i = 0; i < 3; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    session.Run(batch);
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[1];
}

nlohmann::json FallbackJson(const FallbackOutcome& f, int64_t bytes_before, int64_t bytes_after, double seconds_before,
                            double seconds_after) {
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& s : f.kept) {
    kept.push_back({{"nodes", s.nodes},
                    {"tensor", s.tensor},
                    {"layer_sqnr_db", Db(s.layer_sqnr_db)},
                    {"output_sqnr_db", Db(s.output_sqnr_db)},
                    {"top1_drop", Optional(s.top1_drop)}});
  }
  return {{"mode", "auto"},
          {"budget", f.budget},
          {"runs", f.runs},
          {"met", f.met},
          {"stopped", f.stopped},
          {"start", {{"output_sqnr_db", Db(f.start_sqnr_db)}, {"top1_drop", Optional(f.start_top1_drop)}}},
          {"kept_float", kept},
          {"cost",
           {{"int8_bytes_before", bytes_before},
            {"int8_bytes_after", bytes_after},
            {"run_seconds_before", seconds_before},
            {"run_seconds_after", seconds_after}}}};
}

}  // namespace ptq
