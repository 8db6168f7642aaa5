// RNN kernel (float32). Per direction and batch entry, over its first sequence_lens[b] steps (in
// reverse for the backward direction), with f the direction's activation (default Tanh):
//   H_t = f(clip(X_t W^T + Wb + H_{t-1} R^T + Rb))
// Y [seq, dirs, batch, hidden] holds every H_t (0 past the sequence's length), Y_h the last one.
#include "runtime/ops/rnn/rnn.h"

#include "runtime/ops/rnn/rnn_common.h"

namespace ptq {
namespace {

class RNN : public Kernel {
 public:
  explicit RNN(const KernelInit& init) : cfg_(ReadRnnConfig(init, {"Tanh"})) {}

  void Run(KernelContext& ctx) override {
    const RnnInputs in = ReadRnnInputs(ctx, cfg_, 1);
    const int64_t H = in.hidden, dirs = cfg_.num_directions;
    std::vector<float> y(static_cast<size_t>(in.seq * dirs * in.batch * H), 0.0f);
    std::vector<float> h_last = in.h0;
    std::vector<float> xw(static_cast<size_t>(H)), hr(static_cast<size_t>(H));
    for (int64_t d = 0; d < dirs; ++d) {
      const bool backward = cfg_.reverse || d == 1;
      const float* w = in.w + d * H * in.input;
      const float* r = in.r + d * H * H;
      const float* wb = in.b.data() + d * 2 * H;
      const RnnActivation& f = cfg_.act(static_cast<int>(d), 0);
      for (int64_t b = 0; b < in.batch; ++b) {
        float* h = h_last.data() + (d * in.batch + b) * H;
        const int64_t len = in.lens[static_cast<size_t>(b)];
        for (int64_t s = 0; s < len; ++s) {
          const int64_t t = backward ? len - 1 - s : s;
          RnnAffine(w, in.x.data() + (t * in.batch + b) * in.input, H, in.input, wb, xw.data());
          RnnAffine(r, h, H, H, wb + H, hr.data());
          float* yt = y.data() + ((t * dirs + d) * in.batch + b) * H;
          for (int64_t j = 0; j < H; ++j)
            h[j] = yt[j] = f(cfg_.Clip(xw[static_cast<size_t>(j)] + hr[static_cast<size_t>(j)]));
        }
      }
    }
    if (!ctx.outputs.empty()) ctx.outputs[0] = MakeRnnY(y, cfg_, in);
    if (ctx.outputs.size() > 1) ctx.outputs[1] = MakeRnnState(h_last, cfg_, in);
  }

 private:
  RnnConfig cfg_;
};

}  // namespace

std::unique_ptr<Kernel> MakeRNN(const KernelInit& init) { return MakeKernel<RNN>(init); }

}  // namespace ptq
