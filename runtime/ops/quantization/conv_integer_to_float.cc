// ConvIntegerToFloat: ConvInteger, then the float scaling of integer_to_float.h over axis 1.
#include "runtime/ops/quantization/conv_integer_to_float.h"

#include "runtime/ops/quantization/conv_integer.h"
#include "runtime/ops/quantization/integer_to_float.h"

namespace ptq {

std::unique_ptr<Kernel> MakeConvIntegerToFloat(const KernelInit& init) {
  return MakeIntegerToFloat(init, MakeConvInteger, "ConvInteger", 1);
}

}  // namespace ptq
