// Kernel list of the control ops: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/control/if.h"
#include "runtime/ops/control/loop.h"
#include "runtime/ops/control/scan.h"

namespace ptq {

void RegisterControlOps(OpRegistry& r) {
  r.Add({"", "If", 1, 21, MakeIf});
  r.Add({"", "Loop", 1, 21, MakeLoop});
  r.Add({"", "Scan", 8, 21, MakeScan});
}

}  // namespace ptq
