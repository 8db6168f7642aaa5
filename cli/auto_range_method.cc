// ChooseRangeMethod: candidate tables, their int8 models, and the measured choice.
#include "cli/auto_range_method.h"

#include <algorithm>
#include <memory>

#include "report/report_json.h"
#include "report/validate.h"
#include "rewrite/rewriter.h"

namespace ptq {

const std::vector<std::string>& AutoRangeCandidates() {
  static const std::vector<std::string> kCandidates = {"mse", "minmax"};
  return kCandidates;
}

RangeMethodChoice ChooseRangeMethod(const FloatModel& model, const CalibrationConfig& cal, const Graph& graph,
                                    const SampleSourceFactory& samples,                                     const SampleOptions& options, CalibrationResult* result) {
  QuantizationOptions quant = cal.options.quant;
  quant.bias_correction = false;  // the table has no channel means yet
  SampleOptions so = options;
  so.max_samples = so.max_samples < 0 ? kAutoRangeSamples : std::min(so.max_samples, kAutoRangeSamples);
  RangeMethodChoice choice;
  double best = 0;
  CalibrationResult chosen;
  for (const std::string& m : AutoRangeCandidates()) {
    CalibrationResult r = *result;
    CalibrationOptions o = cal.options;
    o.method = m;
    ChooseQuantization(graph, o, &r);
    QuantTable table;
    for (const auto& [name, t] : r.tensors) table.tensors[name] = t;
    table.observed = r.observed;
    table.smoothing = r.smoothing;
    const Graph int8 = GraphFromModel(RewriteModel(model.Proto(), model.dir(), table, quant, {}, nullptr), model.dir(),
                                      "the int8 model of calibration method " + m);
    const std::unique_ptr<SampleSource> reader = samples(graph, so);
    const BatchSource next = [&](std::map<std::string, Tensor>* b, int64_t* n) { return reader->Next(b, n); };
    const ValidationResult v = Validate(graph, int8, {}, next, nullptr, false);
    const double score = WorstOutputSqnr(v);
    choice.scores.emplace_back(m, score);
    choice.samples = v.samples;
    if (choice.chosen.empty() || score > best) {
      choice.chosen = m;
      best = score;
      chosen = std::move(r);
    }
  }
  *result = std::move(chosen);
  return choice;
}

}  // namespace ptq
