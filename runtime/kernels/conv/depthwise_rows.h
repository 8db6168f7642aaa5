// The inner loops of depthwise convolution: one output row as a weighted sum of shifted input rows, and
// the split of a padded row into its two stride phases.
#pragma once

#include <cstdint>

namespace ptq {

// y[i] += sum_{t < taps} w[t] * x[t][i] for i in [0, n), taps in order. Floats use FMA where the CPU
// has it (AVX-512 or AVX2), else a multiply and an add; exact either way while every product and
// partial sum is an integer below 2^24 in magnitude (the integer depthwise convolution relies on it).
void DepthwiseRow(const float* const* x, const float* w, int64_t taps, int64_t n, float* y);
void DepthwiseRow(const double* const* x, const double* w, int64_t taps, int64_t n, double* y);

// even[j] = src[2 j], odd[j] = src[2 j + 1] for j in [0, n): the two stride phases of a padded row.
// REQUIRES: src holds 2 n values.
void SplitPhases2(const float* src, int64_t n, float* even, float* odd);
void SplitPhases2(const double* src, int64_t n, double* even, double* odd);

}  // namespace ptq
