// GrowTo: per-thread scratch vectors that only ever grow, so a call never zero-fills what an earlier one had.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ptq {

// v's storage with at least n elements, v.size() raised to n when smaller and never lowered: resizing a scratch
// vector down and up again value-initialises the regrown part on every call (std::vector::resize), which was a
// memset of each int8 GEMM's packed A, 1% of ResNet-50 int8, when layers of different sizes alternated.
// The elements are whatever an earlier call left (zeros when new): callers write what they read.
template <class T>
T* GrowTo(std::vector<T>& v, int64_t n) {
  if (v.size() < static_cast<size_t>(n)) v.resize(static_cast<size_t>(n));
  return v.data();
}

}  // namespace ptq
