// Kernel list of the qgemm family: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/matmul_integer.h"
#include "runtime/ops/qlinear_matmul.h"

namespace ptq {

void RegisterQuantGemmOps(OpRegistry& r) {
  r.Add({"", "MatMulInteger", 10, 21, MakeMatMulInteger});
  r.Add({"", "QLinearMatMul", 10, 21, MakeQLinearMatMul});
}

}  // namespace ptq
