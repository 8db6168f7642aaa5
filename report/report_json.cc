// ReportJson and the gate: the validation result and provenance in the report's JSON layout.
#include "report/report_json.h"

#include <cmath>
#include <sstream>

namespace ptq {
namespace {

nlohmann::json Number(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  return v;
}

std::string Fixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

double Rate(int64_t k, int64_t n) { return n ? static_cast<double>(k) / static_cast<double>(n) : 0.0; }

}  // namespace

double WorstOutputSqnr(const ValidationResult& r) {
  double worst = INFINITY;
  for (const auto& o : r.outputs) {
    if (o.error.count() > 0 || o.error.nonfinite() > 0) worst = std::min(worst, o.error.sqnr_db());
  }
  return worst;
}

std::vector<std::string> GateFailures(const ValidationResult& r, const GateConfig& gate) {
  std::vector<std::string> out;
  if (!gate.any()) return out;
  for (const auto& o : r.outputs) {
    const ErrorMetrics& e = o.error;
    if (e.nonfinite() > 0) {
      out.push_back("output '" + o.name + "': " + std::to_string(e.nonfinite()) +
                    " int8 values are not finite (NaN or Inf) where the float values are finite; the first at element " +
                    std::to_string(e.first_nonfinite()));
    }
    if (o.mismatch) out.push_back("output '" + o.name + "' could not be compared: " + o.reason);
    if (gate.min_sqnr_db && o.compared && e.count() == 0 && e.nonfinite() == 0 && e.skipped() > 0) {
      out.push_back("output '" + o.name + "': no finite float value to measure SQNR on (" + std::to_string(e.skipped()) +
                    " NaN or Inf)");
    }
    if (gate.min_sqnr_db && e.count() > 0 && e.nonfinite() == 0 && !(e.sqnr_db() >= *gate.min_sqnr_db)) {
      out.push_back("output '" + o.name + "': SQNR " + Fixed(o.error.sqnr_db(), 2) + " dB < min_sqnr_db " +
                    Fixed(*gate.min_sqnr_db, 2));
    }
    const std::optional<double> agreement = o.task ? TaskAgreement(*o.task) : std::nullopt;
    if (gate.min_task_agreement && agreement && *agreement < *gate.min_task_agreement) {
      out.push_back("output '" + o.name + "': " + TaskTypeName(o.task->spec.type) + " " +
                    TaskAgreementName(o.task->spec.type) + " " + Fixed(*agreement, 4) + " < min_task_agreement " +
                    Fixed(*gate.min_task_agreement, 4));
    }
    if (gate.max_top1_drop && o.has_top1) {
      const double drop = Rate(o.float_right, o.labelled) - Rate(o.int8_right, o.labelled);
      if (drop > *gate.max_top1_drop) {
        out.push_back("output '" + o.name + "': top-1 drops by " + Fixed(drop, 4) + " > max_top1_drop " +
                      Fixed(*gate.max_top1_drop, 4));
      }
    }
  }
  return out;
}

std::vector<std::string> GateUnchecked(const ValidationResult& r, const GateConfig& gate) {
  std::vector<std::string> out;
  if (!gate.any()) return out;
  for (const auto& o : r.outputs) {
    if (o.compared || o.mismatch) continue;
    out.push_back("output '" + o.name + "' is not covered by min_sqnr_db: " + o.reason + " (" +
                  Fixed(100 * Rate(o.equal, o.elements), 2) + "% of " + std::to_string(o.elements) + " equal)");
  }
  return out;
}

nlohmann::json ReportJson(const ValidationResult& r, const nlohmann::json& provenance, const nlohmann::json& model,
                          const std::vector<Recovery>& recovery, const GateConfig& gate,
                          const std::vector<std::string>& warnings) {
  nlohmann::json outputs = nlohmann::json::array();
  for (const auto& o : r.outputs) {
    // An output SQNR does not cover has no error figures (null), rather than the "no error" of none.
    const bool measured = o.compared;
    auto metric = [&](double v) { return measured ? Number(v) : nlohmann::json(); };
    nlohmann::json j = {{"name", o.name},
                        {"compared", o.compared},
                        {"max_abs_error", metric(o.error.max_abs_error())},
                        {"mean_abs_error", metric(o.error.mean_abs_error())},
                        {"rmse", metric(o.error.rmse())},
                        {"cosine", metric(o.error.cosine())},
                        {"sqnr_db", metric(o.error.sqnr_db())}};
    if (!o.compared) {
      j["reason"] = o.reason;
      if (!o.mismatch) j["exact_match"] = Rate(o.equal, o.elements);
    }
    if (o.error.nonfinite() > 0) {
      j["nonfinite"] = {{"count", o.error.nonfinite()}, {"first_index", o.error.first_nonfinite()}};
    }
    if (o.error.skipped() > 0) j["float_nonfinite"] = o.error.skipped();
    if (o.has_top1) {
      j["top1"] = {{"float", Rate(o.float_right, o.labelled)}, {"int8", Rate(o.int8_right, o.labelled)},
                   {"agreement", Rate(o.agree, o.labelled)}, {"samples", o.labelled}};
    }
    if (o.task) j["task"] = TaskJson(*o.task);
    outputs.push_back(j);
  }
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : r.layers) {
    layers.push_back({{"tensor", l.tensor},
                      {"int8_tensor", l.int8_tensor},
                      {"node", l.node},
                      {"op", l.op},
                      {"sqnr_db", Number(l.error.sqnr_db())},
                      {"cosine", l.error.cosine()},
                      {"dtype", l.dtype == DataType::kInt8 ? "int8" : "uint8"},
                      {"scale", l.scale},
                      {"zero_point", l.zero_point},
                      {"range", {l.clip_lo, l.clip_hi}},
                      {"clipped_fraction", Rate(l.clipped, l.values)},
                      {"readers", {{"int8", l.int8_readers}, {"float", l.float_readers}, {"dequantized", l.dequantized_readers}}},
                      {"histogram", {{"lo", l.hist_lo}, {"hi", l.hist_hi}, {"counts", l.histogram}}}});
  }
  nlohmann::json rec = nlohmann::json::array();
  for (const auto& x : recovery) {
    rec.push_back({{"node", x.nodes.empty() ? "" : x.nodes[0]}, {"nodes", x.nodes}, {"tensor", x.tensor}, {"output_sqnr_db", Number(x.output_sqnr_db)},
                   {"gain_db", Number(x.gain_db)}, {"samples", x.samples}});
  }
  nlohmann::json j = {{"format", "ptq-report"}, {"version", 1},   {"provenance", provenance}, {"model", model},
                      {"outputs", outputs},     {"layers", layers}, {"recovery", rec},     {"warnings", warnings}};
  if (gate.any()) {
    nlohmann::json t = nlohmann::json::object();
    if (gate.min_sqnr_db) t["min_sqnr_db"] = *gate.min_sqnr_db;
    if (gate.max_top1_drop) t["max_top1_drop"] = *gate.max_top1_drop;
    if (gate.min_task_agreement) t["min_task_agreement"] = *gate.min_task_agreement;
    const std::vector<std::string> failures = GateFailures(r, gate);
    j["gate"] = {{"thresholds", t},
                 {"passed", failures.empty()},
                 {"failures", failures},
                 {"unchecked", GateUnchecked(r, gate)}};
  }
  return j;
}

}  // namespace ptq
