// The interface every op kernel implements, and what it is given when created and when run.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/attributes.h"
#include "runtime/tensor.h"

namespace ptq {

// What a kernel sees once, when the session is prepared (before any run).
struct KernelInit {
  std::string node_name;
  std::string op_type;
  int opset = 0;  // the model's opset version for the node's domain
  const Attributes* attrs = nullptr;
  int num_inputs = 0;   // as written in the node, including omitted optional ones ("")
  int num_outputs = 0;
  // One entry per input: the value when the input is a constant (initializer or Constant node),
  // else nullptr. Kernels may pack constant weights here, once.
  std::vector<const Tensor*> const_inputs;
  // Node::implicit_inputs: the outer-scope tensors the node's subgraphs read, in the order in which
  // KernelContext::implicit_inputs passes their values.
  std::vector<std::string> implicit_inputs;
  // Whether float kernels may keep a packed copy of a large constant weight beside the constant (speed
  // for memory; SessionOptions::prepack_float_weights).
  bool prepack_float_weights = false;
};

// What a kernel sees on each run.
struct KernelContext {
  // One entry per node input; nullptr for an omitted optional input.
  std::vector<const Tensor*> inputs;
  // One entry per node output, default-constructed; the kernel assigns each one it produces.
  std::vector<Tensor> outputs;
  // One entry per KernelInit::implicit_inputs name (control-flow ops only).
  std::vector<const Tensor*> implicit_inputs;
  // One entry per node input (or none): whether the kernel may write an output over that input's buffer, once it
  // has no more use for the input: this node is its last reader, reads it through no other input, and nothing else
  // holds its buffer.
  std::vector<char> reusable;
  // Input i when the kernel may write over its buffer, else nullptr.
  const Tensor* Reusable(int i) const {
    const bool ok = i < static_cast<int>(reusable.size()) && reusable[static_cast<size_t>(i)];
    return ok ? inputs[static_cast<size_t>(i)] : nullptr;
  }

  int num_inputs() const { return static_cast<int>(inputs.size()); }
  // The i-th input, or nullptr when absent or omitted.
  const Tensor* input(int i) const { return i < num_inputs() ? inputs[static_cast<size_t>(i)] : nullptr; }
  // The i-th input; throws an input error when absent.
  const Tensor& required_input(int i) const;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Computes the outputs from the inputs. Throws ptq::Error on bad inputs (shape or type
  // mismatch); the interpreter adds the node's name to the message.
  virtual void Run(KernelContext& ctx) = 0;
};

using KernelFactory = std::unique_ptr<Kernel> (*)(const KernelInit& init);

// Factory helper for kernels constructible from a KernelInit.
template <class K>
std::unique_ptr<Kernel> MakeKernel(const KernelInit& init) {
  return std::make_unique<K>(init);
}

}  // namespace ptq
