// The report as JSON (format "ptq-report", version 1; fields documented in report/README.md) and the
// accuracy gate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/validate.h"

namespace ptq {

struct GateConfig {
  std::optional<double> min_sqnr_db;    // every model output's SQNR must reach it
  std::optional<double> max_top1_drop;  // float top-1 minus int8 top-1 (fraction) must not exceed it
  // every task's main agreement figure (TaskAgreement: a fraction) must reach it
  std::optional<double> min_task_agreement;
  bool any() const { return min_sqnr_db.has_value() || max_top1_drop.has_value() || min_task_agreement.has_value(); }
};

// What keeping one tensor float buys: the model outputs' SQNR (worst output) with the nodes that
// quantize it excluded.
struct Recovery {
  std::vector<std::string> nodes;  // kept float together (NodesToUnquantize of `tensor`)
  std::string tensor;
  double output_sqnr_db = 0, gain_db = 0;  // on the first `samples` validation samples, both
  int64_t samples = 0;
};

// The failed checks, one sentence each; empty when the gate passes or has no thresholds. With any
// threshold set, the gate also fails on an output whose int8 values are not finite where the float
// ones are, on an output whose float and int8 forms differ in type or shape, and (with min_sqnr_db) on
// a float output with no finite value to measure.
std::vector<std::string> GateFailures(const ValidationResult& r, const GateConfig& gate);
// The outputs the thresholds do not cover (integer outputs, compared element for element), one
// sentence each; empty without thresholds.
std::vector<std::string> GateUnchecked(const ValidationResult& r, const GateConfig& gate);

// The whole report. Infinite and NaN values are written as the strings "inf", "-inf" and "nan"; the
// error figures of an output that SQNR does not cover are null.
// `warnings` are what the rewrite changed on its own (RewriteInfo::warnings).
nlohmann::json ReportJson(const ValidationResult& r, const nlohmann::json& provenance, const nlohmann::json& model,
                          const std::vector<Recovery>& recovery, const GateConfig& gate,
                          const std::vector<std::string>& warnings = {});

// The worst SQNR over the model outputs (what Recovery compares).
double WorstOutputSqnr(const ValidationResult& r);

}  // namespace ptq
