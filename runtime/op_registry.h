// Kernel lookup by (domain, op type, opset version); filled from the explicit list in ops/op_list.cc.
#pragma once

#include <string>
#include <vector>

#include "runtime/kernel.h"

namespace ptq {

struct KernelDef {
  std::string domain;   // "" for ai.onnx
  std::string op_type;
  int since_version;    // first opset version the kernel handles
  int until_version;    // last opset version the kernel handles (inclusive)
  KernelFactory factory;
};

class OpRegistry {
 public:
  void Add(KernelDef def);
  // The kernel for the op at the model's opset version of its domain, or nullptr.
  // "ai.onnx" is treated as "".
  const KernelDef* Find(const std::string& domain, const std::string& op_type, int opset) const;
  const std::vector<KernelDef>& defs() const { return defs_; }

  // The registry with every kernel of ptq (built once, on first use).
  static const OpRegistry& Global();

 private:
  std::vector<KernelDef> defs_;
};

// Adds every kernel ptq has; defined in ops/op_list.cc.
void RegisterAllOps(OpRegistry& registry);

}  // namespace ptq
