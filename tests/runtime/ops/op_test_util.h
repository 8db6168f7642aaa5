// Runs one kernel from the registry on given inputs, for kernel unit tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/attributes.h"
#include "runtime/op_registry.h"
#include "runtime/tensor.h"

namespace ptq {
namespace testing {

inline AttributeValue IntAttr(int64_t v) {
  AttributeValue a;
  a.kind = AttributeValue::Kind::kInt;
  a.i = v;
  return a;
}
inline AttributeValue FloatAttr(float v) {
  AttributeValue a;
  a.kind = AttributeValue::Kind::kFloat;
  a.f = v;
  return a;
}
inline AttributeValue StringAttr(const std::string& v) {
  AttributeValue a;
  a.kind = AttributeValue::Kind::kString;
  a.s = v;
  return a;
}
inline AttributeValue IntsAttr(const std::vector<int64_t>& v) {
  AttributeValue a;
  a.kind = AttributeValue::Kind::kInts;
  a.ints = v;
  return a;
}
inline AttributeValue FloatsAttr(const std::vector<float>& v) {
  AttributeValue a;
  a.kind = AttributeValue::Kind::kFloats;
  a.floats = v;
  return a;
}

// Creates the registry's kernel for (op_type, opset) and runs it once. An entry of `inputs`
// that is empty_value() is passed as an omitted optional input. When `inputs_are_constant`,
// the kernel also sees the inputs as constants at creation (the weight-packing path, float weights
// packed once included).
inline std::vector<Tensor> RunOp(const std::string& op_type, int opset, const Attributes& attrs,
                                 const std::vector<Tensor>& inputs, int num_outputs = 1,
                                 bool inputs_are_constant = false, const std::string& domain = "") {
  const KernelDef* def = OpRegistry::Global().Find(domain, op_type, opset);
  if (!def) throw Error(ErrorKind::kInternal, "no kernel for " + op_type + " at opset " + std::to_string(opset));
  KernelInit init;
  init.node_name = "test_node";
  init.op_type = op_type;
  init.opset = opset;
  init.attrs = &attrs;
  init.num_inputs = static_cast<int>(inputs.size());
  init.num_outputs = num_outputs;
  init.prepack_float_weights = inputs_are_constant;
  for (const Tensor& t : inputs) {
    init.const_inputs.push_back(inputs_are_constant && !t.empty_value() ? &t : nullptr);
  }
  std::unique_ptr<Kernel> kernel = def->factory(init);
  KernelContext ctx;
  for (const Tensor& t : inputs) ctx.inputs.push_back(t.empty_value() ? nullptr : &t);
  ctx.outputs.resize(static_cast<size_t>(num_outputs));
  kernel->Run(ctx);
  return ctx.outputs;
}

template <class T>
std::vector<T> ToVector(const Tensor& t) {
  const T* p = t.data<T>();
  return std::vector<T>(p, p + t.size());
}

}  // namespace testing
}  // namespace ptq
