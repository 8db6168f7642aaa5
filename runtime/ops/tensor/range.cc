// Range: out[i] = start + i * delta for i in [0, max(ceil((limit - start) / delta), 0)).
#include "runtime/ops/tensor/range.h"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace ptq {
namespace {

// Element count, computed in T like the spec (exactly, for integers).
template <class T>
int64_t RangeCount(T start, T limit, T delta) {
  if constexpr (std::is_integral<T>::value) {
    const int64_t span = static_cast<int64_t>(limit) - static_cast<int64_t>(start);
    const int64_t d = static_cast<int64_t>(delta);
    if ((span > 0) != (d > 0) || span == 0) return 0;
    return span > 0 ? (span + d - 1) / d : (span + d + 1) / d;
  } else {
    const double n = std::ceil(static_cast<double>((limit - start) / delta));
    PTQ_ENFORCE(std::isfinite(n), "Range inputs give a non-finite element count");
    return n > 0 ? static_cast<int64_t>(n) : 0;
  }
}

template <class T>
Tensor RangeOf(const Tensor& start_t, const Tensor& limit_t, const Tensor& delta_t) {
  const T start = start_t.data<T>()[0], limit = limit_t.data<T>()[0], delta = delta_t.data<T>()[0];
  PTQ_ENFORCE(delta != T(0), "input 'delta' is 0");
  const int64_t n = RangeCount<T>(start, limit, delta);
  Tensor out(start_t.dtype(), {n});
  T* y = out.data<T>();
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(start + static_cast<T>(i) * delta);
  return out;
}

class Range : public Kernel {
 public:
  explicit Range(const KernelInit&) {}

  void Run(KernelContext& ctx) override {
    const Tensor& start = ctx.required_input(0);
    const Tensor& limit = ctx.required_input(1);
    const Tensor& delta = ctx.required_input(2);
    const char* names[] = {"start", "limit", "delta"};
    const Tensor* all[] = {&start, &limit, &delta};
    for (int i = 0; i < 3; ++i) {
      PTQ_ENFORCE(all[i]->size() == 1, "input '", names[i], "' must be a scalar, got shape ",
                  ShapeToString(all[i]->shape()));
      PTQ_ENFORCE(all[i]->dtype() == start.dtype(), "input '", names[i], "' has type ", DataTypeName(all[i]->dtype()),
                  ", expected ", DataTypeName(start.dtype()), " like 'start'");
    }
    switch (start.dtype()) {
      case DataType::kFloat: ctx.outputs[0] = RangeOf<float>(start, limit, delta); return;
      case DataType::kDouble: ctx.outputs[0] = RangeOf<double>(start, limit, delta); return;
      case DataType::kInt16: ctx.outputs[0] = RangeOf<int16_t>(start, limit, delta); return;
      case DataType::kInt32: ctx.outputs[0] = RangeOf<int32_t>(start, limit, delta); return;
      case DataType::kInt64: ctx.outputs[0] = RangeOf<int64_t>(start, limit, delta); return;
      default:
        ThrowInputError("Range supports float, double, int16, int32 and int64, got ", DataTypeName(start.dtype()));
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeRange(const KernelInit& init) { return MakeKernel<Range>(init); }

}  // namespace ptq
