// MatMulIntegerToFloat: the MatMulInteger kernel storing float32 (integer_to_float.h), weights packed once.
#include "runtime/ops/quantization/matmul_integer_to_float.h"

#include "runtime/ops/quantization/matmul_integer.h"

namespace ptq {

std::unique_ptr<Kernel> MakeMatMulIntegerToFloat(const KernelInit& init) {
  return MakeMatMulIntegerKernel(init, true);
}

}  // namespace ptq
