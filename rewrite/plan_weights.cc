// WeightQuantFor and FitBiasInInt32: weight parameters per consumer, and biases that fit in int32.
#include "rewrite/plan_weights.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "runtime/error.h"
#include "runtime/quant_math.h"
#include "runtime/weight_params.h"

namespace ptq {

TensorQuant WeightQuantFor(const RewriteGraph& g, const std::string& name, const std::string& op_type,
                           const TensorQuant* entry, const QuantizationOptions& options) {
  const onnx::TensorProto& t = g.Initializer(name);
  const int64_t axis = options.per_channel ? WeightChannelAxis(op_type, false, t.dims_size()) : -1;
  if (entry && (entry->per_tensor() || entry->axis == axis)) return *entry;
  const DataType dtype = entry ? entry->dtype : options.weight_dtype;
  return ChooseWeightQuant(g.InitializerValue(name), axis, dtype, options.weight_symmetric);
}

std::string FitBiasInInt32(const RewriteGraph& g, const std::string& bias, float x_scale, const std::string& node,
                           const std::string& weight_name, TensorQuant* w) {
  const Tensor b = g.InitializerValue(bias);
  if (b.dtype() != DataType::kFloat) return "";
  const bool per_channel = !w->per_tensor();
  if (per_channel && static_cast<int64_t>(w->scales.size()) != b.size()) return "";  // refused when inserted
  std::vector<float> need = w->scales;
  for (int64_t c = 0; c < b.size(); ++c) {
    float& s = need[per_channel ? static_cast<size_t>(c) : 0];
    s = WeightScaleForBias(b.data<float>()[c], x_scale, s);
  }
  int raised = 0;
  double factor = 1;
  int64_t worst = 0;
  for (size_t c = 0; c < need.size(); ++c) {
    if (need[c] == w->scales[c]) continue;
    ++raised;
    const double f = static_cast<double>(need[c]) / static_cast<double>(w->scales[c]);
    if (f > factor) {
      factor = f;
      worst = static_cast<int64_t>(c);
    }
  }
  if (raised == 0) return "";
  w->scales = need;  // zero points stay: a wider range around the same zero
  std::ostringstream msg;
  msg << "node '" << node << "': " << raised << " of " << need.size() << (per_channel ? " channel" : " per-tensor")
      << " scale(s) of weight '" << weight_name << "' raised (up to " << factor << "x, channel " << worst
      << ") so that the int32 bias '" << bias << "' fits: its bias / (x_scale * w_scale) exceeded 2^30";
  return msg.str();
}

}  // namespace ptq
