// AveragePool: one 3-D loop nest over each (n, c) plane with per-axis tap ranges.
#include "runtime/ops/average_pool.h"

#include <algorithm>
#include <vector>

#include "runtime/ops/float_compute.h"
#include "runtime/ops/pool_window.h"

namespace ptq {
namespace {

// y[o] = (sum over the taps t inside x of x[t]) / divisor, divisor = the number of taps inside x,
// or inside the padded extent when count_include_pad. Sums are built row by row: each tap row of
// the input is added into the output row with one pass per kernel column.
template <class T>
void AveragePoolPlane(const T* x, const PoolPlan& p, bool count_include_pad, T* y) {
  const PoolAxis& ad = p.axes[0];
  const PoolAxis& ah = p.axes[1];
  const PoolAxis& aw = p.axes[2];
  const int64_t H = ah.in, W = aw.in, OW = aw.out, sw = aw.stride;
  std::vector<T> width_count(static_cast<size_t>(OW));
  for (int64_t ow = 0; ow < OW; ++ow) {
    width_count[ow] = static_cast<T>(count_include_pad ? aw.padded_count[ow] : aw.k_end[ow] - aw.k_begin[ow]);
  }
  for (int64_t od = 0; od < ad.out; ++od) {
    for (int64_t oh = 0; oh < ah.out; ++oh) {
      T* yrow = y + (od * ah.out + oh) * OW;
      std::fill(yrow, yrow + OW, T(0));
      for (int64_t kd = ad.k_begin[od]; kd < ad.k_end[od]; ++kd) {
        const int64_t id = ad.start[od] + kd * ad.dilation;
        for (int64_t kh = ah.k_begin[oh]; kh < ah.k_end[oh]; ++kh) {
          const T* xrow = x + (id * H + ah.start[oh] + kh * ah.dilation) * W;
          for (int64_t kw = 0; kw < aw.kernel; ++kw) {
            const int64_t off = kw * aw.dilation - aw.pad_begin;  // reads xrow[ow * sw + off]
            if (sw == 1) {
              for (int64_t ow = aw.o_begin[kw]; ow < aw.o_end[kw]; ++ow) yrow[ow] += xrow[ow + off];
            } else {
              for (int64_t ow = aw.o_begin[kw]; ow < aw.o_end[kw]; ++ow) yrow[ow] += xrow[ow * sw + off];
            }
          }
        }
      }
      const T dh_count =
          static_cast<T>(count_include_pad ? ad.padded_count[od] * ah.padded_count[oh]
                                           : (ad.k_end[od] - ad.k_begin[od]) * (ah.k_end[oh] - ah.k_begin[oh]));
      for (int64_t ow = 0; ow < OW; ++ow) {
        const T count = dh_count * width_count[ow];
        yrow[ow] = count > T(0) ? yrow[ow] / count : T(0);
      }
    }
  }
}

template <class T>
Tensor AveragePoolTyped(const ConvAttributes& attrs, bool count_include_pad, const Tensor& x) {
  const SlidingWindow w = ResolvePoolWindow(attrs, x.shape());
  const PoolPlan plan = MakePoolPlan(w);
  Shape ys{x.dim(0), x.dim(1)};
  ys.insert(ys.end(), w.output.begin(), w.output.end());
  Tensor y(x.dtype(), ys);
  const int64_t planes = x.dim(0) * x.dim(1);
  for (int64_t i = 0; i < planes; ++i) {
    AveragePoolPlane(x.data<T>() + i * plan.in_size, plan, count_include_pad, y.data<T>() + i * plan.out_size);
  }
  return y;
}

class AveragePoolKernel final : public Kernel {
 public:
  explicit AveragePoolKernel(const KernelInit& init)
      : attrs_(ReadConvAttributes(*init.attrs)), count_include_pad_(init.attrs->GetInt("count_include_pad", 0) != 0) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    switch (x.dtype()) {
      case DataType::kFloat: ctx.outputs[0] = AveragePoolTyped<float>(attrs_, count_include_pad_, x); break;
      case DataType::kDouble: ctx.outputs[0] = AveragePoolTyped<double>(attrs_, count_include_pad_, x); break;
      case DataType::kFloat16:
      case DataType::kBfloat16:
        ctx.outputs[0] =
            NarrowFromFloat(AveragePoolTyped<float>(attrs_, count_include_pad_, WidenToFloat(x)), x.dtype());
        break;
      default:
        ThrowInputError("input 'X' has type ", DataTypeName(x.dtype()),
                        "; AveragePool supports float32, float64, float16 and bfloat16");
    }
  }

 private:
  ConvAttributes attrs_;
  bool count_include_pad_;
};

}  // namespace

std::unique_ptr<Kernel> MakeAveragePool(const KernelInit& init) { return MakeKernel<AveragePoolKernel>(init); }

}  // namespace ptq
