// MatMulIntegerToFloat: MatMulInteger, then the float scaling of integer_to_float.h over axis -1.
#include "runtime/ops/quantization/matmul_integer_to_float.h"

#include "runtime/ops/quantization/matmul_integer.h"
#include "runtime/ops/quantization/integer_to_float.h"

namespace ptq {

std::unique_ptr<Kernel> MakeMatMulIntegerToFloat(const KernelInit& init) {
  return MakeIntegerToFloat(init, MakeMatMulInteger, "MatMulInteger", -1);
}

}  // namespace ptq
