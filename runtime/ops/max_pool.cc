// MaxPool: one 3-D loop nest over each (n, c) plane with per-axis tap ranges.
#include "runtime/ops/max_pool.h"

#include <algorithm>
#include <limits>

#include "runtime/ops/float_compute.h"
#include "runtime/ops/pool_window.h"

namespace ptq {
namespace {

// y[o] = max over the taps t of x[t], row by row: each tap row of the input is folded into the
// output row with one pass per kernel column (branch-free, vectorisable when stride is 1).
template <class T>
void MaxPoolPlane(const T* x, const PoolPlan& p, T* y) {
  const PoolAxis& ad = p.axes[0];
  const PoolAxis& ah = p.axes[1];
  const PoolAxis& aw = p.axes[2];
  const int64_t H = ah.in, W = aw.in, OW = aw.out, sw = aw.stride;
  for (int64_t od = 0; od < ad.out; ++od) {
    for (int64_t oh = 0; oh < ah.out; ++oh) {
      T* yrow = y + (od * ah.out + oh) * OW;
      std::fill(yrow, yrow + OW, std::numeric_limits<T>::lowest());
      for (int64_t kd = ad.k_begin[od]; kd < ad.k_end[od]; ++kd) {
        const int64_t id = ad.start[od] + kd * ad.dilation;
        for (int64_t kh = ah.k_begin[oh]; kh < ah.k_end[oh]; ++kh) {
          const T* xrow = x + (id * H + ah.start[oh] + kh * ah.dilation) * W;
          for (int64_t kw = 0; kw < aw.kernel; ++kw) {
            const int64_t off = kw * aw.dilation - aw.pad_begin;  // reads xrow[ow * sw + off]
            if (sw == 1) {
              for (int64_t ow = aw.o_begin[kw]; ow < aw.o_end[kw]; ++ow) {
                yrow[ow] = xrow[ow + off] > yrow[ow] ? xrow[ow + off] : yrow[ow];
              }
            } else {
              for (int64_t ow = aw.o_begin[kw]; ow < aw.o_end[kw]; ++ow) {
                yrow[ow] = xrow[ow * sw + off] > yrow[ow] ? xrow[ow * sw + off] : yrow[ow];
              }
            }
          }
        }
      }
    }
  }
}

// MaxPoolPlane that also records where each maximum is: index[o] = plane_base + the flat spatial
// index of the maximum (row-major, or column-major when column_major); -1 for an empty window.
template <class T>
void MaxPoolPlaneWithIndices(const T* x, const PoolPlan& p, int64_t plane_base, bool column_major, T* y,
                             int64_t* index) {
  const PoolAxis& ad = p.axes[0];
  const PoolAxis& ah = p.axes[1];
  const PoolAxis& aw = p.axes[2];
  const int64_t H = ah.in, W = aw.in, D = ad.in;
  for (int64_t od = 0; od < ad.out; ++od) {
    for (int64_t oh = 0; oh < ah.out; ++oh) {
      for (int64_t ow = 0; ow < aw.out; ++ow) {
        T best = std::numeric_limits<T>::lowest();
        int64_t best_at = -1;  // row-major spatial index
        for (int64_t kd = ad.k_begin[od]; kd < ad.k_end[od]; ++kd) {
          const int64_t id = ad.start[od] + kd * ad.dilation;
          for (int64_t kh = ah.k_begin[oh]; kh < ah.k_end[oh]; ++kh) {
            const int64_t row = (id * H + ah.start[oh] + kh * ah.dilation) * W;
            for (int64_t kw = aw.k_begin[ow]; kw < aw.k_end[ow]; ++kw) {
              const int64_t at = row + aw.start[ow] + kw * aw.dilation;
              const bool better = x[at] > best || best_at < 0;  // the first tap always counts
              best = better ? x[at] : best;
              best_at = better ? at : best_at;
            }
          }
        }
        const int64_t o = (od * ah.out + oh) * aw.out + ow;
        y[o] = best;
        if (best_at < 0) {
          index[o] = -1;
        } else if (column_major) {  // (d, h, w) -> d + D * (h + H * w)
          const int64_t bw = best_at % W, bh = (best_at / W) % H, bd = best_at / (W * H);
          index[o] = plane_base + bd + D * (bh + H * bw);
        } else {
          index[o] = plane_base + best_at;
        }
      }
    }
  }
}

template <class T>
void MaxPoolTyped(const ConvAttributes& attrs, bool column_major, const Tensor& x, Tensor& y, Tensor* indices) {
  const SlidingWindow w = ResolvePoolWindow(attrs, x.shape());
  const PoolPlan plan = MakePoolPlan(w);
  Shape ys{x.dim(0), x.dim(1)};
  ys.insert(ys.end(), w.output.begin(), w.output.end());
  y = Tensor(x.dtype(), ys);
  if (indices) *indices = Tensor(DataType::kInt64, ys);
  const int64_t planes = x.dim(0) * x.dim(1);
  for (int64_t i = 0; i < planes; ++i) {
    const T* px = x.data<T>() + i * plan.in_size;
    T* py = y.data<T>() + i * plan.out_size;
    if (indices) {
      MaxPoolPlaneWithIndices(px, plan, i * plan.in_size, column_major, py,
                              indices->data<int64_t>() + i * plan.out_size);
    } else {
      MaxPoolPlane(px, plan, py);
    }
  }
}

class MaxPoolKernel final : public Kernel {
 public:
  explicit MaxPoolKernel(const KernelInit& init)
      : attrs_(ReadConvAttributes(*init.attrs)), column_major_(init.attrs->GetInt("storage_order", 0) == 1) {
    PTQ_ENFORCE(init.attrs->GetInt("storage_order", 0) == 0 || column_major_,
                "attribute 'storage_order' must be 0 (row-major) or 1 (column-major)");
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    Tensor* indices = ctx.outputs.size() > 1 ? &ctx.outputs[1] : nullptr;
    Tensor& y = ctx.outputs[0];
    switch (x.dtype()) {
      case DataType::kFloat: MaxPoolTyped<float>(attrs_, column_major_, x, y, indices); break;
      case DataType::kDouble: MaxPoolTyped<double>(attrs_, column_major_, x, y, indices); break;
      case DataType::kInt8: MaxPoolTyped<int8_t>(attrs_, column_major_, x, y, indices); break;
      case DataType::kUint8: MaxPoolTyped<uint8_t>(attrs_, column_major_, x, y, indices); break;
      case DataType::kFloat16:
      case DataType::kBfloat16: {
        Tensor y_float;
        MaxPoolTyped<float>(attrs_, column_major_, WidenToFloat(x), y_float, indices);
        y = NarrowFromFloat(y_float, x.dtype());
        break;
      }
      default:
        ThrowInputError("input 'X' has type ", DataTypeName(x.dtype()),
                        "; MaxPool supports float32, float64, float16, bfloat16, int8 and uint8");
    }
  }

 private:
  ConvAttributes attrs_;
  bool column_major_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMaxPool(const KernelInit& init) { return MakeKernel<MaxPoolKernel>(init); }

}  // namespace ptq
