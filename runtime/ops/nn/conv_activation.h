// The activation a fused convolution applies (FusedConv, and ConvIntegerToFloat after FuseConvActivations or
// FuseSilus; runtime/activation_fusion.h): read from the node's attributes and applied to arrays of outputs.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/attributes.h"
#include "runtime/kernels/vector/elementwise_chain_f32.h"
#include "runtime/ops/math/silu.h"
#include "runtime/tensor.h"

namespace ptq {

// y = (y < lo ? lo : y), then (hi < y ? hi : y), when clamp (as the Clip kernel computes it: a NaN stays, of
// equal zeros y stays); y = x * Sigmoid(x) as the Silu kernel computes it, when silu; then the element-wise
// chain's steps (float32 outputs only), when there are any.
struct ConvActivation {
  bool clamp = false;
  float lo = 0.0f, hi = 0.0f;
  bool silu = false;
  ChainF32 chain;
};

// The activation attributes of a node of type op_type; none when it has none. Throws when it has both a clamp and
// SiLU, and for a chain unless op_type is ConvIntegerToFloat or FusedConv (which takes it on float32 only).
ConvActivation ReadConvActivation(const Attributes& attrs, const std::string& op_type);

// y[i] = Silu(y[i]) for i < n: the Silu kernel's bits (float32), its formula for float64.
template <class T>
void ApplySilu(T* y, int64_t n) {
  if constexpr (std::is_same<T, float>::value) {
    SiluArray(y, y, n);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = y[i] * (T(1) / (T(1) + std::exp(-y[i])));
  }
}

// What follows the clamp (never with a SiLU, so the order of the two does not matter): the SiLU, then the chain
// (ReadConvActivation allows a chain for float32 outputs only), on y[i] for i < n. Kernels whose stores apply the
// clamp call this on each block of outputs.
template <class T>
void FinishActivation(const ConvActivation& act, T* y, int64_t n) {
  if (act.silu) ApplySilu(y, n);
  if constexpr (std::is_same<T, float>::value) {
    if (!act.chain.empty()) act.chain.Run(y, y, n);
  }
}

// y[i] = act(y[i]) for i < n.
template <class T>
void ApplyActivation(const ConvActivation& act, T* y, int64_t n) {
  if (act.clamp) {
    const T lo = static_cast<T>(act.lo), hi = static_cast<T>(act.hi);
    for (int64_t i = 0; i < n; ++i) {
      const T v = y[i] < lo ? lo : y[i];
      y[i] = hi < v ? hi : v;
    }
  }
  FinishActivation(act, y, n);
}

// activation(y + z) for a residual z (float32 or float64, y's type) of y's shape or one that broadcasts to it:
// the Add and the activation of a fused convolution that could not apply them as it stored y. `input` names z
// in the error when it does not broadcast to y.
Tensor AddAndActivate(Tensor y, const Tensor& z, const ConvActivation& act, const std::string& input);

}  // namespace ptq
