// RunChainF32: each block of 256 values goes through every step with its intermediate values in L1.
#include "runtime/kernels/vector/elementwise_chain_f32.h"

#include <algorithm>

#include "runtime/cpu_features.h"

namespace ptq {
namespace {

constexpr int64_t kBlock = 256;

// o[j] = f(a[j], b[j]) with a constant operand read once; plain loops the compiler vectorises.
template <class F>
__attribute__((always_inline)) inline void Apply(const ChainStep& s, const float* pa, const float* pb, float* o,
                                                 int64_t len, F f) {
  if (s.a != kChainConstant && s.b != kChainConstant) {
    for (int64_t j = 0; j < len; ++j) o[j] = f(pa[j], pb[j]);
  } else if (s.b == kChainConstant) {
    const float c = s.cb;
    for (int64_t j = 0; j < len; ++j) o[j] = f(pa[j], c);
  } else {
    const float c = s.ca;
    for (int64_t j = 0; j < len; ++j) o[j] = f(c, pb[j]);
  }
}

__attribute__((always_inline)) inline void Chain(const std::vector<ChainStep>& steps, const float* x, float* y,
                                                 int64_t n) {
  alignas(64) float regs[kMaxChainSteps][kBlock];
  const float* r[kMaxChainSteps + 1];
  const size_t last = steps.size() - 1;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    r[0] = x + start;
    for (size_t k = 0; k < steps.size(); ++k) {
      const ChainStep& s = steps[k];
      // The last step writes y; in place it reads x[j] before writing y[j], as every earlier step read x.
      float* o = k == last ? y + start : regs[k];
      const float* pa = s.a == kChainConstant ? nullptr : r[s.a];
      const float* pb = s.b == kChainConstant ? nullptr : r[s.b];
      switch (s.op) {
        case ChainOp::kAdd:
          Apply(s, pa, pb, o, len, [](float a, float b) { return a + b; });
          break;
        case ChainOp::kSub:
          Apply(s, pa, pb, o, len, [](float a, float b) { return a - b; });
          break;
        case ChainOp::kMul:
          Apply(s, pa, pb, o, len, [](float a, float b) { return a * b; });
          break;
        case ChainOp::kDiv:
          Apply(s, pa, pb, o, len, [](float a, float b) { return a / b; });
          break;
        case ChainOp::kClip: {
          const float lo = s.ca, hi = s.cb;
          for (int64_t j = 0; j < len; ++j) {
            const float t = pa[j] < lo ? lo : pa[j];
            o[j] = hi < t ? hi : t;
          }
          break;
        }
        case ChainOp::kRelu:
          for (int64_t j = 0; j < len; ++j) o[j] = pa[j] < 0.0f ? 0.0f : pa[j];
          break;
      }
      r[k + 1] = o;
    }
  }
}

void ChainBaseline(const std::vector<ChainStep>& steps, const float* x, float* y, int64_t n) { Chain(steps, x, y, n); }

#if defined(__x86_64__)
__attribute__((target("avx2"))) void ChainAvx2(const std::vector<ChainStep>& steps, const float* x, float* y,
                                               int64_t n) {
  Chain(steps, x, y, n);
}
__attribute__((target("avx512f"))) void ChainAvx512(const std::vector<ChainStep>& steps, const float* x, float* y,
                                                    int64_t n) {
  Chain(steps, x, y, n);
}
#endif

}  // namespace

void RunChainF32(const std::vector<ChainStep>& steps, const float* x, float* y, int64_t n) {
  if (steps.empty() || n <= 0) {
    if (y != x) std::copy(x, x + std::max<int64_t>(n, 0), y);
    return;
  }
#if defined(__x86_64__)
  if (GetCpuFeatures().avx512f) {
    ChainAvx512(steps, x, y, n);
    return;
  }
  if (GetCpuFeatures().avx2_fma) {
    ChainAvx2(steps, x, y, n);
    return;
  }
#endif
  ChainBaseline(steps, x, y, n);
}

}  // namespace ptq
