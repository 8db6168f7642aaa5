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
  bool any() const { return min_sqnr_db.has_value() || max_top1_drop.has_value(); }
};

// What keeping one node in float buys: the model outputs' SQNR (worst output) with that node excluded.
struct Recovery {
  std::string node, tensor;
  double output_sqnr_db = 0, gain_db = 0;
};

// The failed thresholds, one sentence each ("output 'logits': SQNR 22.1 dB < min_sqnr_db 25"); empty
// when the gate passes or has no thresholds.
std::vector<std::string> GateFailures(const ValidationResult& r, const GateConfig& gate);

// The whole report. SQNR values that are infinite are written as the string "inf" / "-inf".
nlohmann::json ReportJson(const ValidationResult& r, const nlohmann::json& provenance, const nlohmann::json& model,
                          const std::vector<Recovery>& recovery, const GateConfig& gate);

// The worst SQNR over the model outputs (what Recovery compares).
double WorstOutputSqnr(const ValidationResult& r);

}  // namespace ptq
