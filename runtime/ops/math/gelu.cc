// Gelu kernel (opset 20): Y = X * Phi(X), exact with erf or the tanh approximation.
#include "runtime/ops/math/gelu.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"
#include "runtime/kernels/vector/vector_math.h"

namespace ptq {
namespace {

// approximate="none": y = x/2 * (1 + erf(x / sqrt(2)))
struct GeluErfOp {
  float operator()(float x) const { return 0.5f * x * (1.0f + VecErf(x * 0.70710678118654752f)); }
  template <class T>
  T operator()(T x) const {
    return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752)));
  }
};

// approximate="tanh": y = x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
struct GeluTanhOp {
  float operator()(float x) const {
    return 0.5f * x * (1.0f + VecTanh(0.79788456080286536f * (x + 0.044715f * x * x * x)));
  }
  template <class T>
  T operator()(T x) const {
    return T(0.5) * x * (T(1) + std::tanh(T(0.79788456080286536) * (x + T(0.044715) * x * x * x)));
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeGelu(const KernelInit& init) {
  const std::string approximate = init.attrs->GetString("approximate", "none");
  if (approximate == "none") return MakeUnaryKernel<kFloatTypes>(init, GeluErfOp{});
  if (approximate == "tanh") return MakeUnaryKernel<kFloatTypes>(init, GeluTanhOp{});
  ThrowInputError("Gelu: attribute 'approximate' is '", approximate, "'; expected 'none' or 'tanh'");
}

}  // namespace ptq
