// Findings about a calibration result worth a warning: non-finite values, constant and unseen tensors.
#include "calibrate/calibration_warnings.h"

#include "runtime/error.h"

namespace ptq {
namespace {

// Appends `lines` to out, cut to max_per_kind with a closing "... and K more <what>" line.
void AppendCapped(const std::vector<std::string>& lines, int max_per_kind, const std::string& what,
                  std::vector<std::string>* out) {
  const size_t cap = static_cast<size_t>(max_per_kind < 0 ? 0 : max_per_kind);
  for (size_t i = 0; i < lines.size() && i < cap; ++i) out->push_back(lines[i]);
  if (lines.size() > cap) out->push_back(StrCat("... and ", lines.size() - cap, " more ", what));
}

}  // namespace

std::vector<std::string> CalibrationWarnings(const CalibrationResult& result, int max_per_kind) {
  std::vector<std::string> non_finite, constant, unseen;
  for (const auto& [name, t] : result.tensors) {
    if (t.role == TensorRole::kWeight) continue;  // weights are checked when the model loads
    const Histogram& h = t.histogram;
    const uint64_t inf = h.pos_inf_count() + h.neg_inf_count();
    if (h.nan_count() + inf > 0) {
      non_finite.push_back(StrCat("tensor '", name, "': ", h.nan_count(), " NaN and ", inf,
                                  " infinite values, excluded from its statistics"));
    }
    if (h.empty()) {
      unseen.push_back(StrCat("tensor '", name, "' had no finite value in any sample: range [0, 0], scale ",
                              t.scales.empty() ? 0.0f : t.scales[0]));
    } else if (h.min() == h.max()) {
      constant.push_back(StrCat("tensor '", name, "' is constant (", h.min(), ") over all samples: range [",
                                t.range_min, ", ", t.range_max, "], scale ", t.scales.empty() ? 0.0f : t.scales[0],
                                ", zero point ", t.zero_points.empty() ? 0 : t.zero_points[0]));
    }
  }
  std::vector<std::string> out;
  AppendCapped(non_finite, max_per_kind, "tensors with non-finite values", &out);
  AppendCapped(constant, max_per_kind, "constant tensors", &out);
  AppendCapped(unseen, max_per_kind, "tensors without finite values", &out);
  return out;
}

}  // namespace ptq
