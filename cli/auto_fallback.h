// quantization.fallback "auto": keep the fewest nodes float that make validation.gate pass (greedy;
// candidates from the current model's worst layers, each candidate model measured on validation data).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report_json.h"
#include "report/validate.h"
#include "rewrite/rewriter.h"
#include "runtime/external_data_writer.h"
#include "runtime/graph.h"
#include "runtime/quantization_options.h"

namespace ptq {

// One quantized model the search holds: its options (exclusions), the model (its large tensors in
// `data`'s file), the rewrite's record, the runtime graph it was validated with, and its validation
// (per layer).
struct FallbackCandidate {
  QuantizationOptions options;
  onnx::ModelProto model;
  std::shared_ptr<ExternalDataWriter> data;
  RewriteInfo info;
  std::shared_ptr<const Graph> graph;  // set by the measure step
  ValidationResult result;
};

struct FallbackStep {
  std::vector<std::string> nodes;  // kept float together (NodesToUnquantize of `tensor`)
  std::string tensor;              // the quantized tensor whose loss that removes
  double layer_sqnr_db = 0;        // its SQNR in the model before the step
  double output_sqnr_db = 0;       // worst model output after the step
  std::optional<double> top1_drop;  // after the step, when labels give top-1
};

struct FallbackOutcome {
  int64_t budget = 0, runs = 0;    // candidate models measured
  bool met = false;                // the final model passes the gate
  std::string stopped;             // why the search ended, in words
  double start_sqnr_db = 0;        // worst output SQNR of the default model
  std::optional<double> start_top1_drop;
  std::vector<FallbackStep> kept;  // in the order chosen
  FallbackCandidate final;         // the best model found (the start when no step helped)
};

// Makes the quantized model for some options (the rewrite), and validates one (per layer).
using FallbackRewrite = std::function<FallbackCandidate(const QuantizationOptions& options)>;
using FallbackMeasure = std::function<void(FallbackCandidate* candidate)>;

// How many of the worst layers are tried at each step.
constexpr int kFallbackCandidatesPerStep = 3;

// The greedy search from `start` (already measured). Each step tries keeping float the nodes behind
// each of the kFallbackCandidatesPerStep worst layers of the current model (NodesToUnquantize: the
// tensor's producer and its MatMul/Gemm/Conv readers, less the nodes already kept), measures each candidate model, and keeps the best one if it is better than
// the current model (gate passed first, then the smaller top-1 excess, then the smaller shortfall of the
// task agreements below min_task_agreement, then the higher worst output SQNR). It stops when the gate passes, when `budget` models have been measured, or when no candidate
// is better.
FallbackOutcome AutoFallback(const Graph& float_model, const GateConfig& gate, int64_t budget, FallbackCandidate start,
                             const FallbackRewrite& rewrite, const FallbackMeasure& measure);

// The largest top-1 drop (float minus int8, a fraction) over the outputs with top-1; none without labels.
std::optional<double> Top1Drop(const ValidationResult& r);

// The median wall time of running `model` on `batch` (one warm-up run, then 3), in seconds.
double MedianRunSeconds(const std::shared_ptr<const Graph>& model, const std::map<std::string, Tensor>& batch);

// The report's "fallback" object: budget, runs, met, stopped, the start figures, the kept nodes with
// what each step bought, and the cost (int8 bytes and median run seconds before and after).
nlohmann::json FallbackJson(const FallbackOutcome& f, int64_t bytes_before, int64_t bytes_after, double seconds_before,
                            double seconds_after);

}  // namespace ptq
