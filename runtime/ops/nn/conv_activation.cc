// ReadConvActivation: a fused convolution's activation attributes (runtime/activation_fusion.h).
#include "runtime/ops/nn/conv_activation.h"

#include "runtime/activation_fusion.h"
#include "runtime/error.h"

namespace ptq {

ConvActivation ReadConvActivation(const Attributes& attrs, const std::string& op_type) {
  ConvActivation act;
  if (attrs.Has(kActivationMin)) {
    act.clamp = true;
    act.lo = attrs.GetFloat(kActivationMin, 0.0f);
    act.hi = attrs.GetFloat(kActivationMax, 0.0f);
  }
  act.silu = attrs.GetInt(kActivationSilu, 0) != 0;
  PTQ_ENFORCE(!(act.silu && act.clamp), op_type, " has both a clamp and activation_silu");
  return act;
}

}  // namespace ptq
