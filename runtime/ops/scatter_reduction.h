// The reduction attribute shared by ScatterND and ScatterElements: how an update combines with the
// element it lands on.
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

// dst[i] = reduction(dst[i], src[i]) for i < n, elements of one type.
using ScatterFn = void (*)(void* dst, const void* src, int64_t n);

// The function for a reduction and element type: any type for kNone, numeric types for the others
// (else an input error naming `op` and the type).
ScatterFn GetScatterFn(ScatterReduction r, DataType t, const std::string& op);

}  // namespace ptq
