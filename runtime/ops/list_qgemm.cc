// Kernel list of the qgemm family: one line per op.
#include "runtime/op_registry.h"

namespace ptq {

void RegisterQuantGemmOps(OpRegistry& r) {
  (void)r;
}

}  // namespace ptq
