// PrepareFloatModel: clean-up, cross-layer equalization and SmoothQuant factors before calibration and validation.
#include "cli/prepared_model.h"

#include <filesystem>

#include "rewrite/equalize_conv_pairs.h"
#include "rewrite/smooth_matmul_inputs.h"
#include "runtime/model_cleanup.h"
#include "runtime/model_io.h"

namespace ptq {

PreparedModel PrepareFloatModel(const std::string& path, bool equalize, const SmoothingFactorMap& smoothing) {
  PreparedModel p;
  LoadModelProto(path, &p.model);
  p.dir = std::filesystem::path(path).parent_path().string();
  if (p.dir.empty()) p.dir = ".";
  CleanUpModel(&p.model, p.dir);
  if (equalize) p.equalized_pairs = EqualizeConvPairs(&p.model, p.dir);
  if (!smoothing.empty()) ApplySmoothing(&p.model, p.dir, smoothing);
  return p;
}

Graph LoadPreparedGraph(const std::string& path, bool equalize, const SmoothingFactorMap& smoothing) {
  if (!equalize && smoothing.empty()) return LoadCleanGraph(path);
  PreparedModel p = PrepareFloatModel(path, equalize, smoothing);
  return GraphFromModel(std::move(p.model), p.dir, path);
}

}  // namespace ptq
