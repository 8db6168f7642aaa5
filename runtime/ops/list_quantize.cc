// Kernel list of the quantize family: one line per op.
#include "runtime/op_registry.h"

namespace ptq {

void RegisterQuantizeOps(OpRegistry& r) {
  (void)r;
}

}  // namespace ptq
