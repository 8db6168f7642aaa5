// Activation kernels: each is an element-wise formula with attributes, run through UnaryKernel
// (float types; Shrink also integers, computed in double and truncated back).
#include "runtime/ops/math/activation.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = x < 0 ? alpha * (e^x - 1) : x   (alpha = 1)
struct EluOp {
  float alpha;
  template <class T>
  T operator()(T x) const {
    return x < T(0) ? static_cast<T>(alpha) * (std::exp(x) - T(1)) : x;
  }
};

// y = x > 0 ? gamma * x : gamma * (alpha * e^x - alpha)   (alpha = 1.67326..., gamma = 1.05070...)
struct SeluOp {
  float alpha;
  float gamma;
  template <class T>
  T operator()(T x) const {
    const T a = static_cast<T>(alpha), g = static_cast<T>(gamma);
    return x > T(0) ? g * x : g * (a * std::exp(x) - a);
  }
};

// y = max(0, x) + min(0, alpha * (e^(x / alpha) - 1))   (alpha = 1, not 0)
struct CeluOp {
  float alpha;
  template <class T>
  T operator()(T x) const {
    const T a = static_cast<T>(alpha);
    const T neg = a * (std::exp(x / a) - T(1));
    return (x > T(0) ? x : T(0)) + (neg < T(0) ? neg : T(0));
  }
};

// y = x > alpha ? x : 0   (alpha = 1)
struct ThresholdedReluOp {
  float alpha;
  template <class T>
  T operator()(T x) const {
    return x > static_cast<T>(alpha) ? x : T(0);
  }
};

// y = x < -lambd ? x + bias : (x > lambd ? x - bias : 0)   (lambd = 0.5, bias = 0)
struct ShrinkOp {
  float lambd;
  float bias;
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_floating_point<T>::value) {
      const T l = static_cast<T>(lambd), b = static_cast<T>(bias);
      return x < -l ? x + b : (x > l ? x - b : T(0));
    } else {
      const double v = static_cast<double>(x);
      return v < -lambd ? SaturateCast<T>(v + bias) : (v > lambd ? SaturateCast<T>(v - bias) : T(0));
    }
  }
};

// y = x / (1 + |x|)
struct SoftsignOp {
  template <class T>
  T operator()(T x) const {
    return x / (T(1) + std::fabs(x));
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeElu(const KernelInit& init) {
  return MakeUnaryKernel<kFloatTypes>(init, EluOp{init.attrs->GetFloat("alpha", 1.0f)});
}

std::unique_ptr<Kernel> MakeSelu(const KernelInit& init) {
  return MakeUnaryKernel<kFloatTypes>(init, SeluOp{init.attrs->GetFloat("alpha", 1.67326319217681884765625f),
                                                   init.attrs->GetFloat("gamma", 1.05070102214813232421875f)});
}

std::unique_ptr<Kernel> MakeCelu(const KernelInit& init) {
  const float alpha = init.attrs->GetFloat("alpha", 1.0f);
  PTQ_ENFORCE(alpha != 0.0f, "attribute 'alpha' must not be 0");
  return MakeUnaryKernel<kFloatTypes>(init, CeluOp{alpha});
}

std::unique_ptr<Kernel> MakeThresholdedRelu(const KernelInit& init) {
  return MakeUnaryKernel<kFloatTypes>(init, ThresholdedReluOp{init.attrs->GetFloat("alpha", 1.0f)});
}

std::unique_ptr<Kernel> MakeShrink(const KernelInit& init) {
  return MakeUnaryKernel<kNumericTypes>(
      init, ShrinkOp{init.attrs->GetFloat("lambd", 0.5f), init.attrs->GetFloat("bias", 0.0f)});
}

std::unique_ptr<Kernel> MakeSoftsign(const KernelInit& init) {
  return MakeUnaryKernel<kFloatTypes>(init, SoftsignOp{});
}

}  // namespace ptq
