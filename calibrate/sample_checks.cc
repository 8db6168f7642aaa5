// The checks and helpers SampleReader and ChunkSamples share: data against a model input, NaN counts, row concatenation.
#include "calibrate/sample_checks.h"

#include <cmath>
#include <cstring>

#include "runtime/error.h"
#include "runtime/float16.h"

namespace ptq {

bool FreeBatch(const ValueInfo& v) { return !v.has_shape || (!v.shape.empty() && v.shape[0].value < 0); }

// Checks dtype, rank and fixed dims of `shape` (data for one input) against the model's declaration.
// `first_axis` 1 skips the sample axis; symbolic dims of axes >= 1 must agree across inputs (`syms`).
void CheckSampleShape(const ValueInfo& v, DataType dtype, const Shape& shape, size_t first_axis, const std::string& what,
                      std::map<std::string, std::pair<int64_t, std::string>>* syms) {
  const std::string prefix = StrCat(what, ": model input '", v.name, "' ");
  if (v.dtype != DataType::kUndefined && dtype != v.dtype) {
    ThrowDataError(prefix, "expects ", DataTypeName(v.dtype), " data but the file holds ", DataTypeName(dtype));
  }
  if (!v.has_shape) return;
  const size_t rank = v.shape.empty() && first_axis == 1 ? 1 : v.shape.size();  // rank 0: a 1-D array of samples
  if (shape.size() != rank) {
    ThrowDataError(prefix, "has shape ", DeclaredShapeString(v), " (rank ", v.shape.size(), ") but the data has shape ",
                    ShapeToString(shape), first_axis == 1 ? " (its first axis counts samples)" : "");
  }
  for (size_t i = first_axis; i < v.shape.size(); ++i) {
    const Dim& d = v.shape[i];
    if (d.value >= 0 && d.value != shape[i]) {
      ThrowDataError(prefix, "has shape ", DeclaredShapeString(v), ": dimension ", i, " must be ", d.value, " but the data has shape ",
                      ShapeToString(shape));
    }
    if (d.value < 0 && !d.param.empty() && i >= 1) {
      const auto it = syms->emplace(d.param, std::make_pair(shape[i], v.name)).first;
      if (it->second.first != shape[i]) {
        ThrowDataError(prefix, "has dimension ", i, " '", d.param, "' = ", shape[i], " but input '", it->second.second,
                        "' has '", d.param, "' = ", it->second.first);
      }
    }
  }
}

// Counts NaN and ±Inf in a floating-point tensor.
void CountNonFinite(const Tensor& t, int64_t* nan, int64_t* inf) {
  auto count = [&](auto get) {
    for (int64_t i = 0; i < t.size(); ++i) {
      const double x = get(i);
      *nan += std::isnan(x);
      *inf += std::isinf(x);
    }
  };
  switch (t.dtype()) {
    case DataType::kFloat: count([&](int64_t i) { return double(t.data<float>()[i]); }); break;
    case DataType::kDouble: count([&](int64_t i) { return t.data<double>()[i]; }); break;
    case DataType::kFloat16: count([&](int64_t i) { return double(HalfToFloat(t.data<uint16_t>()[i])); }); break;
    case DataType::kBfloat16: count([&](int64_t i) {
        const uint32_t bits = uint32_t{t.data<uint16_t>()[i]} << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return double(f);
      });
      break;
    default: break;
  }
}

// Concatenates tensors along axis 0. REQUIRES: same dtype and rank >= 1; other dims checked by the caller.
Tensor ConcatRows(const std::vector<Tensor>& parts) {
  Shape shape = parts.front().shape();
  shape[0] = 0;
  for (const Tensor& p : parts) shape[0] += p.dim(0);
  Tensor out(parts.front().dtype(), shape);
  size_t offset = 0;
  for (const Tensor& p : parts) {
    std::memcpy(static_cast<char*>(out.raw()) + offset, p.raw(), p.nbytes());
    offset += p.nbytes();
  }
  return out;
}

}  // namespace ptq
