// Kernel list of the qconv family: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/conv_integer.h"
#include "runtime/ops/qlinear_conv.h"

namespace ptq {

void RegisterQuantConvOps(OpRegistry& r) {
  r.Add({"", "ConvInteger", 10, 21, MakeConvInteger});
  r.Add({"", "QLinearConv", 10, 21, MakeQLinearConv});
}

}  // namespace ptq
