// ConvTranspose: per image and group, col = W_g^T * X_g by GEMM, then col2im scatter-adds col into Y (threads
// share the output channels); a float32 kernel equal to its stride by ConvTransposeTiling.
#include "runtime/ops/nn/conv_transpose.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/conv/conv_transpose_tiling.h"
#include "runtime/ops/math/float_compute.h"
#include "runtime/kernels/conv/im2col.h"
#include "runtime/kernels/gemm_f32/row_major_gemm.h"
#include "runtime/ops/tensor/scratch_buffer.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

struct TransposeAttributes {
  ConvAttributes conv;
  std::vector<int64_t> output_padding;
  std::vector<int64_t> output_shape;
};

// Y[n, grp * M/g + m, i * stride - pad_begin + k * dilation] += X[n, grp * C/g + c, i] * W[grp * C/g + c, m, k],
// Y starting at B. Per image and group: col [M/g * K, I] = W_g^T * X_g, W_g stored [C/g, M/g * K].
template <class T>
Tensor ConvTransposeTyped(const TransposeAttributes& attrs, const Tensor& x, const Tensor& w, const Tensor* b,
                          ScratchBuffer& scratch) {
  const Shape& xs = x.shape();
  const Shape& ws = w.shape();
  PTQ_ENFORCE(xs.size() >= 3, "input 'X' has shape ", ShapeToString(xs),
              "; expected [N, C, D1, ...] with at least one spatial dimension");
  PTQ_ENFORCE(ws.size() == xs.size(), "input 'W' has shape ", ShapeToString(ws), "; expected rank ", xs.size(),
              " like input 'X' ", ShapeToString(xs));
  const int64_t group = attrs.conv.group;
  const int64_t batch = xs[0], channels = xs[1];
  PTQ_ENFORCE(ws[0] == channels && channels % group == 0, "input 'W' ", ShapeToString(ws), " must have ", channels,
              " (X's channels) as its first dimension, divisible by group ", group);
  const int64_t mg = ws[1], cg = channels / group, out_channels = mg * group;
  const std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  PTQ_ENFORCE(attrs.conv.kernel_shape.empty() || attrs.conv.kernel_shape == kernel, "attribute 'kernel_shape' ",
              ShapeToString(attrs.conv.kernel_shape), " does not match the spatial dimensions of input 'W' ",
              ShapeToString(ws));
  PTQ_ENFORCE(!b || b->size() == out_channels, "input 'B' has shape ", ShapeToString(b ? b->shape() : Shape{}),
              "; expected [", out_channels, "] (one bias per output channel)");
  const SlidingWindow win = ResolveTransposeWindow(attrs.conv, std::vector<int64_t>(xs.begin() + 2, xs.end()), kernel,
                                                   attrs.output_padding, attrs.output_shape);
  Shape ys{batch, out_channels};
  ys.insert(ys.end(), win.output.begin(), win.output.end());
  const int64_t in_size = Product(win.input), out_size = Product(win.output), kernel_size = Product(kernel);
  const T* px = x.data<T>();
  const T* pw = w.data<T>();
  if constexpr (std::is_same<T, float>::value) {
    // A kernel equal to its stride (2-D, no padding): each output takes one product, stored as computed.
    if (ConvTransposeTiles(win) && batch > 0 && in_size > 0 && cg > 0 && mg > 0 && GetCpuFeatures().avx2_fma) {
      Tensor y = Tensor::Uninitialized(x.dtype(), ys);
      ConvTransposeTiling(px, pw, b ? b->data<float>() : nullptr, batch, group, cg, mg, win, y.data<float>());
      return y;
    }
  }
  Tensor y(x.dtype(), ys);
  T* py = y.data<T>();
  for (int64_t i = 0; i < batch * out_channels; ++i) {
    const T bias = b ? b->data<T>()[i % out_channels] : T(0);
    std::fill(py + i * out_size, py + (i + 1) * out_size, bias);
  }
  T* col = scratch.Get<T>(static_cast<size_t>(mg * kernel_size * in_size));
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t grp = 0; grp < group; ++grp) {
      const T* xg = px + (n * channels + grp * cg) * in_size;
      const T* wg = pw + grp * cg * mg * kernel_size;
      RowMajorGemm<T>(true, false, mg * kernel_size, in_size, cg, T(1), wg, mg * kernel_size, xg, in_size, T(0), col,
                      in_size);
      // Threads share the output channels (each channel's col2im rows in their order: the same bits).
      const int threads = mg < 2 ? 1 : ThreadsForWork(mg * out_size, int64_t{1} << 16);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
      for (int64_t m = 0; m < mg; ++m) {
        Col2ImAdd(col + m * kernel_size * in_size, 1, win, py + (n * out_channels + grp * mg + m) * out_size);
      }
    }
  }
  return y;
}

class ConvTransposeKernel final : public Kernel {
 public:
  explicit ConvTransposeKernel(const KernelInit& init) {
    attrs_.conv = ReadConvAttributes(*init.attrs);
    attrs_.output_padding = init.attrs->GetInts("output_padding");
    attrs_.output_shape = init.attrs->GetInts("output_shape");
    const Tensor* w = init.const_inputs.size() > 1 ? init.const_inputs[1] : nullptr;
    if (w && IsHalfType(w->dtype())) w_widened_ = WidenToFloat(*w);  // once, not per run
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w = ctx.required_input(1);
    const Tensor* b = ctx.input(2);
    PTQ_ENFORCE(w.dtype() == x.dtype() && (!b || b->dtype() == x.dtype()), "inputs 'X', 'W' and 'B' must have ",
                "the same type, got ", DataTypeName(x.dtype()), ", ", DataTypeName(w.dtype()),
                b ? ", " + DataTypeName(b->dtype()) : std::string());
    switch (x.dtype()) {
      case DataType::kFloat: ctx.outputs[0] = ConvTransposeTyped<float>(attrs_, x, w, b, scratch_); break;
      case DataType::kDouble: ctx.outputs[0] = ConvTransposeTyped<double>(attrs_, x, w, b, scratch_); break;
      case DataType::kFloat16:
      case DataType::kBfloat16: {
        const Tensor w_float = w_widened_.empty_value() ? WidenToFloat(w) : w_widened_;
        const Tensor b_float = b ? WidenToFloat(*b) : Tensor();
        const Tensor y = ConvTransposeTyped<float>(attrs_, WidenToFloat(x), w_float, b ? &b_float : nullptr, scratch_);
        ctx.outputs[0] = NarrowFromFloat(y, x.dtype());
        break;
      }
      default:
        ThrowInputError("input 'X' has type ", DataTypeName(x.dtype()),
                        "; ConvTranspose supports float32, float64, float16 and bfloat16");
    }
  }

 private:
  TransposeAttributes attrs_;
  Tensor w_widened_;       // constant float16/bfloat16 W as float32
  ScratchBuffer scratch_;  // W_g^T * X_g before col2im
};

}  // namespace

std::unique_ptr<Kernel> MakeConvTranspose(const KernelInit& init) { return MakeKernel<ConvTransposeKernel>(init); }

}  // namespace ptq
