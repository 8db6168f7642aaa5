// ConstantParams reads a kernel's parameters once from its constant inputs, and hands them to a run only when that
// run's parameter inputs are those constants: not when an input that was not a constant at init is given.
#include "runtime/ops/quantization/constant_params.h"

#include <gtest/gtest.h>

#include "runtime/error.h"

namespace ptq {
namespace {

// A node of 4 inputs: 0 computed, 1 and 2 parameters (2 optional), 3 another optional parameter.
KernelInit Init(const std::vector<const Tensor*>& constants) {
  KernelInit init;
  init.num_inputs = static_cast<int>(constants.size());
  init.const_inputs = constants;
  return init;
}

// The sum of the parameter inputs present (one float each).
float Sum(const KernelContext& c) {
  float s = c.required_input(1).data<float>()[0];
  for (int i : {2, 3}) s += c.input(i) != nullptr ? c.input(i)->data<float>()[0] : 0.0f;
  return s;
}

TEST(ConstantParams, ReadOnceFromTheConstantsAndUsedWhileTheRunsInputsAreThem) {
  const Tensor a = Tensor::Scalar<float>(2.0f), b = Tensor::Scalar<float>(5.0f), x = Tensor::Scalar<float>(1.0f);
  int reads = 0;
  const ConstantParams<float> params(Init({nullptr, &a, &b, nullptr}), {1, 2, 3}, [&](const KernelContext& c) {
    ++reads;
    return Sum(c);
  });
  EXPECT_EQ(reads, 1);
  KernelContext run;
  run.inputs = {&x, &a, &b, nullptr};  // input 3 absent, as at init
  ASSERT_NE(params.Get(run), nullptr);
  EXPECT_EQ(*params.Get(run), 7.0f);
  const Tensor computed = Tensor::Scalar<float>(10.0f);
  run.inputs = {&x, &a, &b, &computed};  // input 3 given by another node: the run reads it
  EXPECT_EQ(params.Get(run), nullptr);
  EXPECT_EQ(reads, 1);
}

TEST(ConstantParams, NothingIsReadWhenARequiredParameterIsComputed) {
  const Tensor b = Tensor::Scalar<float>(5.0f), a = Tensor::Scalar<float>(2.0f), x = Tensor::Scalar<float>(1.0f);
  const ConstantParams<float> params(Init({nullptr, nullptr, &b, nullptr}), {1, 2, 3}, Sum);
  KernelContext run;
  run.inputs = {&x, &a, &b, nullptr};
  EXPECT_EQ(params.Get(run), nullptr);
}

TEST(ConstantParams, MalformedConstantsAreLeftToTheRunToReport) {
  const Tensor a = Tensor::Scalar<float>(2.0f), x = Tensor::Scalar<float>(1.0f);
  const ConstantParams<float> params(Init({nullptr, &a, nullptr, nullptr}), {1, 2, 3}, [](const KernelContext&) {
    PTQ_ENFORCE(false, "input 'a' is malformed");
    return 0.0f;
  });
  KernelContext run;
  run.inputs = {&x, &a, nullptr, nullptr};
  EXPECT_EQ(params.Get(run), nullptr);
}

}  // namespace
}  // namespace ptq
