// Per-axis tap ranges of pooling windows.
#include "runtime/ops/nn/pool_window.h"

#include <algorithm>

namespace ptq {
namespace {

// The j in [0, count) with lo <= start + j * step < hi, as [begin, end).
void TapRange(int64_t start, int64_t count, int64_t step, int64_t lo, int64_t hi, int64_t& begin, int64_t& end) {
  begin = start >= lo ? 0 : (lo - start + step - 1) / step;
  end = hi - start <= 0 ? 0 : (hi - start + step - 1) / step;
  end = std::min(end, count);
  begin = std::min(begin, end);
}

}  // namespace

PoolPlan MakePoolPlan(const SlidingWindow& w) {
  const size_t n = w.rank();
  PTQ_ENFORCE(n >= 1 && n <= 3, "pooling over ", n, " spatial dimensions is not supported (1 to 3 are)");
  PoolPlan plan;
  for (size_t i = 0; i < 3; ++i) {
    PoolAxis& axis = plan.axes[i];
    if (i + n < 3) {  // a leading axis of size 1 with a single tap
      axis.start = {0};
      axis.k_begin = {0};
      axis.k_end = {1};
      axis.padded_count = {1};
      continue;
    }
    const size_t a = i + n - 3;
    axis.in = w.input[a];
    axis.out = w.output[a];
    axis.kernel = w.kernel[a];
    axis.stride = w.strides[a];
    axis.dilation = w.dilations[a];
    axis.pad_begin = w.pads_begin[a];
    axis.extent = (axis.out - 1) * axis.stride + (axis.kernel - 1) * axis.dilation + 1;
    for (int64_t o = 0; o < axis.out; ++o) {
      const int64_t start = o * axis.stride - axis.pad_begin;
      int64_t begin, end, padded_begin, padded_end;
      TapRange(start, axis.kernel, axis.dilation, 0, axis.in, begin, end);
      TapRange(start, axis.kernel, axis.dilation, -axis.pad_begin, axis.in + w.pads_end[a], padded_begin, padded_end);
      axis.start.push_back(start);
      axis.k_begin.push_back(begin);
      axis.k_end.push_back(end);
      axis.padded_count.push_back(padded_end - padded_begin);
    }
    plan.in_size *= axis.in;
    plan.out_size *= axis.out;
    if (axis.pad_begin > 0 || axis.extent > axis.in) plan.padded = true;
  }
  plan.plane_h = plan.padded ? plan.axes[1].extent : plan.axes[1].in;
  plan.plane_w = plan.padded ? plan.axes[2].extent : plan.axes[2].in;
  plan.plane_size = plan.padded ? plan.axes[0].extent * plan.plane_h * plan.plane_w : plan.in_size;
  for (int64_t kd = 0; kd < plan.axes[0].kernel; ++kd) {
    for (int64_t kh = 0; kh < plan.axes[1].kernel; ++kh) {
      for (int64_t kw = 0; kw < plan.axes[2].kernel; ++kw) {
        plan.taps.push_back((kd * plan.axes[0].dilation * plan.plane_h + kh * plan.axes[1].dilation) * plan.plane_w +
                            kw * plan.axes[2].dilation);
      }
    }
  }
  return plan;
}

SlidingWindow ResolvePoolWindow(const ConvAttributes& attrs, const Shape& x_shape) {
  PTQ_ENFORCE(x_shape.size() >= 3, "input 'X' has shape ", ShapeToString(x_shape),
              "; expected [N, C, D1, ...] with at least one spatial dimension");
  PTQ_ENFORCE(!attrs.kernel_shape.empty(), "attribute 'kernel_shape' is required");
  return ResolveWindow(attrs, std::vector<int64_t>(x_shape.begin() + 2, x_shape.end()), attrs.kernel_shape);
}

std::vector<float> AveragePoolCounts(const PoolPlan& p, bool count_include_pad) {
  const auto count = [count_include_pad](const PoolAxis& a, int64_t o) {
    return count_include_pad ? a.padded_count[o] : a.k_end[o] - a.k_begin[o];
  };
  std::vector<float> counts;
  counts.reserve(static_cast<size_t>(p.out_size));
  for (int64_t od = 0; od < p.axes[0].out; ++od) {
    for (int64_t oh = 0; oh < p.axes[1].out; ++oh) {
      for (int64_t ow = 0; ow < p.axes[2].out; ++ow) {
        const int64_t n = count(p.axes[0], od) * count(p.axes[1], oh) * count(p.axes[2], ow);
        counts.push_back(static_cast<float>(n > 0 ? n : 1));
      }
    }
  }
  return counts;
}

}  // namespace ptq
