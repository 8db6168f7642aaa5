// MaxPool: the maximum over each window of a padded plane, in blocks of outputs held in registers.
#include "runtime/ops/nn/max_pool.h"

#include <omp.h>

#include <Eigen/Core>
#include <algorithm>
#include <limits>
#include <type_traits>

#include "runtime/channels_last_layout.h"
#include "runtime/ops/math/float_compute.h"
#include "runtime/ops/nn/pool_window.h"
#include "runtime/ops/tensor/scratch_buffer.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

// The maxima and where they are: index[o] = plane_base + the flat spatial index in x of the maximum
// (row-major, or column-major when column_major); -1 for a window with no tap inside x.
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

// A 2 x 2 window with stride 2 over 2-D planes, no padding, no dilation, each output row reading two
// whole input rows (floor division of even or odd widths and heights alike).
bool IsPlain2x2(const PoolPlan& p) {
  const PoolAxis& d = p.axes[0];
  const PoolAxis& h = p.axes[1];
  const PoolAxis& w = p.axes[2];
  auto halves = [](const PoolAxis& a) {
    return a.kernel == 2 && a.stride == 2 && a.dilation == 1 && a.pad_begin == 0 && a.out == a.in / 2;
  };
  return !p.padded && d.in == 1 && d.out == 1 && d.kernel == 1 && halves(h) && halves(w);
}

// y[p][r][j] = max(x[p][2r][2j], x[p][2r][2j+1], x[p][2r+1][2j], x[p][2r+1][2j+1]) over `planes` planes of
// in_height x width (an odd last row or column is read by no window).
template <class T>
void MaxPool2x2Rows(const T* x, int64_t in_height, int64_t out_height, int64_t planes, int64_t width, T* y) {
  const int64_t out_width = width / 2;
  for (int64_t plane = 0; plane < planes; ++plane) {
    const T* xp = x + plane * in_height * width;
    for (int64_t r = 0; r < out_height; ++r, y += out_width) {
      const T* top = xp + 2 * r * width;
      const T* bottom = top + width;
      for (int64_t j = 0; j < out_width; ++j) {
        const T a = std::max(top[2 * j], top[2 * j + 1]);
        const T b = std::max(bottom[2 * j], bottom[2 * j + 1]);
        y[j] = std::max(a, b);
      }
    }
  }
}

// Channels last, 2 spatial dims (x [N, H, W, C], y [N, OH, OW, C]): y[n, oh, ow, :] = the maximum over the
// window's taps inside x of x[n, ih, iw, :], C channels at once (the lowest value for a window with no
// tap inside x, as padding never wins); output lines shared between threads when large.
template <class T>
void MaxPoolNhwc(const T* x, const PoolPlan& p, int64_t batch, int64_t C, T* y) {
  using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
  const PoolAxis& ah = p.axes[1];
  const PoolAxis& aw = p.axes[2];
  const int64_t H = ah.in, W = aw.in, OH = ah.out, OW = aw.out;
  const int64_t lines = batch * OH;
  const int threads = ThreadsForWork(lines * OW * C, int64_t{1} << 16);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t line = 0; line < lines; ++line) {
    const int64_t n = line / OH, oh = line % OH;
    const T* image = x + n * H * W * C;
    for (int64_t ow = 0; ow < OW; ++ow) {
      Eigen::Map<Row> out(y + (line * OW + ow) * C, C);
      out.setConstant(std::numeric_limits<T>::lowest());
      for (int64_t kh = ah.k_begin[oh]; kh < ah.k_end[oh]; ++kh) {
        const int64_t ih = ah.start[oh] + kh * ah.dilation;
        for (int64_t kw = aw.k_begin[ow]; kw < aw.k_end[ow]; ++kw) {
          const int64_t iw = aw.start[ow] + kw * aw.dilation;
          out = out.max(Eigen::Map<const Row>(image + (ih * W + iw) * C, C));
        }
      }
    }
  }
}

class MaxPoolKernel final : public Kernel {
 public:
  explicit MaxPoolKernel(const KernelInit& init)
      : attrs_(ReadConvAttributes(*init.attrs)),
        column_major_(init.attrs->GetInt("storage_order", 0) == 1),
        channels_last_(init.attrs->GetInt(kChannelsLast, 0) != 0) {
    PTQ_ENFORCE(init.attrs->GetInt("storage_order", 0) == 0 || column_major_,
                "attribute 'storage_order' must be 0 (row-major) or 1 (column-major)");
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    Tensor* indices = ctx.outputs.size() > 1 ? &ctx.outputs[1] : nullptr;
    Tensor& y = ctx.outputs[0];
    switch (x.dtype()) {
      case DataType::kFloat: Pool<float>(x, y, indices); break;
      case DataType::kDouble: Pool<double>(x, y, indices); break;
      case DataType::kInt8: Pool<int8_t>(x, y, indices); break;
      case DataType::kUint8: Pool<uint8_t>(x, y, indices); break;
      case DataType::kFloat16:
      case DataType::kBfloat16: {
        Tensor y_float;
        Pool<float>(WidenToFloat(x), y_float, indices);
        y = NarrowFromFloat(y_float, x.dtype());
        break;
      }
      default:
        ThrowInputError("input 'X' has type ", DataTypeName(x.dtype()),
                        "; MaxPool supports float32, float64, float16, bfloat16, int8 and uint8");
    }
  }

 private:
  template <class T>
  void Pool(const Tensor& x, Tensor& y, Tensor* indices) {
    if (channels_last_) {
      PTQ_ENFORCE(indices == nullptr, "a channels-last MaxPool has no output 'Indices'");
      PoolNhwc<T>(x, y);
      return;
    }
    if (x.shape() != x_shape_) {  // resolve the window once per input shape
      const SlidingWindow w = ResolvePoolWindow(attrs_, x.shape());
      plan_ = MakePoolPlan(w);
      y_shape_ = {x.dim(0), x.dim(1)};
      y_shape_.insert(y_shape_.end(), w.output.begin(), w.output.end());
      x_shape_ = x.shape();
    }
    y = Tensor::Uninitialized(x.dtype(), y_shape_);  // every output is written below
    if (indices) *indices = Tensor(DataType::kInt64, y_shape_);
    const int64_t planes = x.dim(0) * x.dim(1);
    if constexpr (std::is_integral<T>::value) {  // floats keep the general path's NaN behaviour
      if (!indices && IsPlain2x2(plan_)) {
        MaxPool2x2Rows(x.data<T>(), plan_.axes[1].in, plan_.axes[1].out, planes, plan_.axes[2].in, y.data<T>());
        return;
      }
    }
    T* padded = plan_.padded ? scratch_.Get<T>(static_cast<size_t>(plan_.plane_size)) : nullptr;
    for (int64_t i = 0; i < planes; ++i) {
      const T* px = x.data<T>() + i * plan_.in_size;
      T* py = y.data<T>() + i * plan_.out_size;
      if (indices) {
        MaxPoolPlaneWithIndices(px, plan_, i * plan_.in_size, column_major_, py,
                                indices->data<int64_t>() + i * plan_.out_size);
      } else {
        // y[o] = max over the window's taps (padding holds the lowest value, so it never wins)
        const T lowest = std::numeric_limits<T>::lowest();
        PoolPlane(
            PoolSource(px, plan_, lowest, padded), plan_, lowest, [](const auto& a, const auto& b) { return a.max(b); },
            py);
      }
    }
  }

  // ptq.fused MaxPool of the session's channels-last layout (2 spatial dims, no Indices): x [N, H, W, C].
  template <class T>
  void PoolNhwc(const Tensor& x, Tensor& y) {
    PTQ_ENFORCE(x.rank() == 4, "input 'X' has shape ", ShapeToString(x.shape()), "; expected [N, H, W, C]");
    if (x.shape() != x_shape_) {
      const SlidingWindow w = ResolvePoolWindow(attrs_, {x.dim(0), x.dim(3), x.dim(1), x.dim(2)});
      PTQ_ENFORCE(w.rank() == 2, "a channels-last MaxPool needs a 2-D window");
      plan_ = MakePoolPlan(w);
      y_shape_ = {x.dim(0), w.output[0], w.output[1], x.dim(3)};
      x_shape_ = x.shape();
    }
    y = Tensor::Uninitialized(x.dtype(), y_shape_);
    MaxPoolNhwc(x.data<T>(), plan_, x.dim(0), x.dim(3), y.data<T>());
  }

  ConvAttributes attrs_;
  bool column_major_;
  bool channels_last_;  // ptq.fused MaxPool: x [N, H, W, C]
  Shape x_shape_, y_shape_;
  PoolPlan plan_;
  ScratchBuffer scratch_;  // one padded plane
};

}  // namespace

std::unique_ptr<Kernel> MakeMaxPool(const KernelInit& init) { return MakeKernel<MaxPoolKernel>(init); }

}  // namespace ptq
