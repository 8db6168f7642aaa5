// Kernel list of the control-flow family (ops with subgraphs): one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/if.h"
#include "runtime/ops/loop.h"
#include "runtime/ops/scan.h"

namespace ptq {

void RegisterControlOps(OpRegistry& r) {
  r.Add({"", "If", 1, 21, MakeIf});
  r.Add({"", "Loop", 1, 21, MakeLoop});
  r.Add({"", "Scan", 8, 21, MakeScan});
}

}  // namespace ptq
