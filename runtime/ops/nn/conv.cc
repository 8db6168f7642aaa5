// Conv: depthwise by a direct loop, 1x1 as one GEMM on the input, the rest as (wide) im2col + GEMM.
#include "runtime/ops/nn/conv.h"

#include <algorithm>
#include <vector>

#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/conv/depthwise_conv.h"
#include "runtime/ops/math/float_compute.h"
#include "runtime/kernels/conv/im2col.h"
#include "runtime/kernels/gemm_f32/row_major_gemm.h"
#include "runtime/ops/tensor/scratch_buffer.h"
#include "runtime/kernels/conv/wide_im2col.h"

namespace ptq {
namespace {

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// True when every output position reads exactly the input position it sits at (1x1 kernel,
// stride 1, no padding), so the input itself is the im2col matrix.
bool IsPointwise(const SlidingWindow& w) {
  for (size_t i = 0; i < w.rank(); ++i) {
    if (w.kernel[i] != 1 || w.strides[i] != 1 || w.pads_begin[i] != 0 || w.pads_end[i] != 0) return false;
  }
  return true;
}

// Stride 1, 1 or 2 spatial dims: per image and group, a wide im2col [C/g * K, OH * EW] (wide_im2col.h),
// one GEMM into wide rows, then the OW valid columns of each row added onto y (which holds the bias).
template <class T>
void ConvWide(const ConvGeometry& g, const T* x, const T* w, T* y, ScratchBuffer& scratch) {
  const int64_t cg = g.in_channels_per_group(), mg = g.out_channels_per_group();
  const int64_t in_size = Product(g.window.input), out_size = Product(g.window.output);
  const int64_t depth = cg * Product(g.window.kernel);
  const int64_t OW = g.window.output.back(), OH = out_size / OW;
  const WideLayout l = MakeWideLayout(cg, g.window);
  T* padded = scratch.Get<T>(static_cast<size_t>(l.padded_size + depth * l.cols + mg * l.cols));
  T* col = padded + l.padded_size;
  T* wide = col + depth * l.cols;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      WideIm2Col(x + (n * g.in_channels + grp * cg) * in_size, cg, g.window, l, padded, col);
      RowMajorGemm<T>(false, false, mg, l.cols, depth, T(1), w + grp * mg * depth, depth, col, l.cols, T(0), wide,
                      l.cols);
      T* yg = y + (n * g.out_channels + grp * mg) * out_size;
      for (int64_t r = 0; r < mg * OH; ++r) {  // wide row r = (m, oh) holds EW columns, y's holds OW
        const T* src = wide + r * l.padded_w;
        T* dst = yg + r * OW;
        for (int64_t ow = 0; ow < OW; ++ow) dst[ow] += src[ow];
      }
    }
  }
}

// Any window: per image and group, Y_g [M/g, O] (+)= W_g [M/g, C/g * K] * col_g [C/g * K, O], where
// col_g is X_g itself for a pointwise window and Im2Col(X_g) otherwise. y holds the bias when has_bias.
template <class T>
void ConvIm2Col(const ConvGeometry& g, const T* x, const T* w, bool has_bias, T* y, ScratchBuffer& scratch) {
  const int64_t cg = g.in_channels_per_group(), mg = g.out_channels_per_group();
  const int64_t in_size = Product(g.window.input), out_size = Product(g.window.output);
  const int64_t depth = cg * Product(g.window.kernel);
  const bool pointwise = IsPointwise(g.window);
  T* col = pointwise ? nullptr : scratch.Get<T>(static_cast<size_t>(depth * out_size));
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      const T* xg = x + (n * g.in_channels + grp * cg) * in_size;
      if (!pointwise) Im2Col(xg, cg, g.window, col);
      RowMajorGemm<T>(false, false, mg, out_size, depth, T(1), w + grp * mg * depth, depth, pointwise ? xg : col,
                      out_size, has_bias ? T(1) : T(0), y + (n * g.out_channels + grp * mg) * out_size, out_size);
    }
  }
}

// Y = conv(X, W) + B: depthwise windows of 1 or 2 dims by the direct loop, other stride-1 windows of
// 1 or 2 dims by wide im2col, the rest by im2col (skipped for pointwise windows).
template <class T>
Tensor ConvTyped(const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor* b, ScratchBuffer& scratch) {
  PTQ_ENFORCE(!b || b->size() == g.out_channels, "input 'B' has shape ", ShapeToString(b ? b->shape() : Shape{}),
              "; expected [", g.out_channels, "] (one bias per output channel)");
  Tensor y(x.dtype(), g.output_shape());
  const int64_t out_size = Product(g.window.output);
  const T* px = x.data<T>();
  const T* pw = w.data<T>();
  T* py = y.data<T>();
  for (int64_t i = 0; i < g.batch * g.out_channels; ++i) {
    const T bias = b ? b->data<T>()[i % g.out_channels] : T(0);
    std::fill(py + i * out_size, py + (i + 1) * out_size, bias);
  }
  if (g.group > 1 && IsDepthwise(g)) {
    DepthwiseConv(px, pw, g, py);
  } else if (!IsPointwise(g.window) && IsWideIm2ColWindow(g.window)) {
    ConvWide(g, px, pw, py, scratch);
  } else {
    ConvIm2Col(g, px, pw, b != nullptr, py, scratch);
  }
  return y;
}

class ConvKernel final : public Kernel {
 public:
  explicit ConvKernel(const KernelInit& init) : attrs_(ReadConvAttributes(*init.attrs)) {
    const Tensor* w = init.const_inputs.size() > 1 ? init.const_inputs[1] : nullptr;
    if (w && IsHalfType(w->dtype())) w_widened_ = WidenToFloat(*w);  // once, not per run
  }

  // Y[n, m, o] = B[m] + sum_{c, k} W[m, c, k] * X[n, grp(m) * C/group + c, o * stride - pad_begin + k * dilation]
  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w = ctx.required_input(1);
    const Tensor* b = ctx.input(2);
    PTQ_ENFORCE(w.dtype() == x.dtype() && (!b || b->dtype() == x.dtype()), "inputs 'X', 'W' and 'B' must have ",
                "the same type, got ", DataTypeName(x.dtype()), ", ", DataTypeName(w.dtype()),
                b ? ", " + DataTypeName(b->dtype()) : std::string());
    switch (x.dtype()) {
      case DataType::kFloat: ctx.outputs[0] = ConvTyped<float>(Geometry(x, w), x, w, b, scratch_); break;
      case DataType::kDouble: ctx.outputs[0] = ConvTyped<double>(Geometry(x, w), x, w, b, scratch_); break;
      case DataType::kFloat16:
      case DataType::kBfloat16: {
        const Tensor w_float = w_widened_.empty_value() ? WidenToFloat(w) : w_widened_;
        const Tensor b_float = b ? WidenToFloat(*b) : Tensor();
        const Tensor y = ConvTyped<float>(Geometry(x, w), WidenToFloat(x), w_float, b ? &b_float : nullptr, scratch_);
        ctx.outputs[0] = NarrowFromFloat(y, x.dtype());
        break;
      }
      default:
        ThrowInputError("input 'X' has type ", DataTypeName(x.dtype()),
                        "; Conv supports float32, float64, float16 and bfloat16");
    }
  }

 private:
  // The geometry for these shapes, resolved once per distinct pair of shapes.
  const ConvGeometry& Geometry(const Tensor& x, const Tensor& w) {
    if (x.shape() != x_shape_ || w.shape() != w_shape_) {
      geometry_ = ResolveConvGeometry(attrs_, x.shape(), w.shape());
      x_shape_ = x.shape();
      w_shape_ = w.shape();
    }
    return geometry_;
  }

  ConvAttributes attrs_;
  Tensor w_widened_;  // constant float16/bfloat16 W as float32
  Shape x_shape_, w_shape_;
  ConvGeometry geometry_;
  ScratchBuffer scratch_;  // im2col matrix
};

}  // namespace

std::unique_ptr<Kernel> MakeConv(const KernelInit& init) { return MakeKernel<ConvKernel>(init); }

}  // namespace ptq
