// The explicit list of every kernel ptq has: one line per op, in each category's op_list.cc.
#include "runtime/op_registry.h"

namespace ptq {

void RegisterQuantizationOps(OpRegistry& r);  // ops/quantization/op_list.cc
void RegisterMathOps(OpRegistry& r);  // ops/math/op_list.cc
void RegisterTensorOps(OpRegistry& r);  // ops/tensor/op_list.cc
void RegisterNnOps(OpRegistry& r);  // ops/nn/op_list.cc
void RegisterRnnOps(OpRegistry& r);  // ops/rnn/op_list.cc
void RegisterReductionOps(OpRegistry& r);  // ops/reduction/op_list.cc
void RegisterControlOps(OpRegistry& r);  // ops/control/op_list.cc
void RegisterSignalOps(OpRegistry& r);  // ops/signal/op_list.cc

void RegisterAllOps(OpRegistry& r) {
  RegisterQuantizationOps(r);
  RegisterMathOps(r);
  RegisterTensorOps(r);
  RegisterNnOps(r);
  RegisterRnnOps(r);
  RegisterReductionOps(r);
  RegisterControlOps(r);
  RegisterSignalOps(r);
}

}  // namespace ptq
