// GlobalAveragePool: a sum per plane (vectorised partial sums), divided by the plane's size; channels
// last (the session's layout), a sum of channel runs over the positions; large inputs shared between threads.
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

// Channels last, one image (x: its S positions of C channels): y[c] = sum_s x[s, c] / S, the positions added in
// order. 32 channels are summed in registers: with so few, each position's sums into y in memory waited for the
// previous position's stores (EfficientNet-B0's 112 x 112 x 32 pool: 0.054 -> 0.029 ms, ONNX Runtime's 0.029).
// With more, those chains are many and independent; blocks of 32 in registers, each a pass over all positions,
// made RegNet-Y-800MF's pools at batch 8 (64 channels and more) 1.14-1.6x slower.
template <class T>
PTQ_ALWAYS_INLINE void PositionsLoop(const T* x, int64_t S, int64_t C, T* y) {
  constexpr int64_t kBlock = 32;
  if (C == kBlock) {
    T acc[kBlock] = {};
    for (int64_t s = 0; s < S; ++s) {
      const T* __restrict row = x + s * C;
      for (int64_t c = 0; c < kBlock; ++c) acc[c] += row[c];
    }
    for (int64_t c = 0; c < kBlock; ++c) y[c] = acc[c] / static_cast<T>(S);
    return;
  }
  T* __restrict yc = y;
  for (int64_t c = 0; c < C; ++c) yc[c] = T(0);
  for (int64_t s = 0; s < S; ++s) {
    const T* __restrict row = x + s * C;
    for (int64_t c = 0; c < C; ++c) yc[c] += row[c];
  }
  for (int64_t c = 0; c < C; ++c) yc[c] /= static_cast<T>(S);
}
PTQ_TARGET_AVX2 void PositionsAvx2(const float* x, int64_t S, int64_t C, float* y) { PositionsLoop(x, S, C, y); }

template <class T>
Tensor GlobalAveragePoolTyped(const Tensor& x, bool channels_last) {
  Shape ys(x.shape().size(), 1);
  ys[0] = x.dim(0);
  ys[channels_last ? ys.size() - 1 : 1] = x.dim(channels_last ? x.rank() - 1 : 1);
  Tensor y = Tensor::Uninitialized(x.dtype(), ys);
  const bool avx2 = UseAvx2Clone<T, T>();
  const int threads = ElementwiseThreads(x.size());
  const T* xd = x.data<T>();
  T* yd = y.data<T>();
  if (channels_last) {
    // Threads share whole images, each thread reading whole rows. Blocks of 16 channels or more of one image
    // made each thread read every row's lines for a part of them, from a tensor the threads of the
    // convolution before had written: a 56 x 56 x 144 pool at batch 1 took 0.13-0.29 ms on two threads, 0.11
    // on one of the two alone and 0.077 on one thread.
    const int64_t batch = x.dim(0), S = SizeOfRange(x.shape(), 1, x.rank() - 1), C = x.dim(x.rank() - 1);
    const int image_threads = batch > 1 ? threads : 1;
#pragma omp parallel for schedule(static) num_threads(image_threads) if (image_threads > 1)
    for (int64_t n = 0; n < batch; ++n) {
      if constexpr (std::is_same<T, float>::value) {
        if (avx2) {
          PositionsAvx2(xd + n * S * C, S, C, yd + n * C);
          continue;
        }
      }
      PositionsLoop(xd + n * S * C, S, C, yd + n * C);
    }
    return y;
  }
  const int64_t planes = x.dim(0) * x.dim(1), S = SizeOfRange(x.shape(), 2, x.rank());
  ForEachChunk(planes, 1, threads, [&](int64_t p0, int64_t p1) {
    if constexpr (std::is_same<T, float>::value) {
      if (avx2) {
        PlanesAvx2(xd + p0 * S, p1 - p0, S, yd + p0);
        return;
      }
    }
    PlanesLoop(xd + p0 * S, p1 - p0, S, yd + p0);
  });
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
