// Compares an output tensor with its reference: integers exactly, floats within rtol/atol.
#pragma once

#include <string>

#include "runtime/tensor.h"

namespace ptq {

// Returns "" when `actual` matches `expected` (same type and shape; integer and bool values equal;
// float values |a - e| <= atol + rtol * |e|, NaN matching NaN, equal infinities); otherwise a one-line
// description of the first difference.
std::string CompareTensors(const Tensor& actual, const Tensor& expected, double rtol, double atol);

}  // namespace ptq
