// The channel-means pass of bias correction: which tensors, and their float and quantized means.
#include "calibrate/channel_means.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "runtime/error.h"
#include "runtime/quant_math.h"
#include "runtime/session.h"

namespace ptq {
namespace {

struct Sums {
  int64_t axis = -1;                  // as ChannelMeanTensors gives it (-1: the last)
  std::vector<double> x, q;           // per channel, of the finite values
  std::vector<int64_t> n;             // finite values per channel (NaN and +-Inf are left out, as histograms do)
  bool broken = false;                // seen with another rank or channel count: left out
};

// Adds x's values (float, along `axis`) to `s`, quantized with `t`'s parameters as well.
void Accumulate(const Tensor& x, const TensorQuant& t, Sums* s) {
  const int64_t rank = x.rank();
  const int64_t axis = s->axis < 0 ? rank - 1 : s->axis;
  if (axis < 0 || axis >= rank) {
    s->broken = true;
    return;
  }
  const int64_t channels = x.shape()[static_cast<size_t>(axis)];
  if (s->x.empty()) {
    s->x.assign(static_cast<size_t>(channels), 0.0);
    s->q.assign(static_cast<size_t>(channels), 0.0);
    s->n.assign(static_cast<size_t>(channels), 0);
  }
  if (static_cast<int64_t>(s->x.size()) != channels || channels == 0) {
    s->broken = true;
    return;
  }
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape()[static_cast<size_t>(d)];
  if (inner == 0) return;  // no values
  const int64_t outer = x.size() / (channels * inner);
  const QuantRange range = QuantRangeOf(t.dtype);
  const float scale = t.scales[0];
  const int32_t zp = t.zero_points[0];
  const float* v = x.data<float>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      const float* p = v + (o * channels + c) * inner;
      double sx = 0, sq = 0;
      int64_t finite = 0;
      for (int64_t i = 0; i < inner; ++i) {
        if (!std::isfinite(p[i])) continue;
        sx += p[i];
        sq += DequantizeValue(QuantizeValue(p[i], scale, zp, range.qmin, range.qmax), scale, zp);
        ++finite;
      }
      s->x[static_cast<size_t>(c)] += sx;
      s->q[static_cast<size_t>(c)] += sq;
      s->n[static_cast<size_t>(c)] += finite;
    }
  }
}

}  // namespace

std::map<std::string, int64_t> ChannelMeanTensors(const Graph& graph, const CalibrationOptions& options,
                                                  const CalibrationResult& result) {
  std::map<std::string, int64_t> axes;
  std::map<std::string, bool> conflicting;
  auto add = [&](const std::string& x, int64_t axis) {
    const auto t = result.tensors.find(x);
    if (t == result.tensors.end() || t->second.role != TensorRole::kActivation || !t->second.per_tensor()) return;
    const auto [it, fresh] = axes.emplace(x, axis);
    if (!fresh && it->second != axis) conflicting[x] = true;
  };
  auto constant_float = [&](const Node& n, size_t i) {
    const auto c = i < n.inputs.size() ? graph.constants.find(n.inputs[i]) : graph.constants.end();
    return c != graph.constants.end() && c->second.dtype() == DataType::kFloat;
  };
  for (const Node& n : graph.nodes) {
    if (!n.domain.empty() || !options.quant.quantizes(n.op_type) || n.inputs.empty()) continue;
    if (n.op_type == "Conv" && constant_float(n, 1)) add(n.inputs[0], 1);
    if (n.op_type == "MatMul" && constant_float(n, 1)) add(n.inputs[0], -1);
    if (n.op_type == "Gemm" && constant_float(n, 1) && n.attrs.GetInt("transA", 0) == 0) add(n.inputs[0], 1);
  }
  for (const auto& [x, bad] : conflicting) axes.erase(x);
  return axes;
}

void CollectChannelMeans(const Graph& graph, SampleSource& samples, const CalibrationOptions& options,
                         CalibrationResult* result) {
  std::map<std::string, Sums> sums;
  for (const auto& [x, axis] : ChannelMeanTensors(graph, options, *result)) sums[x].axis = axis;
  if (sums.empty()) return;
  std::shared_ptr<const Graph> shared(std::shared_ptr<const Graph>(), &graph);
  Session session(shared, SessionOptions::ObservingEveryTensor());
  const Observer observer = [&](const Observation& o) {
    if (o.value.dtype() != DataType::kFloat) return;
    const auto s = sums.find(o.name);
    if (s == sums.end() || s->second.broken) return;
    Accumulate(o.value, result->tensors.at(o.name), &s->second);
  };
  std::map<std::string, Tensor> batch;
  int64_t n = 0;
  while (samples.Next(&batch, &n)) session.Run(batch, observer);
  for (auto& [x, s] : sums) {
    if (s.broken || s.x.empty()) continue;
    CalibratedTensor& t = result->tensors.at(x);
    const int64_t rank = static_cast<int64_t>(t.shape.size());
    t.mean_axis = s.axis < 0 ? rank - 1 : s.axis;
    t.float_mean.resize(s.x.size());
    t.quantized_mean.resize(s.x.size());
    for (size_t c = 0; c < s.x.size(); ++c) {  // a channel with no finite value: both means 0, no shift
      const double n = static_cast<double>(std::max<int64_t>(s.n[c], 1));
      t.float_mean[c] = static_cast<float>(s.x[c] / n);
      t.quantized_mean[c] = static_cast<float>(s.q[c] / n);
    }
  }
}

}  // namespace ptq
