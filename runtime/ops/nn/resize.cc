// Resize kernel: reads scales or sizes (and roi, axes, keep_aspect_ratio_policy) as each opset
// defines them, then interpolates (interpolate.h). Opset 10 is asymmetric with Upsample's nearest
// rounding; from 11 the coordinate and nearest modes are attributes.
#include "runtime/ops/nn/resize.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/ops/nn/interpolate.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

enum class AspectPolicy { kStretch, kNotLarger, kNotSmaller };

class Resize final : public Kernel {
 public:
  // Inputs: opset 10 (X, scales); opset 11+ (X, roi, scales, sizes). antialias = 1 (opset 18+)
  // is refused: ptq does not implement antialiased downsampling.
  explicit Resize(const KernelInit& init) : opset_(init.opset) {
    const Attributes& attrs = *init.attrs;
    spec_.mode = ParseInterpMode(attrs.GetString("mode", "nearest"), "Resize");
    if (opset_ >= 11) {
      spec_.coord = ParseCoordMode(attrs.GetString("coordinate_transformation_mode", "half_pixel"), "Resize");
      spec_.nearest = ParseNearestMode(attrs.GetString("nearest_mode", "round_prefer_floor"), "Resize");
    } else {
      spec_.coord = CoordMode::kAsymmetric;
      spec_.nearest = NearestMode::kSimple;
    }
    spec_.extrapolation_value = attrs.GetFloat("extrapolation_value", 0.0f);
    spec_.cubic_coeff_a = attrs.GetFloat("cubic_coeff_a", -0.75f);
    spec_.exclude_outside = attrs.GetInt("exclude_outside", 0) != 0;
    if (opset_ >= 18) {
      PTQ_ENFORCE(attrs.GetInt("antialias", 0) == 0 || spec_.mode == InterpMode::kNearest,
                  "Resize: attribute 'antialias' = 1 (antialiased downsampling) is not supported by ptq");
      axes_ = attrs.GetInts("axes");
      const std::string policy = attrs.GetString("keep_aspect_ratio_policy", "stretch");
      if (policy == "stretch") policy_ = AspectPolicy::kStretch;
      else if (policy == "not_larger") policy_ = AspectPolicy::kNotLarger;
      else if (policy == "not_smaller") policy_ = AspectPolicy::kNotSmaller;
      else ThrowInputError("Resize: attribute 'keep_aspect_ratio_policy' is '", policy,
                           "'; expected stretch, not_larger or not_smaller");
    }
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const int64_t rank = x.rank();
    const Tensor* roi_t = opset_ >= 11 ? ctx.input(1) : nullptr;
    const Tensor* scales_t = ctx.input(opset_ >= 11 ? 2 : 1);
    const Tensor* sizes_t = opset_ >= 11 ? ctx.input(3) : nullptr;
    std::vector<int64_t> axes;
    for (int64_t a : axes_) axes.push_back(NormalizeAxis(a, rank));
    if (axes.empty()) {
      for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
    }
    const size_t naxes = axes.size();
    const bool has_scales = scales_t && scales_t->size() > 0;
    const bool has_sizes = sizes_t && sizes_t->size() > 0;
    PTQ_ENFORCE(has_scales != has_sizes, "Resize: exactly one of the inputs 'scales' and 'sizes' must be given "
                "(non-empty); got ", has_scales ? "both" : "neither");

    // y_dim = floor(scale * x_dim) from scales; scale = y_dim / x_dim from sizes (both in float).
    std::vector<float> scales(static_cast<size_t>(rank), 1.0f);
    Shape out_shape = x.shape();
    const Tensor& given = has_scales ? *scales_t : *sizes_t;
    PTQ_ENFORCE(static_cast<size_t>(given.size()) == naxes, "Resize: input '", has_scales ? "scales" : "sizes",
                "' has ", given.size(), " values; expected ", naxes, " (", axes_.empty() ? "the rank of 'X'" : "one per axis in 'axes'", ")");
    const std::vector<int64_t> sizes = has_sizes ? sizes_t->ToInt64Vector() : std::vector<int64_t>();
    for (size_t i = 0; i < naxes; ++i) {
      const size_t a = static_cast<size_t>(axes[i]);
      const float in = static_cast<float>(x.shape()[a]);
      if (has_scales) {
        const float s = static_cast<float>(given.GetAsDouble(static_cast<int64_t>(i)));
        PTQ_ENFORCE(s > 0, "Resize: input 'scales' holds ", s, " for axis ", a, "; scales must be > 0");
        scales[a] = s;
        out_shape[a] = static_cast<int64_t>(s * in);
      } else {
        const int64_t size = sizes[i];
        PTQ_ENFORCE(size >= 0, "Resize: input 'sizes' holds ", size, " for axis ", a);
        out_shape[a] = size;
        scales[a] = in == 0 ? 1.0f : static_cast<float>(size) / in;
      }
    }
    // not_larger / not_smaller: one scale for all axes (the min / max), y_dim = round(scale * x_dim).
    if (has_sizes && policy_ != AspectPolicy::kStretch) {
      float s = scales[static_cast<size_t>(axes[0])];
      for (int64_t a : axes) {
        const float v = scales[static_cast<size_t>(a)];
        s = policy_ == AspectPolicy::kNotLarger ? std::min(s, v) : std::max(s, v);
      }
      for (int64_t a : axes) {
        scales[static_cast<size_t>(a)] = s;
        out_shape[static_cast<size_t>(a)] = static_cast<int64_t>(std::round(s * static_cast<float>(x.dim(a))));
      }
    }
    // roi: starts then ends for the resized axes; others span [0, 1].
    std::vector<float> roi(static_cast<size_t>(2 * rank), 0.0f);
    std::fill(roi.begin() + rank, roi.end(), 1.0f);
    if (spec_.coord == CoordMode::kTfCropAndResize) {
      PTQ_ENFORCE(roi_t && static_cast<size_t>(roi_t->size()) == 2 * naxes, "Resize: coordinate_transformation_mode "
                  "tf_crop_and_resize needs input 'roi' with ", 2 * naxes, " values, got ",
                  roi_t ? std::to_string(roi_t->size()) : std::string("none"));
      for (size_t i = 0; i < naxes; ++i) {
        roi[static_cast<size_t>(axes[i])] = static_cast<float>(roi_t->GetAsDouble(static_cast<int64_t>(i)));
        roi[static_cast<size_t>(rank + axes[i])] = static_cast<float>(roi_t->GetAsDouble(static_cast<int64_t>(naxes + i)));
      }
    }
    ctx.outputs[0] = Interpolate(x, out_shape, scales, roi, spec_, "Resize");
  }

 private:
  int opset_;
  InterpSpec spec_;
  std::vector<int64_t> axes_;
  AspectPolicy policy_ = AspectPolicy::kStretch;
};

}  // namespace

std::unique_ptr<Kernel> MakeResize(const KernelInit& init) { return MakeKernel<Resize>(init); }

}  // namespace ptq
