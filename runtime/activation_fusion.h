// The attributes of ptq.fused FusedConv (Conv -> Relu / Clip, fused by FuseConvActivations in
// float_fusion.h): the clamp applied as each output is stored (no second pass over the tensor).
#pragma once

namespace ptq {

// The clamp bounds FusedConv carries beside Conv's attributes (Relu: 0 and +infinity).
constexpr const char* kActivationMin = "activation_min";
constexpr const char* kActivationMax = "activation_max";

}  // namespace ptq
