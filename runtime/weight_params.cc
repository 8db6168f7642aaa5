// The quantizable ops' weight rules, channel axes and per-channel weight parameters.
#include "runtime/weight_params.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "runtime/quant_math.h"

namespace ptq {

const QuantOpRule* QuantRuleFor(const std::string& op_type) {
  static const std::map<std::string, QuantOpRule> kRules = {
      {"MatMul", {1, {0, 1}}},
      {"Gemm", {1, {0, 1}}},
      {"Conv", {1, {0}}},
      {"Gather", {0, {}}},
  };
  const auto it = kRules.find(op_type);
  return it == kRules.end() ? nullptr : &it->second;
}

int64_t WeightChannelAxis(const std::string& op_type, bool trans_b, int64_t rank) {
  if (op_type == "MatMul" && rank >= 2) return rank - 1;
  if (op_type == "Gemm" && rank == 2) return trans_b ? 0 : 1;
  if (op_type == "Conv" && rank >= 1) return 0;
  return -1;
}

TensorQuant ChooseWeightQuant(const Tensor& w, int64_t axis, DataType dtype, bool symmetric, float* range_min,
                              float* range_max) {
  PTQ_ENFORCE(w.dtype() == DataType::kFloat, "ChooseWeightQuant: the weight must be float32");
  if (w.size() == 0 || axis >= w.rank()) axis = -1;
  const int64_t channels = axis < 0 ? 1 : w.dim(axis);
  int64_t inner = 1;
  for (int64_t d = axis + 1; axis >= 0 && d < w.rank(); ++d) inner *= w.dim(d);
  std::vector<float> lo(static_cast<size_t>(channels), 0.0f), hi(static_cast<size_t>(channels), 0.0f);
  const float* v = w.data<float>();
  for (int64_t i = 0; i < w.size(); ++i) {
    const size_t c = axis < 0 ? 0 : static_cast<size_t>((i / inner) % channels);
    if (std::isfinite(v[i])) {
      lo[c] = std::min(lo[c], v[i]);
      hi[c] = std::max(hi[c], v[i]);
    }
  }
  TensorQuant q;
  q.role = TensorRole::kWeight;
  q.dtype = dtype;
  q.axis = axis;
  q.shape = w.shape();
  for (size_t c = 0; c < lo.size(); ++c) {
    const QuantParams p = ChooseQuantParams(lo[c], hi[c], dtype, symmetric);
    q.scales.push_back(p.scale);
    q.zero_points.push_back(p.zero_point);
  }
  if (range_min) *range_min = *std::min_element(lo.begin(), lo.end());
  if (range_max) *range_max = *std::max_element(hi.begin(), hi.end());
  return q;
}

}  // namespace ptq
