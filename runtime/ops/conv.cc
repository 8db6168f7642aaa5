// Conv: depthwise convs by a direct loop, 1x1 convs as one GEMM on the input, the rest as im2col + GEMM.
#include "runtime/ops/conv.h"

#include <algorithm>
#include <vector>

#include "runtime/ops/conv_geometry.h"
#include "runtime/ops/depthwise_conv.h"
#include "runtime/ops/float_compute.h"
#include "runtime/ops/im2col.h"
#include "runtime/ops/row_major_gemm.h"

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

// Y = conv(X, W) + B, per image and group: Y_g [M/g, O] = W_g [M/g, C/g * K] * col_g [C/g * K, O].
template <class T>
Tensor ConvTyped(const ConvAttributes& attrs, const Tensor& x, const Tensor& w, const Tensor* b) {
  const ConvGeometry g = ResolveConvGeometry(attrs, x.shape(), w.shape());
  PTQ_ENFORCE(!b || b->size() == g.out_channels, "input 'B' has shape ", ShapeToString(b ? b->shape() : Shape{}),
              "; expected [", g.out_channels, "] (one bias per output channel)");
  Tensor y(x.dtype(), g.output_shape());
  const int64_t in_size = Product(g.window.input);
  const int64_t out_size = Product(g.window.output);
  const int64_t kernel_size = Product(g.window.kernel);
  const int64_t cg = g.in_channels_per_group();
  const int64_t mg = g.out_channels_per_group();
  const T* px = x.data<T>();
  const T* pw = w.data<T>();
  T* py = y.data<T>();
  for (int64_t i = 0; i < g.batch * g.out_channels; ++i) {
    const T bias = b ? b->data<T>()[i % g.out_channels] : T(0);
    std::fill(py + i * out_size, py + (i + 1) * out_size, bias);
  }
  if (g.group > 1 && cg == 1 && g.window.rank() <= 2) {
    for (int64_t n = 0; n < g.batch; ++n) {
      DepthwiseConv(px + n * g.in_channels * in_size, pw, g, py + n * g.out_channels * out_size);
    }
    return y;
  }
  const bool pointwise = IsPointwise(g.window);
  std::vector<T> col(pointwise ? 0 : static_cast<size_t>(cg * kernel_size * out_size));
  const T beta = b ? T(1) : T(0);
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      const T* xg = px + (n * g.in_channels + grp * cg) * in_size;
      if (!pointwise) Im2Col(xg, cg, g.window, col.data());
      const T* rhs = pointwise ? xg : col.data();
      T* yg = py + (n * g.out_channels + grp * mg) * out_size;
      RowMajorGemm<T>(false, false, mg, out_size, cg * kernel_size, T(1), pw + grp * mg * cg * kernel_size,
                      cg * kernel_size, rhs, out_size, beta, yg, out_size);
    }
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
      case DataType::kFloat: ctx.outputs[0] = ConvTyped<float>(attrs_, x, w, b); break;
      case DataType::kDouble: ctx.outputs[0] = ConvTyped<double>(attrs_, x, w, b); break;
      case DataType::kFloat16:
      case DataType::kBfloat16: {
        const Tensor w_float = w_widened_.empty_value() ? WidenToFloat(w) : w_widened_;
        const Tensor b_float = b ? WidenToFloat(*b) : Tensor();
        const Tensor y = ConvTyped<float>(attrs_, WidenToFloat(x), w_float, b ? &b_float : nullptr);
        ctx.outputs[0] = NarrowFromFloat(y, x.dtype());
        break;
      }
      default:
        ThrowInputError("input 'X' has type ", DataTypeName(x.dtype()),
                        "; Conv supports float32, float64, float16 and bfloat16");
    }
  }

 private:
  ConvAttributes attrs_;
  Tensor w_widened_;  // constant float16/bfloat16 W as float32
};

}  // namespace

std::unique_ptr<Kernel> MakeConv(const KernelInit& init) { return MakeKernel<ConvKernel>(init); }

}  // namespace ptq
