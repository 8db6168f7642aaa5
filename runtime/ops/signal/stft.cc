// STFT kernel (opset 17), float types. signal [batch, length, 1 | 2], frame_step (one integer >= 1),
// window [L] (optional, default ones), frame_length (optional, default L, or the signal length
// without a window; must equal L when both are given). With F = 1 + (length - frame_length) / frame_step
// frames (at least one) and bins = frame_length / 2 + 1 (onesided = 1, the default) or frame_length:
//   Y[b, f, k] = sum_{j < frame_length} w[j] x[b, f * frame_step + j] e^(-2 pi i k j / frame_length)
// Y [batch, F, bins, 2].
#include "runtime/ops/signal/stft.h"

#include <complex>
#include <vector>

#include "runtime/ops/signal/dft_math.h"
#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"

namespace ptq {
namespace {

int64_t OneInteger(const Tensor& t, const char* name) {
  PTQ_ENFORCE((t.dtype() == DataType::kInt64 || t.dtype() == DataType::kInt32) && t.size() == 1, "input '", name,
              "' must be one int32 or int64 value, got ", DataTypeName(t.dtype()), " ", ShapeToString(t.shape()));
  return t.ToInt64Vector()[0];
}

class STFT : public Kernel {
 public:
  explicit STFT(const KernelInit& init) : onesided_(init.attrs->GetInt("onesided", 1) != 0) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    PTQ_ENFORCE(x.rank() == 3 && (x.dim(2) == 1 || x.dim(2) == 2),
                "input 'signal' must be [batch, length, 1 | 2], has "
                "shape ",
                ShapeToString(x.shape()));
    const int64_t step = OneInteger(ctx.required_input(1), "frame_step");
    const Tensor* window = ctx.input(2);
    const int64_t length = x.dim(1), comps = x.dim(2);
    int64_t frame = window ? window->size() : length;
    if (const Tensor* fl = ctx.input(3)) frame = OneInteger(*fl, "frame_length");
    PTQ_ENFORCE(!window || (window->rank() == 1 && window->size() == frame && window->dtype() == x.dtype()),
                "input 'window' must be 1-D of frame_length ", frame, " values of the signal's type");
    PTQ_ENFORCE(step >= 1 && frame >= 1 && frame <= length && frame <= (int64_t{1} << 20), "frame_step ", step,
                " and frame_length ", frame, " do not fit a signal of length ", length);
    const int64_t frames = 1 + (length - frame) / step;
    const int64_t bins = onesided_ ? frame / 2 + 1 : frame;
    DispatchType<kFloatTypes>(x.dtype(), "STFT", "signal", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      ComputeView<E> in(x);
      std::vector<double> w(static_cast<size_t>(frame), 1.0);
      if (window) {
        ComputeView<E> wv(*window);
        for (int64_t j = 0; j < frame; ++j) w[static_cast<size_t>(j)] = static_cast<double>(wv.data()[j]);
      }
      ComputeOutput<E> out({x.dim(0), frames, bins, 2});
      std::vector<std::complex<double>> sig(static_cast<size_t>(frame)), spec;
      for (int64_t b = 0; b < x.dim(0); ++b) {
        for (int64_t f = 0; f < frames; ++f) {
          for (int64_t j = 0; j < frame; ++j) {
            const C* v = in.data() + (b * length + f * step + j) * comps;
            const double wj = w[static_cast<size_t>(j)];
            sig[static_cast<size_t>(j)] = {wj * static_cast<double>(v[0]),
                                           comps == 2 ? wj * static_cast<double>(v[1]) : 0.0};
          }
          DiscreteFourier(sig, frame, bins, false, &spec);
          C* y = out.data() + (b * frames + f) * bins * 2;
          for (int64_t k = 0; k < bins; ++k) {
            y[2 * k] = static_cast<C>(spec[static_cast<size_t>(k)].real());
            y[2 * k + 1] = static_cast<C>(spec[static_cast<size_t>(k)].imag());
          }
        }
      }
      ctx.outputs[0] = out.Finish();
    });
  }

 private:
  bool onesided_;
};

}  // namespace

std::unique_ptr<Kernel> MakeSTFT(const KernelInit& init) { return MakeKernel<STFT>(init); }

}  // namespace ptq
