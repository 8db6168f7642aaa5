// GlobalAveragePool: a sum per plane (vectorised partial sums), divided by the plane's size; channels
// last (the session's layout), a sum of channel runs over the positions.
#include "runtime/ops/nn/global_average_pool.h"

#include <vector>

#include "runtime/channels_last_layout.h"
#include "runtime/ops/math/float_compute.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

// y[n, c] = sum_s x[n, c, s] / S, S = D1 * .. * Dn, for `planes` planes of S values.
template <class T>
PTQ_ALWAYS_INLINE void PlanesLoop(const T* x, int64_t planes, int64_t S, T* y) {
  for (int64_t i = 0; i < planes; ++i) y[i] = RowSum(x + i * S, S) / static_cast<T>(S);
}
PTQ_TARGET_AVX2 void PlanesAvx2(const float* x, int64_t planes, int64_t S, float* y) { PlanesLoop(x, planes, S, y); }

// Channels last: y[n, c] = sum_s x[n, s, c] / S, the positions added in order.
template <class T>
PTQ_ALWAYS_INLINE void PositionsLoop(const T* x, int64_t batch, int64_t S, int64_t C, T* y) {
  for (int64_t n = 0; n < batch; ++n) {
    T* __restrict yn = y + n * C;
    for (int64_t c = 0; c < C; ++c) yn[c] = T(0);
    for (int64_t s = 0; s < S; ++s) {
      const T* __restrict row = x + (n * S + s) * C;
      for (int64_t c = 0; c < C; ++c) yn[c] += row[c];
    }
    for (int64_t c = 0; c < C; ++c) yn[c] /= static_cast<T>(S);
  }
}
PTQ_TARGET_AVX2 void PositionsAvx2(const float* x, int64_t batch, int64_t S, int64_t C, float* y) {
  PositionsLoop(x, batch, S, C, y);
}

template <class T>
Tensor GlobalAveragePoolTyped(const Tensor& x, bool channels_last) {
  Shape ys(x.shape().size(), 1);
  ys[0] = x.dim(0);
  ys[channels_last ? ys.size() - 1 : 1] = x.dim(channels_last ? x.rank() - 1 : 1);
  Tensor y = Tensor::Uninitialized(x.dtype(), ys);
  const bool avx2 = UseAvx2Clone<T, T>();
  if (channels_last) {
    const int64_t S = SizeOfRange(x.shape(), 1, x.rank() - 1), C = x.dim(x.rank() - 1);
    if constexpr (std::is_same<T, float>::value) {
      if (avx2) {
        PositionsAvx2(x.data<T>(), x.dim(0), S, C, y.data<T>());
        return y;
      }
    }
    PositionsLoop(x.data<T>(), x.dim(0), S, C, y.data<T>());
    return y;
  }
  const int64_t planes = x.dim(0) * x.dim(1), S = SizeOfRange(x.shape(), 2, x.rank());
  if constexpr (std::is_same<T, float>::value) {
    if (avx2) {
      PlanesAvx2(x.data<T>(), planes, S, y.data<T>());
      return y;
    }
  }
  PlanesLoop(x.data<T>(), planes, S, y.data<T>());
  return y;
}

class GlobalAveragePoolKernel final : public Kernel {
 public:
  explicit GlobalAveragePoolKernel(const KernelInit& init)
      : channels_last_(init.attrs->GetInt(kChannelsLast, 0) != 0) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    PTQ_ENFORCE(x.rank() >= 2, "input 'X' has shape ", ShapeToString(x.shape()), "; expected [N, C, ...]");
    switch (x.dtype()) {
      case DataType::kFloat: ctx.outputs[0] = GlobalAveragePoolTyped<float>(x, channels_last_); break;
      case DataType::kDouble: ctx.outputs[0] = GlobalAveragePoolTyped<double>(x, channels_last_); break;
      case DataType::kFloat16:
      case DataType::kBfloat16:
        ctx.outputs[0] = NarrowFromFloat(GlobalAveragePoolTyped<float>(WidenToFloat(x), channels_last_), x.dtype());
        break;
      default:
        ThrowInputError("input 'X' has type ", DataTypeName(x.dtype()),
                        "; GlobalAveragePool supports float32, float64, float16 and bfloat16");
    }
  }

 private:
  bool channels_last_;  // ptq.fused GlobalAveragePool of the session's channels-last layout
};

}  // namespace

std::unique_ptr<Kernel> MakeGlobalAveragePool(const KernelInit& init) {
  return MakeKernel<GlobalAveragePoolKernel>(init);
}

}  // namespace ptq
