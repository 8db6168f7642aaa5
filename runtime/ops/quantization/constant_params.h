// ConstantParams: a quantized op's parameters (scales, zero points, biases) read once, from its constant inputs,
// when the kernel is made, instead of on every run.
#pragma once

#include <optional>
#include <vector>

#include "runtime/error.h"
#include "runtime/kernel.h"

namespace ptq {

// P is what `read(ctx)` returns from a context holding the node's parameter inputs. When each parameter input
// (`indices`) is a constant or absent from the node, read runs once on the constants, here; Get then returns those
// parameters for any run whose parameter inputs are as they were (KernelInit::const_inputs hold the values every
// run sees), else nullptr and the kernel reads them from the run. Reading them on every run was 2% of PP-OCR rec
// int8's time at batch 1 on one thread, and did not shrink with more threads.
template <class P>
class ConstantParams {
 public:
  template <class Read>
  ConstantParams(const KernelInit& init, const std::vector<int>& indices, Read read) {
    KernelContext constants;
    constants.inputs = init.const_inputs;
    for (int i : indices) {
      // An input that is not a constant must be absent on every run that uses the parameters read here.
      if (i < init.num_inputs && init.const_inputs[static_cast<size_t>(i)] == nullptr) must_be_absent_.push_back(i);
    }
    try {
      params_ = read(constants);
    } catch (const Error&) {
      // Malformed or missing constants: each run reads them and reports it with the node's name.
    }
  }

  // The parameters read once, or nullptr when this run's parameter inputs are not the constants they were read
  // from (an input computed by another node).
  const P* Get(const KernelContext& ctx) const {
    if (!params_) return nullptr;
    for (int i : must_be_absent_) {
      if (ctx.input(i) != nullptr) return nullptr;
    }
    return &*params_;
  }

 private:
  std::vector<int> must_be_absent_;
  std::optional<P> params_;
};

}  // namespace ptq
