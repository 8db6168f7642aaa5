// PrepareFloatModel: clean-up, cross-layer equalization and SmoothQuant factors before calibration and validation.
#include "cli/prepared_model.h"

#include "rewrite/equalize_conv_pairs.h"
#include "rewrite/smooth_matmul_inputs.h"
#include "runtime/model_cleanup.h"

namespace ptq {

PreparedModel PrepareFloatModel(const FloatModel& model, bool equalize, const SmoothingFactorMap& smoothing) {
  PreparedModel p;
  p.model = model.Proto();
  p.dir = model.dir();
  CleanUpModel(&p.model, p.dir);
  if (equalize) p.equalized_pairs = EqualizeConvPairs(&p.model, p.dir);
  if (!smoothing.empty()) ApplySmoothing(&p.model, p.dir, smoothing);
  return p;
}

Graph LoadPreparedGraph(const FloatModel& model, bool equalize, const SmoothingFactorMap& smoothing) {
  PreparedModel p = PrepareFloatModel(model, equalize, smoothing);
  return GraphFromModel(std::move(p.model), p.dir, model.path());
}

}  // namespace ptq
