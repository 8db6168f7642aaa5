// AddResidualRow: a run of a fused convolution's outputs plus its residual, then the Relu / Clip clamp.
#pragma once

#include <cstdint>

namespace ptq {

// y[i] = y[i] + z[i] (float32), then, when clamp, (v < lo ? lo : v) and (hi < v ? hi : v) as the Clip kernel
// computes them (a NaN stays), for i < n: the bits of an Add node then a Relu or Clip node. One pass with AVX2
// (8 values a step) when the CPU has it, else the plain loop; the same bits either way.
void AddResidualRow(float* y, const float* z, int64_t n, bool clamp, float lo, float hi);

}  // namespace ptq
