// Lets float kernels run float16/bfloat16 tensors: widen to float32, compute, narrow back.
#pragma once

#include "runtime/tensor.h"

namespace ptq {

// True for float16 and bfloat16 (the types computed in float32).
inline bool IsHalfType(DataType t) { return t == DataType::kFloat16 || t == DataType::kBfloat16; }

// A float32 tensor with x's shape and values. REQUIRES: x is float16 or bfloat16.
Tensor WidenToFloat(const Tensor& x);

// `x` (float32) rounded to `dtype` (float16 or bfloat16, round to nearest even).
Tensor NarrowFromFloat(const Tensor& x, DataType dtype);

}  // namespace ptq
