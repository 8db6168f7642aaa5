// DFT kernel (opset 17-19), float types. input [..., 1 | 2] (real, or real and imaginary parts in
// the last axis); along attribute axis (default 1; counted over the axes before the last) with
// n = dft_length (optional input 1, default the axis' size; the signal is zero-padded or truncated):
//   forward: Y[k] = sum_j x[j] e^(-2 pi i k j / n)     inverse = 1: Y[k] = 1/n sum_j x[j] e^(2 pi i k j / n)
// onesided = 1 keeps bins 0 .. n/2 (as ONNX's reference does, for the inverse too). Y [..., 2].
#include "runtime/ops/signal/dft.h"

#include <complex>
#include <vector>

#include "runtime/ops/signal/dft_math.h"
#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

class DFT : public Kernel {
 public:
  explicit DFT(const KernelInit& init)
      : axis_(init.attrs->GetInt("axis", 1)),
        inverse_(init.attrs->GetInt("inverse", 0) != 0),
        onesided_(init.attrs->GetInt("onesided", 0) != 0) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    PTQ_ENFORCE(x.rank() >= 2 && (x.dim(x.rank() - 1) == 1 || x.dim(x.rank() - 1) == 2),
                "input 'input' must be [..., 1] "
                "(real) or [..., 2] (complex), has shape ",
                ShapeToString(x.shape()));
    const int64_t axis = NormalizeAxis(axis_, x.rank() - 1);
    const int64_t comps = x.dim(x.rank() - 1);
    int64_t len = x.dim(axis);
    if (const Tensor* l = ctx.input(1)) {
      PTQ_ENFORCE((l->dtype() == DataType::kInt64 || l->dtype() == DataType::kInt32) && l->size() == 1,
                  "input 'dft_length' must be one int32 or int64 value");
      len = l->ToInt64Vector()[0];
    }
    PTQ_ENFORCE(len >= 1 && len <= (int64_t{1} << 20), "the DFT length is ", len, "; it must be in [1, 2^20]");
    const int64_t bins = onesided_ ? len / 2 + 1 : len;
    const int64_t outer = SizeOfRange(x.shape(), 0, axis), n = x.dim(axis);
    const int64_t inner = SizeOfRange(x.shape(), axis + 1, x.rank() - 1);
    Shape shape = x.shape();
    shape[static_cast<size_t>(axis)] = bins;
    shape.back() = 2;
    DispatchType<kFloatTypes>(x.dtype(), "DFT", "input", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      ComputeView<E> in(x);
      ComputeOutput<E> out(shape);
      std::vector<std::complex<double>> sig(static_cast<size_t>(n)), spec;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            const C* v = in.data() + ((o * n + j) * inner + i) * comps;
            sig[static_cast<size_t>(j)] = {static_cast<double>(v[0]), comps == 2 ? static_cast<double>(v[1]) : 0.0};
          }
          DiscreteFourier(sig, len, bins, inverse_, &spec);
          for (int64_t k = 0; k < bins; ++k) {
            C* y = out.data() + ((o * bins + k) * inner + i) * 2;
            y[0] = static_cast<C>(spec[static_cast<size_t>(k)].real());
            y[1] = static_cast<C>(spec[static_cast<size_t>(k)].imag());
          }
        }
      }
      ctx.outputs[0] = out.Finish();
    });
  }

 private:
  int64_t axis_;
  bool inverse_;
  bool onesided_;
};

}  // namespace

std::unique_ptr<Kernel> MakeDFT(const KernelInit& init) { return MakeKernel<DFT>(init); }

}  // namespace ptq
