// Helpers shared by the element-wise kernel tests.
#pragma once

#include <string>
#include <vector>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace testing {

constexpr float kFloatTol = 1e-6f;  // relative, for float32 transcendental results

inline Tensor Floats(Shape shape, const std::vector<float>& v) { return Tensor::FromVector<float>(std::move(shape), v); }

// start, start + step, ... (n values)
inline std::vector<float> Iota(int64_t n, float start = 0.0f, float step = 1.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

// Runs op_type at the opset and returns its single output.
inline Tensor RunOne(const std::string& op, int opset, const std::vector<Tensor>& inputs, const Attributes& attrs = {}) {
  return RunOp(op, opset, attrs, inputs)[0];
}

}  // namespace testing
}  // namespace ptq
