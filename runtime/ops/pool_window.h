// The taps of a pooling window over up to three spatial dimensions, resolved per axis once per run.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/ops/conv_geometry.h"

namespace ptq {

// One spatial axis of a pool. For output index o the window starts at start[o] = o * stride -
// pad_begin and its taps k in [k_begin[o], k_end[o]) read input index start[o] + k * dilation,
// which lies in [0, in). padded_count[o] counts the taps inside [-pad_begin, in + pad_end)
// (AveragePool's count_include_pad divisor). Seen from the taps: tap k is inside the input for
// the outputs o in [o_begin[k], o_end[k]), where it reads o * stride + k * dilation - pad_begin.
struct PoolAxis {
  int64_t in = 1;
  int64_t out = 1;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t pad_begin = 0;
  std::vector<int64_t> start;
  std::vector<int64_t> k_begin;
  std::vector<int64_t> k_end;
  std::vector<int64_t> padded_count;
  std::vector<int64_t> o_begin;
  std::vector<int64_t> o_end;
};

// A window of 1 to 3 spatial dims, padded to three axes (depth, height, width) with leading axes
// of size 1, so that pooling kernels need one 3-D loop nest.
struct PoolPlan {
  PoolAxis axes[3];
  int64_t in_size = 1;   // input elements per (n, c) plane
  int64_t out_size = 1;  // output elements per (n, c) plane
};

// Throws an input error when the window has more than three spatial dimensions.
PoolPlan MakePoolPlan(const SlidingWindow& w);

// Reads the pooling attributes and resolves the window for X [N, C, D1..Dn]: kernel_shape is
// required; group is not a pooling attribute. Errors name the input or attribute.
SlidingWindow ResolvePoolWindow(const ConvAttributes& attrs, const Shape& x_shape);

}  // namespace ptq
