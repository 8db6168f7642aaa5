// MelWeightMatrix kernel (opset 17), as ONNX's reference computes it. With M = num_mel_bins, S =
// dft_length / 2 + 1 spectrogram bins, mel(f) = 2595 log10(1 + f / 700) and its inverse:
//   edges p_i = floor((dft_length + 1) * mel^-1(mel(lower) + i * step) / sample_rate), i in [0, M + 2),
//   step = (mel(upper) - mel(lower)) / (M + 2)
//   filter m rises from p_m to p_{m+1} ((j - p_m) / (p_{m+1} - p_m), or 1 at p_{m+1} when they are
//   equal) and falls to p_{m+2} ((p_{m+2} - j) / (p_{m+2} - p_{m+1}))
// Y [S, M] of attribute output_datatype (default float32). Edges outside [0, S) are input errors.
#include "runtime/ops/signal/mel_weight_matrix.h"

#include <cmath>
#include <vector>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

double ScalarInput(const KernelContext& ctx, int i, const char* name) {
  const Tensor& t = ctx.required_input(i);
  PTQ_ENFORCE(t.size() == 1 && IsSupportedDataType(t.dtype()) && t.dtype() != DataType::kBool, "input '", name,
              "' must be one number, got ", DataTypeName(t.dtype()), " ", ShapeToString(t.shape()));
  return t.GetAsDouble(0);
}

class MelWeightMatrix : public Kernel {
 public:
  explicit MelWeightMatrix(const KernelInit& init)
      : dtype_(static_cast<DataType>(init.attrs->GetInt("output_datatype", static_cast<int64_t>(DataType::kFloat)))) {}

  void Run(KernelContext& ctx) override {
    const double mels = ScalarInput(ctx, 0, "num_mel_bins"), dft = ScalarInput(ctx, 1, "dft_length");
    const double rate = ScalarInput(ctx, 2, "sample_rate");
    const double lower = ScalarInput(ctx, 3, "lower_edge_hertz"), upper = ScalarInput(ctx, 4, "upper_edge_hertz");
    PTQ_ENFORCE(mels >= 1 && mels <= (1 << 20) && dft >= 1 && dft <= (1 << 24) && rate > 0 && std::isfinite(rate) &&
                    lower >= 0 && upper >= lower && std::isfinite(upper),
                "inputs num_mel_bins ", mels, ", dft_length ", dft, ", sample_rate ", rate, ", lower_edge_hertz ",
                lower, ", upper_edge_hertz ", upper, " are out of range");
    const int64_t m = static_cast<int64_t>(mels), bins = static_cast<int64_t>(dft) / 2 + 1;
    PTQ_ENFORCE(bins * m <= MaxTensorBytes() / 8, "a ", bins, " x ", m, " matrix exceeds the tensor size limit");
    auto mel = [](double f) { return 2595.0 * std::log10(1.0 + f / 700.0); };
    const double lo = mel(lower), step = (mel(upper) - lo) / static_cast<double>(m + 2);
    std::vector<int64_t> p(static_cast<size_t>(m + 2));
    for (int64_t i = 0; i < m + 2; ++i) {
      const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + lo) / 2595.0) - 1.0);
      const double edge = std::floor((std::floor(dft) + 1) * hz / rate);
      PTQ_ENFORCE(edge >= 0 && edge < static_cast<double>(bins), "mel edge ", i, " falls on DFT bin ", edge,
                  ", outside the ", bins, " bins (is upper_edge_hertz above sample_rate / 2?)");
      p[static_cast<size_t>(i)] = static_cast<int64_t>(edge);
    }
    std::vector<double> w(static_cast<size_t>(bins * m), 0.0);
    for (int64_t i = 0; i < m; ++i) {
      const int64_t left = p[static_cast<size_t>(i)], centre = p[static_cast<size_t>(i + 1)],
                    right = p[static_cast<size_t>(i + 2)];
      if (centre == left) {
        w[static_cast<size_t>(centre * m + i)] = 1;
      } else {
        for (int64_t j = left; j <= centre; ++j) {
          w[static_cast<size_t>(j * m + i)] = static_cast<double>(j - left) / static_cast<double>(centre - left);
        }
      }
      for (int64_t j = centre; j < right; ++j) {
        w[static_cast<size_t>(j * m + i)] = static_cast<double>(right - j) / static_cast<double>(right - centre);
      }
    }
    DispatchType<kNumericTypes>(dtype_, "MelWeightMatrix", "output_datatype", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      Tensor y = Tensor::Uninitialized(E::kType, {bins, m});
      auto* out = y.data<typename E::Storage>();
      for (size_t i = 0; i < w.size(); ++i) {
        if constexpr (std::is_floating_point<C>::value)
          out[i] = E::Store(static_cast<C>(w[i]));
        else
          out[i] = SaturateCast<C>(w[i]);
      }
      ctx.outputs[0] = std::move(y);
    });
  }

 private:
  DataType dtype_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMelWeightMatrix(const KernelInit& init) { return MakeKernel<MelWeightMatrix>(init); }

}  // namespace ptq
