// ReadConvActivation: a fused convolution's activation attributes (runtime/activation_fusion.h); AddAndActivate,
// its residual and activation in passes of their own.
#include "runtime/ops/nn/conv_activation.h"

#include "runtime/activation_fusion.h"
#include "runtime/error.h"
#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/elementwise_chain.h"

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
  if (attrs.Has(std::string(kActivationChainPrefix) + "ops")) {
    PTQ_ENFORCE(op_type == "ConvIntegerToFloat" || op_type == "FusedConv", op_type, " does not take ",
                kActivationChainPrefix, "attributes");
    act.chain = ChainF32(ElementwiseChainSteps(attrs, op_type, kActivationChainPrefix));
  }
  return act;
}

namespace {
template <class T>
Tensor AddAndActivateTyped(const Tensor& y, const Tensor& z, const ConvActivation& act, const std::string& input) {
  using E = Elem<DataTypeOf<T>::value>;
  Tensor sum = BroadcastBinary<E, E, E>(y, z, [](T a, T b) { return a + b; });
  PTQ_ENFORCE(sum.shape() == y.shape(), "input '", input, "' of shape ", ShapeToString(z.shape()),
              " does not broadcast to the output ", ShapeToString(y.shape()));
  ApplyActivation(act, sum.data<T>(), sum.size());
  return sum;
}
}  // namespace

Tensor AddAndActivate(Tensor y, const Tensor& z, const ConvActivation& act, const std::string& input) {
  PTQ_ENFORCE(z.dtype() == y.dtype(), "input '", input, "' has type ", DataTypeName(z.dtype()), "; expected ",
              DataTypeName(y.dtype()));
  if (y.dtype() == DataType::kDouble) return AddAndActivateTyped<double>(y, z, act, input);
  return AddAndActivateTyped<float>(y, z, act, input);
}

}  // namespace ptq
