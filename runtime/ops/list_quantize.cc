// Kernel list of the quantize family: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/dequantize_linear.h"
#include "runtime/ops/dynamic_quantize_linear.h"
#include "runtime/ops/quantize_linear.h"

namespace ptq {

void RegisterQuantizeOps(OpRegistry& r) {
  r.Add({"", "QuantizeLinear", 10, 21, MakeQuantizeLinear});
  r.Add({"", "DequantizeLinear", 10, 21, MakeDequantizeLinear});
  r.Add({"", "DynamicQuantizeLinear", 11, 21, MakeDynamicQuantizeLinear});
}

}  // namespace ptq
