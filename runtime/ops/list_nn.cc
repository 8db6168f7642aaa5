// Kernel list of the nn family: one line per op.
#include "runtime/op_registry.h"

namespace ptq {

void RegisterNnOps(OpRegistry& r) {
  (void)r;
}

}  // namespace ptq
