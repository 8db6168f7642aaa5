// Validate: lock-step runs, twin matching through the quantized graph, streaming statistics.
#include "report/validate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <set>

#include "runtime/error.h"
#include "runtime/json_fields.h"
#include "runtime/quant_math.h"
#include "runtime/session.h"
#include "runtime/value_movement.h"

namespace ptq {
namespace {

constexpr int kHistogramBins = 64;

// Scale and zero point of an integer tensor, from the node that writes it: QuantizeLinear (inputs 1, 2),
// QLinearMatMul / QLinearConv (inputs 6, 7), or an op that only moves values (its input 0's). False if
// unknown.
bool ParamsOf(const Graph& g, const std::map<std::string, const Node*>& producer, const std::string& t, float* scale,
              int32_t* zp, DataType* dtype, int depth = 0) {
  auto it = producer.find(t);
  if (it == producer.end() || depth > 16) return false;
  const Node& n = *it->second;
  size_t s = 0;
  if (n.op_type == "QuantizeLinear") s = 1;
  else if (n.op_type == "QLinearMatMul" || n.op_type == "QLinearConv") s = 6;
  else if (MovesValues(n.op_type) && !n.inputs.empty()) return ParamsOf(g, producer, n.inputs[0], scale, zp, dtype, depth + 1);
  else return false;
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
  for (int64_t i = 0; i < f.size(); ++i) {
    if (!std::isfinite(v[i])) continue;
    ++l->values;
    if (v[i] < l->clip_lo || v[i] > l->clip_hi) ++l->clipped;
    ++l->histogram[static_cast<size_t>(ValueBin(v[i], l->hist_lo, l->hist_hi, kHistogramBins))];
  }
}

// Equal elements of two integer or boolean tensors of the same type and shape.
int64_t EqualElements(const Tensor& a, const Tensor& b) {
  const size_t e = ElementSize(a.dtype());
  const char* pa = static_cast<const char*>(a.raw());
  const char* pb = static_cast<const char*>(b.raw());
  int64_t equal = 0;
  for (int64_t i = 0; i < a.size(); ++i) equal += std::memcmp(pa + i * e, pb + i * e, e) == 0;
  return equal;
}

// Adds one batch's output pair to `o`: the error metrics for float outputs of one shape, equality for
// integer ones; anything else is recorded (once) as the reason the output is not compared.
void AddOutput(OutputStats* o, const Tensor& f, const Tensor& q, int64_t first_sample) {
  if (f.dtype() != q.dtype() || f.shape() != q.shape()) {
    if (!o->mismatch) {
      o->reason = f.dtype() != q.dtype()
                      ? "the float model gives " + DataTypeName(f.dtype()) + ", the int8 model " + DataTypeName(q.dtype())
                      : "shapes differ: float " + ShapeToString(f.shape()) + ", int8 " + ShapeToString(q.shape()) +
                            " (batch from sample " + std::to_string(first_sample) + ")";
    }
    o->mismatch = true;
    o->compared = false;
    return;
  }
  if (f.dtype() == DataType::kFloat) {
    o->error.Add(f.data<float>(), q.data<float>(), f.size());
    return;
  }
  if (!o->mismatch) o->reason = DataTypeName(f.dtype()) + " output: compared element for element, not by SQNR";
  o->compared = false;
  o->equal += EqualElements(f, q);
  o->elements += f.size();
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

// A TaskStats for each output `tasks` names; a usage error when the model has no output of that name.
void AttachTasks(const TaskSpecs& tasks, std::vector<OutputStats>* outputs) {
  std::vector<std::string> names;
  for (const auto& o : *outputs) names.push_back(o.name);
  for (const auto& [name, spec] : tasks) {
    auto it = std::find_if(outputs->begin(), outputs->end(), [&](const OutputStats& o) { return o.name == name; });
    if (it == outputs->end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "'" : ", '") + n + "'";
      const std::string near = NearestKey(name, names);
      ThrowUsageError("'validation.tasks.", name, "': the model has no output '", name, "'",
                      near.empty() ? " (its outputs: " + list + ")" : " (did you mean '" + near + "'?)");
    }
    it->task.emplace();
    it->task->spec = spec;
  }
}

}  // namespace

int ValueBin(float v, float lo, float hi, int bins) {
  // In double, clamped before the conversion: a value far outside [lo, hi] must not overflow int.
  const double pos = (static_cast<double>(v) - lo) / (static_cast<double>(hi) - lo) * bins;
  return static_cast<int>(std::clamp(pos, 0.0, static_cast<double>(bins - 1)));
}

ValidationResult Validate(const Graph& fg, const Graph& qg, const std::map<std::string, std::string>& twins,
                          const BatchSource& next, const Tensor* labels, bool per_layer, const TaskSpecs& tasks) {
  ValidationResult r;
  for (const auto& o : fg.outputs) {
    r.outputs.emplace_back();
    r.outputs.back().name = o.name;
  }
  AttachTasks(tasks, &r.outputs);
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
    for (const auto& [name, twin] : twins) {
      if (!qproducer.count(name)) continue;
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
  Session fs(std::make_shared<const Graph>(fg), SessionOptions::ObservingEveryTensor());
  Session qs(std::make_shared<const Graph>(qg), SessionOptions::ObservingEveryTensor());
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
      AddOutput(&r.outputs[k], fout[k], qout[k], r.samples);
      if (fout[k].dtype() == qout[k].dtype() && fout[k].shape() == qout[k].shape()) {
        AddTop1(&r.outputs[k], fout[k], qout[k], labels, r.samples);
        if (r.outputs[k].task) AddTaskBatch(&*r.outputs[k].task, r.outputs[k].name, fout[k], qout[k]);
      }
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
