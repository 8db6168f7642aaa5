// ConvIntegerToFloat: the ConvInteger kernel storing float32 (integer_to_float.h), weights packed once.
#include "runtime/ops/quantization/conv_integer_to_float.h"

#include "runtime/ops/quantization/conv_integer.h"

namespace ptq {

std::unique_ptr<Kernel> MakeConvIntegerToFloat(const KernelInit& init) {
  return MakeConvIntegerKernel(init, true);
}

}  // namespace ptq
