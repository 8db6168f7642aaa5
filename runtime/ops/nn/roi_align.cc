// RoiAlign kernel on float types, as ONNX Runtime computes it. X [N, C, H, W], rois [R, 4] of
// (x1, y1, x2, y2) in input coordinates, batch_indices [R] (int64, in [0, N)); Y [R, C, oh, ow].
// With s = spatial_scale and o = 0.5 (coordinate_transformation_mode half_pixel, the opset-16
// default) or 0 (output_half_pixel, opset 10's behaviour):
//   start = (x1 s - o, y1 s - o), size = ((x2 - x1) s, (y2 - y1) s), at least 1 x 1 when o = 0
//   each output bin (oh x ow of them) takes g_h x g_w samples (sampling_ratio, or ceil(size / bins)),
//   at the centres of a regular sub-grid; a sample bilinearly interpolates X (a sample beyond one
//   pixel outside the image is 0; others are clamped into it).
//   avg: Y = mean of the samples; max: Y = max over samples of the largest weighted corner.
#include "runtime/ops/nn/roi_align.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"

namespace ptq {
namespace {

class RoiAlign : public Kernel {
 public:
  explicit RoiAlign(const KernelInit& init)
      : max_mode_(init.attrs->GetString("mode", "avg") == "max"),
        out_h_(init.attrs->GetInt("output_height", 1)),
        out_w_(init.attrs->GetInt("output_width", 1)),
        sampling_ratio_(init.attrs->GetInt("sampling_ratio", 0)),
        scale_(init.attrs->GetFloat("spatial_scale", 1.0f)) {
    const std::string mode = init.attrs->GetString("mode", "avg");
    PTQ_ENFORCE(mode == "avg" || mode == "max", "attribute 'mode' is '", mode, "'; expected avg or max");
    const std::string ctm =
        init.attrs->GetString("coordinate_transformation_mode", init.opset >= 16 ? "half_pixel" : "output_half_pixel");
    PTQ_ENFORCE(ctm == "half_pixel" || ctm == "output_half_pixel", "attribute 'coordinate_transformation_mode' is '",
                ctm, "'; expected half_pixel or output_half_pixel");
    half_pixel_ = ctm == "half_pixel";
    PTQ_ENFORCE(out_h_ >= 1 && out_w_ >= 1 && out_h_ <= (1 << 20) && out_w_ <= (1 << 20),
                "attributes 'output_height' and 'output_width' must be in [1, 2^20], got ", out_h_, " and ", out_w_);
    PTQ_ENFORCE(sampling_ratio_ >= 0 && sampling_ratio_ <= 1024, "attribute 'sampling_ratio' is ", sampling_ratio_,
                "; expected 0 (adaptive) to 1024");
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& rois = ctx.required_input(1);
    const Tensor& batch = ctx.required_input(2);
    PTQ_ENFORCE(x.rank() == 4, "input 'X' must be [N, C, H, W], has shape ", ShapeToString(x.shape()));
    PTQ_ENFORCE(rois.dtype() == x.dtype() && rois.rank() == 2 && rois.dim(1) == 4,
                "input 'rois' must be [R, 4] of 'X''s type, got ", DataTypeName(rois.dtype()), " ",
                ShapeToString(rois.shape()));
    PTQ_ENFORCE(
        (batch.dtype() == DataType::kInt64 || batch.dtype() == DataType::kInt32) && batch.shape() == Shape{rois.dim(0)},
        "input 'batch_indices' must be int64 of shape [", rois.dim(0), "], got ", DataTypeName(batch.dtype()), " ",
        ShapeToString(batch.shape()));
    const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), r = rois.dim(0);
    const std::vector<int64_t> bi = batch.ToInt64Vector();
    for (int64_t i = 0; i < r; ++i) {
      PTQ_ENFORCE(bi[static_cast<size_t>(i)] >= 0 && bi[static_cast<size_t>(i)] < n, "batch_indices[", i, "] is ",
                  bi[static_cast<size_t>(i)], ", outside [0, ", n, ")");
    }
    DispatchType<kFloatTypes>(x.dtype(), "RoiAlign", "X", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      ComputeView<E> in(x), box(rois);
      ComputeOutput<E> out({r, c, out_h_, out_w_});
      for (int64_t i = 0; i < r; ++i) {
        const C* b = box.data() + i * 4;
        const double o = half_pixel_ ? 0.5 : 0.0;
        const double x1 = b[0] * scale_ - o, y1 = b[1] * scale_ - o;
        double rw = (b[2] - b[0]) * static_cast<double>(scale_), rh = (b[3] - b[1]) * static_cast<double>(scale_);
        if (!half_pixel_) {
          rw = std::max(rw, 1.0);
          rh = std::max(rh, 1.0);
        }
        const double bin_h = rh / static_cast<double>(out_h_), bin_w = rw / static_cast<double>(out_w_);
        const int64_t gh = sampling_ratio_ > 0 ? sampling_ratio_ : GridCount(rh, out_h_);
        const int64_t gw = sampling_ratio_ > 0 ? sampling_ratio_ : GridCount(rw, out_w_);
        const double count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
        for (int64_t ch = 0; ch < c; ++ch) {
          const C* img = in.data() + (bi[static_cast<size_t>(i)] * c + ch) * h * w;
          C* y = out.data() + (i * c + ch) * out_h_ * out_w_;
          for (int64_t ph = 0; ph < out_h_; ++ph) {
            for (int64_t pw = 0; pw < out_w_; ++pw) {
              double acc = max_mode_ ? -INFINITY : 0.0;
              bool any = false;
              for (int64_t iy = 0; iy < gh; ++iy) {
                const double sy = y1 + ph * bin_h + (iy + 0.5) * bin_h / static_cast<double>(gh);
                for (int64_t ix = 0; ix < gw; ++ix) {
                  const double sx = x1 + pw * bin_w + (ix + 0.5) * bin_w / static_cast<double>(gw);
                  const double v = Bilinear(img, h, w, sy, sx);
                  if (max_mode_) {
                    acc = any ? std::max(acc, v) : v;
                  } else {
                    acc += v;
                  }
                  any = true;
                }
              }
              y[ph * out_w_ + pw] = static_cast<C>(max_mode_ ? (any ? acc : 0.0) : acc / count);
            }
          }
        }
      }
      ctx.outputs[0] = out.Finish();
    });
  }

 private:
  // ceil(size / bins), the adaptive number of samples per bin (0 for an empty or NaN region, at most 2^16).
  static int64_t GridCount(double size, int64_t bins) {
    const double v = std::ceil(size / static_cast<double>(bins));
    return v > 0 ? static_cast<int64_t>(std::min(v, 65536.0)) : 0;
  }

  // The bilinear sample at (y, x); in max mode the largest of the four weighted corners (ONNX Runtime's rule).
  template <class C>
  double Bilinear(const C* img, int64_t h, int64_t w, double y, double x) const {
    if (!(y >= -1.0 && y <= static_cast<double>(h) && x >= -1.0 && x <= static_cast<double>(w)) || h == 0 || w == 0) {
      return 0.0;
    }
    y = std::max(y, 0.0);
    x = std::max(x, 0.0);
    int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1, x1;
    if (y0 >= h - 1) {
      y0 = y1 = h - 1;
      y = static_cast<double>(y0);
    } else {
      y1 = y0 + 1;
    }
    if (x0 >= w - 1) {
      x0 = x1 = w - 1;
      x = static_cast<double>(x0);
    } else {
      x1 = x0 + 1;
    }
    const double ly = y - static_cast<double>(y0), lx = x - static_cast<double>(x0), hy = 1 - ly, hx = 1 - lx;
    const double a = hy * hx * img[y0 * w + x0], b = hy * lx * img[y0 * w + x1];
    const double c = ly * hx * img[y1 * w + x0], d = ly * lx * img[y1 * w + x1];
    return max_mode_ ? std::max(std::max(a, b), std::max(c, d)) : a + b + c + d;
  }

  bool max_mode_;
  int64_t out_h_;
  int64_t out_w_;
  int64_t sampling_ratio_;
  float scale_;
  bool half_pixel_ = true;
};

}  // namespace

std::unique_ptr<Kernel> MakeRoiAlign(const KernelInit& init) { return MakeKernel<RoiAlign>(init); }

}  // namespace ptq
