// Scatter reductions: parsing the attribute, the shared input checks and the typed element loops.
#include "runtime/ops/tensor/scatter_reduction.h"

#include <cstring>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

template <size_t kSize>
void CopyElements(void* dst, const void* src, int64_t n) {
  std::memcpy(dst, src, static_cast<size_t>(n) * kSize);
}

template <class E, ScatterReduction R>
void ReduceElements(void* dst, const void* src, int64_t n) {
  using S = typename E::Storage;
  S* d = static_cast<S*>(dst);
  const S* s = static_cast<const S*>(src);
  for (int64_t i = 0; i < n; ++i) {
    const auto a = E::Load(d[i]);
    const auto b = E::Load(s[i]);
    if constexpr (R == ScatterReduction::kAdd)
      d[i] = E::Store(WrapAdd(a, b));
    else if constexpr (R == ScatterReduction::kMul)
      d[i] = E::Store(WrapMul(a, b));
    else if constexpr (R == ScatterReduction::kMax)
      d[i] = b > a ? s[i] : d[i];
    else
      d[i] = b < a ? s[i] : d[i];
  }
}

}  // namespace

void CheckScatterInputs(const Tensor& data, const Tensor& indices, const Tensor& updates) {
  PTQ_ENFORCE(indices.dtype() == DataType::kInt64 || indices.dtype() == DataType::kInt32,
              "input 'indices' must be int64 or int32, got ", DataTypeName(indices.dtype()));
  PTQ_ENFORCE(updates.dtype() == data.dtype(), "input 'updates' is ", DataTypeName(updates.dtype()),
              ", input 'data' is ", DataTypeName(data.dtype()));
}

ScatterReduction ReadScatterReduction(const KernelInit& init) {
  const std::string r = init.attrs->GetString("reduction", "none");
  const int since = r == "add" || r == "mul" ? 16 : (r == "max" || r == "min" ? 18 : 0);
  PTQ_ENFORCE(r == "none" || since > 0, "attribute 'reduction' is '", r, "'; expected none, add, mul, max or min");
  PTQ_ENFORCE(init.opset >= since, "attribute 'reduction' = '", r, "' needs opset ", since, ", the model imports ",
              init.opset);
  if (r == "add") return ScatterReduction::kAdd;
  if (r == "mul") return ScatterReduction::kMul;
  if (r == "max") return ScatterReduction::kMax;
  if (r == "min") return ScatterReduction::kMin;
  return ScatterReduction::kNone;
}

ScatterFn GetScatterFn(ScatterReduction r, DataType t, const std::string& op) {
  if (r == ScatterReduction::kNone) {
    switch (ElementSize(t)) {
      case 1:
        return CopyElements<1>;
      case 2:
        return CopyElements<2>;
      case 4:
        return CopyElements<4>;
      case 8:
        return CopyElements<8>;
      default:
        ThrowInputError(op, ": input 'data' has unsupported type ", DataTypeName(t));
    }
  }
  ScatterFn fn = nullptr;
  DispatchType<kNumericTypes>(t, op, "data", [&](auto e) {
    using E = decltype(e);
    switch (r) {
      case ScatterReduction::kAdd:
        fn = ReduceElements<E, ScatterReduction::kAdd>;
        break;
      case ScatterReduction::kMul:
        fn = ReduceElements<E, ScatterReduction::kMul>;
        break;
      case ScatterReduction::kMax:
        fn = ReduceElements<E, ScatterReduction::kMax>;
        break;
      default:
        fn = ReduceElements<E, ScatterReduction::kMin>;
        break;
    }
  });
  return fn;
}

}  // namespace ptq
