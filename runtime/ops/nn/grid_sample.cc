// GridSample kernel on float types, X [N, C, H, W], grid [N, H_out, W_out, 2] of normalized (x, y):
//   x = (gx + 1) / 2 * (W - 1)            align_corners = 1
//   x = ((gx + 1) * W - 1) / 2            align_corners = 0   (y likewise with H)
// A coordinate outside [lo, hi] ([0, W - 1] with align_corners, else [-0.5, W - 0.5]) is clamped to
// [0, W - 1] (padding_mode border) or reflected into [lo, hi] (reflection). Then, by mode:
//   nearest:  X at (nearbyint(y), nearbyint(x))
//   bilinear: the 2 x 2 taps around (y, x), weights 1 - d and d   (opset 20 name: linear)
//   bicubic:  the 4 x 4 taps, Keys cubic weights with a = -0.75     (opset 20 name: cubic)
// A tap outside the image reads 0 (zeros), the clamped pixel (border) or the reflected one
// (reflection). As ONNX's reference and PyTorch compute it; only 4-D inputs are supported.
#include "runtime/ops/nn/grid_sample.h"

#include <cmath>
#include <string>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"

namespace ptq {
namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Padding { kZeros, kBorder, kReflection };

// Reflects x into [lo, hi] by the nearer border, repeatedly.
double Reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const double dx = lo - x;
    const double n = std::floor(dx / range), r = dx - n * range;
    return std::fmod(n, 2.0) == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const double dx = x - hi;
    const double n = std::floor(dx / range), r = dx - n * range;
    return std::fmod(n, 2.0) == 0 ? hi - r : lo + r;
  }
  return x;
}

void CubicWeights(double t, double w[4]) {
  const double a = -0.75;
  const double x0 = t + 1, x1 = t, x2 = 1 - t, x3 = 2 - t;
  w[0] = ((a * x0 - 5 * a) * x0 + 8 * a) * x0 - 4 * a;
  w[1] = ((a + 2) * x1 - (a + 3)) * x1 * x1 + 1;
  w[2] = ((a + 2) * x2 - (a + 3)) * x2 * x2 + 1;
  w[3] = ((a * x3 - 5 * a) * x3 + 8 * a) * x3 - 4 * a;
}

class GridSample : public Kernel {
 public:
  explicit GridSample(const KernelInit& init) : align_corners_(init.attrs->GetInt("align_corners", 0) != 0) {
    const std::string mode = init.attrs->GetString("mode", init.opset >= 20 ? "linear" : "bilinear");
    if (mode == "nearest")
      mode_ = Mode::kNearest;
    else if (mode == "bilinear" || mode == "linear")
      mode_ = Mode::kLinear;
    else if (mode == "bicubic" || mode == "cubic")
      mode_ = Mode::kCubic;
    else
      ThrowInputError("attribute 'mode' is '", mode, "'; expected bilinear, nearest or bicubic");
    const std::string padding = init.attrs->GetString("padding_mode", "zeros");
    if (padding == "zeros")
      padding_ = Padding::kZeros;
    else if (padding == "border")
      padding_ = Padding::kBorder;
    else if (padding == "reflection")
      padding_ = Padding::kReflection;
    else
      ThrowInputError("attribute 'padding_mode' is '", padding, "'; expected zeros, border or reflection");
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& grid = ctx.required_input(1);
    PTQ_ENFORCE(x.rank() == 4 && grid.rank() == 4 && grid.dim(0) == x.dim(0) && grid.dim(3) == 2, "inputs 'X' ",
                ShapeToString(x.shape()), " and 'grid' ", ShapeToString(grid.shape()),
                " must be [N, C, H, W] and [N, H_out, W_out, 2] (ptq supports 2-D sampling)");
    PTQ_ENFORCE(grid.dtype() == x.dtype(), "input 'grid' is ", DataTypeName(grid.dtype()), ", 'X' is ",
                DataTypeName(x.dtype()));
    const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), ho = grid.dim(1), wo = grid.dim(2);
    DispatchType<kFloatTypes>(x.dtype(), "GridSample", "X", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      ComputeView<E> in(x), g(grid);
      ComputeOutput<E> out({n, c, ho, wo});
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t p = 0; p < ho * wo; ++p) {
          const C* gp = g.data() + (b * ho * wo + p) * 2;
          const double sx = Source(gp[0], w), sy = Source(gp[1], h);
          for (int64_t ch = 0; ch < c; ++ch) {
            const C* img = in.data() + (b * c + ch) * h * w;
            out.data()[((b * c + ch) * ho * wo) + p] = static_cast<C>(Sample(img, h, w, sy, sx));
          }
        }
      }
      ctx.outputs[0] = out.Finish();
    });
  }

 private:
  // The padded source coordinate of normalized g on an axis of size d (a NaN position samples 0).
  double Source(double g, int64_t d) const {
    const double dd = static_cast<double>(d);
    double v = align_corners_ ? (g + 1) / 2 * (dd - 1) : ((g + 1) * dd - 1) / 2;
    if (mode_ == Mode::kNearest) v = std::nearbyint(v);
    const double lo = align_corners_ ? 0.0 : -0.5, hi = align_corners_ ? dd - 1 : dd - 0.5;
    if (v < lo || v > hi) {
      if (padding_ == Padding::kBorder)
        v = std::fmin(std::fmax(v, 0.0), dd - 1);
      else if (padding_ == Padding::kReflection)
        v = Reflect(v, lo, hi);
    }
    return v;
  }

  // The pixel at integer (i, j) under the padding mode.
  template <class C>
  double Pixel(const C* img, int64_t h, int64_t w, int64_t i, int64_t j) const {
    if (padding_ == Padding::kZeros) {
      return i >= 0 && i < h && j >= 0 && j < w ? static_cast<double>(img[i * w + j]) : 0.0;
    }
    if (padding_ == Padding::kReflection) {
      i = static_cast<int64_t>(
          Reflect(static_cast<double>(i), align_corners_ ? 0 : -0.5, align_corners_ ? h - 1 : h - 0.5));
      j = static_cast<int64_t>(
          Reflect(static_cast<double>(j), align_corners_ ? 0 : -0.5, align_corners_ ? w - 1 : w - 0.5));
    }
    i = i < 0 ? 0 : (i >= h ? h - 1 : i);
    j = j < 0 ? 0 : (j >= w ? w - 1 : j);
    return static_cast<double>(img[i * w + j]);
  }

  template <class C>
  double Sample(const C* img, int64_t h, int64_t w, double y, double x) const {
    if (h == 0 || w == 0) return 0.0;
    // Coordinates beyond any tap (or NaN) read padding only; keep the integer conversions defined.
    const double limit = 4.0 * static_cast<double>(h > w ? h : w) + 8;
    if (!(std::fabs(x) < limit && std::fabs(y) < limit)) {
      if (padding_ == Padding::kZeros || std::isnan(x) || std::isnan(y)) return 0.0;
      x = std::fmin(std::fmax(x, -limit), limit);
      y = std::fmin(std::fmax(y, -limit), limit);
    }
    if (mode_ == Mode::kNearest) return Pixel(img, h, w, static_cast<int64_t>(y), static_cast<int64_t>(x));
    const int64_t y0 = static_cast<int64_t>(std::floor(y)), x0 = static_cast<int64_t>(std::floor(x));
    const double dy = y - static_cast<double>(y0), dx = x - static_cast<double>(x0);
    if (mode_ == Mode::kLinear) {
      return (1 - dy) * ((1 - dx) * Pixel(img, h, w, y0, x0) + dx * Pixel(img, h, w, y0, x0 + 1)) +
             dy * ((1 - dx) * Pixel(img, h, w, y0 + 1, x0) + dx * Pixel(img, h, w, y0 + 1, x0 + 1));
    }
    double wy[4], wx[4];
    CubicWeights(dy, wy);
    CubicWeights(dx, wx);
    double sum = 0;
    for (int i = 0; i < 4; ++i) {
      double row = 0;
      for (int j = 0; j < 4; ++j) row += wx[j] * Pixel(img, h, w, y0 - 1 + i, x0 - 1 + j);
      sum += wy[i] * row;
    }
    return sum;
  }

  bool align_corners_;
  Mode mode_ = Mode::kLinear;
  Padding padding_ = Padding::kZeros;
};

}  // namespace

std::unique_ptr<Kernel> MakeGridSample(const KernelInit& init) { return MakeKernel<GridSample>(init); }

}  // namespace ptq
