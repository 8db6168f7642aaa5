// Validate: lock-step runs, twin matching through the quantized graph, streaming statistics.
#include "report/validate.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include "runtime/error.h"
#include "runtime/quant_math.h"
#include "runtime/session.h"

namespace ptq {
namespace {

constexpr const char* kSuffix = "/quantized";
constexpr int kHistogramBins = 64;

// Scale and zero point of an integer tensor, from the node that writes it: QuantizeLinear (inputs 1, 2),
// QLinearMatMul / QLinearConv (inputs 6, 7), or a data-movement op (its input 0's). False if unknown.
bool ParamsOf(const Graph& g, const std::map<std::string, const Node*>& producer, const std::string& t, float* scale,
              int32_t* zp, DataType* dtype, int depth = 0) {
  auto it = producer.find(t);
  if (it == producer.end() || depth > 16) return false;
  const Node& n = *it->second;
  size_t s = 0;
  if (n.op_type == "QuantizeLinear") s = 1;
  else if (n.op_type == "QLinearMatMul" || n.op_type == "QLinearConv") s = 6;
  else if (!n.inputs.empty()) return ParamsOf(g, producer, n.inputs[0], scale, zp, dtype, depth + 1);
  if (n.inputs.size() <= s + 1) return false;
  auto sc = g.constants.find(n.inputs[s]);
  auto z = g.constants.find(n.inputs[s + 1]);
  if (sc == g.constants.end() || z == g.constants.end() || sc->second.size() != 1 || z->second.size() != 1) return false;
  *scale = sc->second.ToFloatVector()[0];
  *zp = static_cast<int32_t>(z->second.GetAsDouble(0));
  *dtype = z->second.dtype();
  return true;
}

std::vector<float> Dequantized(const Tensor& q, float scale, int32_t zp) {
  std::vector<float> out(static_cast<size_t>(q.size()));
  for (int64_t i = 0; i < q.size(); ++i) out[static_cast<size_t>(i)] = DequantizeValue(static_cast<int32_t>(q.GetAsDouble(i)), scale, zp);
  return out;
}

void AddToLayer(LayerStats* l, const Tensor& f, const Tensor& q) {
  if (f.dtype() != DataType::kFloat || f.size() != q.size()) return;
  const std::vector<float> d = Dequantized(q, l->scale, l->zero_point);
  const float* v = f.data<float>();
  l->error.Add(v, d.data(), f.size());
  if (l->histogram.empty()) {  // the histogram's span: the clip range and this first batch, widened 10%
    float lo = l->clip_lo, hi = l->clip_hi;
    for (int64_t i = 0; i < f.size(); ++i) {
      if (std::isfinite(v[i])) {
        lo = std::min(lo, v[i]);
        hi = std::max(hi, v[i]);
      }
    }
    const float pad = 0.05f * (hi - lo) + 1e-6f;
    l->hist_lo = lo - pad;
    l->hist_hi = hi + pad;
    l->histogram.assign(kHistogramBins, 0);
  }
  const float width = (l->hist_hi - l->hist_lo) / kHistogramBins;
  for (int64_t i = 0; i < f.size(); ++i) {
    if (!std::isfinite(v[i])) continue;
    ++l->values;
    if (v[i] < l->clip_lo || v[i] > l->clip_hi) ++l->clipped;
    const int b = std::clamp(static_cast<int>((v[i] - l->hist_lo) / width), 0, kHistogramBins - 1);
    ++l->histogram[static_cast<size_t>(b)];
  }
}

void AddTop1(OutputStats* o, const Tensor& f, const Tensor& q, const Tensor* labels, int64_t first) {
  if (!labels || f.rank() != 2 || f.dtype() != DataType::kFloat) return;
  const int64_t rows = f.dim(0), classes = f.dim(1);
  if (first + rows > labels->size()) return;
  o->has_top1 = true;
  for (int64_t r = 0; r < rows; ++r) {
    const float* a = f.data<float>() + r * classes;
    const float* b = q.data<float>() + r * classes;
    const int64_t fa = std::max_element(a, a + classes) - a;
    const int64_t qa = std::max_element(b, b + classes) - b;
    const int64_t y = static_cast<int64_t>(labels->GetAsDouble(first + r));
    o->float_right += fa == y;
    o->int8_right += qa == y;
    o->agree += fa == qa;
    ++o->labelled;
  }
}

}  // namespace

ValidationResult Validate(const Graph& fg, const Graph& qg, const BatchSource& next, const Tensor* labels, bool per_layer) {
  ValidationResult r;
  std::map<std::string, const Node*> qproducer, fproducer;
  for (const Node& n : qg.nodes) {
    for (const auto& o : n.outputs) qproducer[o] = &n;
  }
  for (const Node& n : fg.nodes) {
    for (const auto& o : n.outputs) fproducer[o] = &n;
  }
  std::set<std::string> float_inputs;
  for (const auto& v : fg.inputs) float_inputs.insert(v.name);
  std::map<std::string, LayerStats> layers;  // by int8 tensor
  if (per_layer) {
    for (const auto& [name, node] : qproducer) {
      if (name.size() <= std::string(kSuffix).size() || name.compare(name.size() - 10, 10, kSuffix) != 0) continue;
      const std::string twin = name.substr(0, name.size() - 10);
      const auto fp = fproducer.find(twin);
      if (fp == fproducer.end() && !float_inputs.count(twin)) continue;
      LayerStats l;
      l.tensor = twin;
      l.int8_tensor = name;
      if (fp != fproducer.end()) {
        l.node = fp->second->name;
        l.op = fp->second->op_type;
      }
      if (!ParamsOf(qg, qproducer, name, &l.scale, &l.zero_point, &l.dtype)) continue;
      const int32_t qmin = l.dtype == DataType::kInt8 ? -128 : 0, qmax = l.dtype == DataType::kInt8 ? 127 : 255;
      l.clip_lo = DequantizeValue(qmin, l.scale, l.zero_point);
      l.clip_hi = DequantizeValue(qmax, l.scale, l.zero_point);
      layers[name] = l;
    }
  }
  std::set<std::string> want_float;
  for (const auto& kv : layers) want_float.insert(kv.second.tensor);
  Session fs(std::make_shared<const Graph>(fg)), qs(std::make_shared<const Graph>(qg));
  for (const auto& o : fg.outputs) {
    r.outputs.emplace_back();
    r.outputs.back().name = o.name;
  }
  std::map<std::string, int64_t> first_use;
  std::map<std::string, Tensor> batch;
  int64_t n = 0;
  while (next(&batch, &n)) {
    std::map<std::string, Tensor> float_values;
    Observer fobs = [&](const Observation& o) {
      if (want_float.count(o.name)) float_values[o.name] = o.value;
    };
    for (const auto& [k, v] : batch) {
      if (want_float.count(k)) float_values[k] = v;
    }
    const std::vector<Tensor> fout = fs.Run(batch, per_layer ? fobs : Observer());
    Observer qobs = [&](const Observation& o) {
      auto it = layers.find(o.name);
      if (it == layers.end()) return;
      auto fv = float_values.find(it->second.tensor);
      if (fv != float_values.end()) AddToLayer(&it->second, fv->second, o.value);
    };
    const std::vector<Tensor> qout = qs.Run(batch, per_layer ? qobs : Observer());
    for (size_t k = 0; k < r.outputs.size() && k < fout.size() && k < qout.size(); ++k) {
      if (fout[k].dtype() != DataType::kFloat || qout[k].dtype() != DataType::kFloat || fout[k].size() != qout[k].size()) continue;
      r.outputs[k].error.Add(fout[k].data<float>(), qout[k].data<float>(), fout[k].size());
      AddTop1(&r.outputs[k], fout[k], qout[k], labels, r.samples);
    }
    r.samples += n;
  }
  for (auto& kv : layers) {
    if (kv.second.values > 0) r.layers.push_back(std::move(kv.second));
  }
  std::stable_sort(r.layers.begin(), r.layers.end(),
                   [](const LayerStats& a, const LayerStats& b) { return a.error.sqnr_db() < b.error.sqnr_db(); });
  return r;
}

}  // namespace ptq
