// Kernel list of the qconv family: one line per op.
#include "runtime/op_registry.h"

namespace ptq {

void RegisterQuantConvOps(OpRegistry& r) {
  (void)r;
}

}  // namespace ptq
