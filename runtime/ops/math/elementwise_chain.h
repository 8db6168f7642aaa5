// ElementwiseChain (ptq.fused, made by the session from Add / Sub / Mul / Div / Clip / Relu nodes with scalar
// constants, optionally ending in a QuantizeLinear; runtime/float_fusion.h): their values in one pass.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/attributes.h"
#include "runtime/kernel.h"
#include "runtime/kernels/vector/elementwise_chain_f32.h"

namespace ptq {

// Inputs: X (float32), and optionally y_scale and y_zero_point (one float32 scale, one uint8 or int8 zero point).
// Attributes: ops (strings: Add, Sub, Mul, Div, Clip, Relu), operands (ints, two a step: a register, 0 for X and
// k for step k - 1's value, or -1 for the step's constant), constants (floats, two a step), rank (the output's
// least rank: a constant of shape [1] makes a scalar X a [1]).
// Y is the last step's value for each element of X, with the bits of the nodes run one by one; with y_scale, Y
// is that value quantized as QuantizeLinear quantizes it (no float output written).
std::unique_ptr<Kernel> MakeElementwiseChain(const KernelInit& init);

// The attributes above for `steps` and `rank`, each name after `prefix` (a ConvIntegerToFloat that stores the
// chain's values carries them as activation_chain_ops, ...: runtime/activation_fusion.h).
Attributes ElementwiseChainAttributes(const std::vector<ChainStep>& steps, int64_t rank,
                                      const std::string& prefix = "");

// The steps `attrs` describe; an input error naming `node` when they are inconsistent (an operand naming a
// register not yet computed, lists of other lengths, an unknown op, more than kMaxChainSteps steps).
std::vector<ChainStep> ElementwiseChainSteps(const Attributes& attrs, const std::string& node,
                                             const std::string& prefix = "");

}  // namespace ptq
