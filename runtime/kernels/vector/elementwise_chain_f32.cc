// RunChainF32: each block of 256 values goes through every step with its intermediate values in L1; chains of
// PP-LCNetV3's form go through all their steps in registers.
#include "runtime/kernels/vector/elementwise_chain_f32.h"

#include <algorithm>
#include <utility>

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

// The constant of step s when its other operand is register r (Add and Mul: either side, as a + b == b + a
// and a * b == b * a bit for bit); false when the step reads no constant or another register.
bool ConstantWith(const ChainStep& s, int r, float* c) {
  if (s.a == r && s.b == kChainConstant) {
    *c = s.cb;
    return true;
  }
  if (s.b == r && s.a == kChainConstant && (s.op == ChainOp::kAdd || s.op == ChainOp::kMul)) {
    *c = s.ca;
    return true;
  }
  return false;
}

// h * a + b from steps[*k] on, h in register *r: then *k and *r past it.
bool MatchAffine(const std::vector<ChainStep>& steps, size_t* k, int* r, float* a, float* b) {
  if (*k + 2 > steps.size() || steps[*k].op != ChainOp::kMul || steps[*k + 1].op != ChainOp::kAdd) return false;
  if (!ConstantWith(steps[*k], *r, a) || !ConstantWith(steps[*k + 1], static_cast<int>(*k) + 1, b)) return false;
  *k += 2;
  *r = static_cast<int>(*k);
  return true;
}

// h * clip(h + c, lo, hi) / d (or * d) from steps[*k] on, h in register *r: then *k and *r past it.
bool MatchHardSwish(const std::vector<ChainStep>& steps, size_t* k, int* r, AffineSwishForm* f) {
  if (*k + 4 > steps.size()) return false;
  const ChainStep* s = &steps[*k];
  const int t = static_cast<int>(*k) + 1;  // h + c, then clipped in t + 1, h * that in t + 2
  if (s[0].op != ChainOp::kAdd || !ConstantWith(s[0], *r, &f->add)) return false;
  if (s[1].op != ChainOp::kClip || s[1].a != t) return false;
  if (s[2].op != ChainOp::kMul || !((s[2].a == *r && s[2].b == t + 1) || (s[2].a == t + 1 && s[2].b == *r))) {
    return false;
  }
  if ((s[3].op != ChainOp::kDiv && s[3].op != ChainOp::kMul) || !ConstantWith(s[3], t + 2, &f->scale)) return false;
  f->lo = s[1].ca;
  f->hi = s[1].cb;
  f->divide = s[3].op == ChainOp::kDiv;
  *k += 4;
  *r = static_cast<int>(*k);
  return true;
}

// The chain's form: `registers` when all its steps are one of the forms AffineSwishChain runs.
AffineSwishForm FormOf(const std::vector<ChainStep>& steps) {
  AffineSwishForm f;
  size_t k = 0;
  int r = 0;
  f.pre = MatchAffine(steps, &k, &r, &f.pre_mul, &f.pre_add);
  f.swish = MatchHardSwish(steps, &k, &r, &f);
  f.post = MatchAffine(steps, &k, &r, &f.post_mul, &f.post_add);
  const bool whole = f.pre && f.swish && f.divide && f.post, affine = f.pre && !f.swish && !f.post;
  f.registers = k == steps.size() && (whole || affine || (!f.pre && f.swish && !f.post));
  return f;
}

template <bool kPre, bool kSwish, bool kDivide, bool kPost>
__attribute__((always_inline)) inline void AffineSwishLoop(const AffineSwishForm& f, const float* x, float* y,
                                                           int64_t n) {
  const float pre_mul = f.pre_mul, pre_add = f.pre_add, add = f.add, lo = f.lo, hi = f.hi, scale = f.scale;
  const float post_mul = f.post_mul, post_add = f.post_add;
  for (int64_t i = 0; i < n; ++i) {
    float h = x[i];
    if (kPre) {
      h = h * pre_mul;
      h = h + pre_add;
    }
    if (kSwish) {
      float t = h + add;
      t = t < lo ? lo : t;
      t = hi < t ? hi : t;
      h = h * t;
      h = kDivide ? h / scale : h * scale;
    }
    if (kPost) {
      h = h * post_mul;
      h = h + post_add;
    }
    y[i] = h;
  }
}

// AffineSwishLoop for f's parts. REQUIRES: f.registers.
__attribute__((always_inline)) inline void AffineSwishChain(const AffineSwishForm& f, const float* x, float* y,
                                                            int64_t n) {
  if (f.pre && f.swish) {
    AffineSwishLoop<true, true, true, true>(f, x, y, n);
  } else if (f.pre) {
    AffineSwishLoop<true, false, false, false>(f, x, y, n);
  } else if (f.divide) {
    AffineSwishLoop<false, true, true, false>(f, x, y, n);
  } else {
    AffineSwishLoop<false, true, false, false>(f, x, y, n);
  }
}

// The steps, whose form is f, on x[0..n) into y: in registers when f.registers, else a pass a step.
__attribute__((always_inline)) inline void ChainOrRegisters(const std::vector<ChainStep>& steps,
                                                            const AffineSwishForm& f, const float* x, float* y,
                                                            int64_t n) {
  if (f.registers) {
    AffineSwishChain(f, x, y, n);
  } else {
    Chain(steps, x, y, n);
  }
}

void ChainBaseline(const std::vector<ChainStep>& steps, const AffineSwishForm& f, const float* x, float* y,
                   int64_t n) {
  ChainOrRegisters(steps, f, x, y, n);
}
#if defined(__x86_64__)
__attribute__((target("avx2"))) void ChainAvx2(const std::vector<ChainStep>& steps, const AffineSwishForm& f,
                                               const float* x, float* y, int64_t n) {
  ChainOrRegisters(steps, f, x, y, n);
}
__attribute__((target("avx512f"))) void ChainAvx512(const std::vector<ChainStep>& steps, const AffineSwishForm& f,
                                                    const float* x, float* y, int64_t n) {
  ChainOrRegisters(steps, f, x, y, n);
}
#endif

// RunChainF32 of the steps, whose form is f.
void RunChain(const std::vector<ChainStep>& steps, const AffineSwishForm& f, const float* x, float* y, int64_t n) {
  if (steps.empty() || n <= 0) {
    if (y != x) std::copy(x, x + std::max<int64_t>(n, 0), y);
    return;
  }
#if defined(__x86_64__)
  if (GetCpuFeatures().avx512f) {
    ChainAvx512(steps, f, x, y, n);
    return;
  }
  if (GetCpuFeatures().avx2_fma) {
    ChainAvx2(steps, f, x, y, n);
    return;
  }
#endif
  ChainBaseline(steps, f, x, y, n);
}

}  // namespace

void RunChainF32(const std::vector<ChainStep>& steps, const float* x, float* y, int64_t n) {
  RunChain(steps, FormOf(steps), x, y, n);
}

ChainF32::ChainF32(std::vector<ChainStep> steps) : steps_(std::move(steps)), form_(FormOf(steps_)) {}

void ChainF32::Run(const float* x, float* y, int64_t n) const { RunChain(steps_, form_, x, y, n); }

}  // namespace ptq
