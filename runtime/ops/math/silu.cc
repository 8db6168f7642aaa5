// Silu kernel: Y = X * Sigmoid(X) in one pass (vectorised for float32; own AVX2 and AVX-512 loops in
// kernels/vector/silu_f32.cc).
#include "runtime/ops/math/silu.h"

#include <algorithm>
#include <cmath>

#include "runtime/kernels/vector/silu_f32.h"
#include "runtime/kernels/vector/vector_math.h"
#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = x * (1 / (1 + e^-x)), the sigmoid as sigmoid.cc computes it.
struct SiluOp {
  float operator()(float x) const { return x * VecSigmoid(x); }
  // MapArray's AVX2 and AVX-512 paths: the same operations, several vectors at a time.
  static void ArrayAvx2(const float* x, float* y, int64_t n) { SiluF32Avx2(x, y, n); }
  static void ArrayAvx512(const float* x, float* y, int64_t n) { SiluF32Avx512(x, y, n); }
  template <class T>
  T operator()(T x) const {
    return x * (T(1) / (T(1) + std::exp(-x)));
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeSilu(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, SiluOp{}); }

void SiluArray(const float* x, float* y, int64_t n) {
  if (UseAvx512Clone<float, float>()) {  // MapArray's choices; in place too
    SiluF32Avx512(x, y, n);
    return;
  }
  if (UseAvx2Clone<float, float>()) {
    SiluF32Avx2(x, y, n);
    return;
  }
  if (x == y) {  // MapArray's arguments are __restrict: in place goes through blocks of a copy
    constexpr int64_t kBlock = 1024;
    float in[kBlock];
    for (int64_t start = 0; start < n; start += kBlock) {
      const int64_t len = n - start < kBlock ? n - start : kBlock;
      std::copy(x + start, x + start + len, in);
      MapArray(in, y + start, len, SiluOp{});
    }
    return;
  }
  MapArray(x, y, n, SiluOp{});
}

}  // namespace ptq
