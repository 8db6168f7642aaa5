// im2col and col2im over n spatial dimensions: the data movement around the GEMM of Conv and ConvTranspose.
#pragma once

#include <cstdint>

#include "runtime/kernels/conv/conv_geometry.h"

namespace ptq {

// Unfolds `channels` input planes x [channels, I1..In] into col [channels * K, O1 * .. * On], K = k1 * .. * kn:
//   col[(c * K + kidx) * O + oidx] = x[c, o * stride - pad_begin + k * dilation], or 0 where that is
//   outside the input (kidx and oidx are the row-major indices of k and o).
// T is float or double.
template <class T>
void Im2Col(const T* x, int64_t channels, const SlidingWindow& w, T* col);

// The adjoint of Im2Col, with input and output of the window swapped as ConvTranspose sees them
// (w.input = the transposed op's input sizes I, w.output = its output sizes O):
//   y[c, i * stride - pad_begin + k * dilation] += col[(c * K + kidx) * I + iidx]
// for every position inside y [channels, O1..On]. y is accumulated onto, not overwritten.
template <class T>
void Col2ImAdd(const T* col, int64_t channels, const SlidingWindow& w, T* y);

}  // namespace ptq
