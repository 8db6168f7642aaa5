// What ScatterND and ScatterElements share: the reduction attribute (how an update combines with the
// element it lands on) and the input checks.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/kernel.h"

namespace ptq {

enum class ScatterReduction {
  kNone,  // dst = src (the last of duplicate indices wins)
  kAdd,   // dst = dst + src   (opset 16)
  kMul,   // dst = dst * src   (opset 16)
  kMax,   // dst = max(dst, src)   (opset 18)
  kMin,   // dst = min(dst, src)   (opset 18)
};

// Attribute 'reduction' (default "none"); throws an input error naming the value when it is unknown
// or newer than the node's opset.
ScatterReduction ReadScatterReduction(const KernelInit& init);

// The input checks ScatterND and ScatterElements share: integer (int64/int32) indices, updates of the
// data's type.
void CheckScatterInputs(const Tensor& data, const Tensor& indices, const Tensor& updates);

// dst[i] = reduction(dst[i], src[i]) for i < n, elements of one type.
using ScatterFn = void (*)(void* dst, const void* src, int64_t n);

// The function for a reduction and element type: any type for kNone, numeric types for the others
// (else an input error naming `op` and the type).
ScatterFn GetScatterFn(ScatterReduction r, DataType t, const std::string& op);

}  // namespace ptq
