// Kernel list of the reduce family: one line per op.
#include "runtime/op_registry.h"

namespace ptq {

void RegisterReduceOps(OpRegistry& r) {
  (void)r;
}

}  // namespace ptq
