// The kernel registry.
#include "runtime/op_registry.h"

namespace ptq {

const Tensor& KernelContext::required_input(int i) const {
  const Tensor* t = input(i);
  if (!t) ThrowInputError("required input ", i, " is missing");
  return *t;
}

void OpRegistry::Add(KernelDef def) {
  if (def.domain == "ai.onnx") def.domain.clear();
  defs_.push_back(std::move(def));
}

const KernelDef* OpRegistry::Find(const std::string& domain, const std::string& op_type, int opset) const {
  const std::string d = domain == "ai.onnx" ? std::string() : domain;
  for (const KernelDef& def : defs_) {
    if (def.op_type == op_type && def.domain == d && opset >= def.since_version && opset <= def.until_version) {
      return &def;
    }
  }
  return nullptr;
}

const OpRegistry& OpRegistry::Global() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    RegisterAllOps(*r);
    return r;
  }();
  return *registry;
}

}  // namespace ptq
