// The explicit list of every kernel ptq has: one line per op (in the family lists below).
#include "runtime/op_registry.h"

namespace ptq {

// Each family list is a file in ops/ with one Add(...) line per kernel.
void RegisterQuantizeOps(OpRegistry& r);     // ops/list_quantize.cc
void RegisterQuantGemmOps(OpRegistry& r);    // ops/list_qgemm.cc
void RegisterQuantConvOps(OpRegistry& r);    // ops/list_qconv.cc
void RegisterElementwiseOps(OpRegistry& r);  // ops/list_elementwise.cc
void RegisterTensorOps(OpRegistry& r);       // ops/list_tensor.cc
void RegisterNnOps(OpRegistry& r);           // ops/list_nn.cc
void RegisterReduceOps(OpRegistry& r);       // ops/list_reduce.cc
void RegisterControlOps(OpRegistry& r);      // ops/list_control.cc
void RegisterSignalOps(OpRegistry& r);       // ops/list_signal.cc

void RegisterAllOps(OpRegistry& r) {
  RegisterQuantizeOps(r);
  RegisterQuantGemmOps(r);
  RegisterQuantConvOps(r);
  RegisterElementwiseOps(r);
  RegisterTensorOps(r);
  RegisterNnOps(r);
  RegisterReduceOps(r);
  RegisterControlOps(r);
  RegisterSignalOps(r);
}

}  // namespace ptq
