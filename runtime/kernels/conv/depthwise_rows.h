// The inner loop of depthwise convolution: one output row as a weighted sum of shifted input rows.
#pragma once

#include <cstdint>

namespace ptq {

// y[i] += sum_{t < taps} w[t] * x[t][i] for i in [0, n), taps in order. Floats use FMA where the CPU
// has it (AVX-512 or AVX2), else a multiply and an add; exact either way while every product and
// partial sum is an integer below 2^24 in magnitude (the integer depthwise convolution relies on it).
void DepthwiseRow(const float* const* x, const float* w, int64_t taps, int64_t n, float* y);
void DepthwiseRow(const double* const* x, const double* w, int64_t taps, int64_t n, double* y);

}  // namespace ptq
