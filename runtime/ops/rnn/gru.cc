// GRU kernel (float32). Weights in gate order z, r, h; f, g the direction's activations (default
// Sigmoid, Tanh). Per direction and batch entry, over its first sequence_lens[b] steps:
//   z = f(clip(X W_z^T + Wb_z + H R_z^T + Rb_z))
//   r = f(clip(X W_r^T + Wb_r + H R_r^T + Rb_r))
//   h = g(clip(X W_h^T + Wb_h + (r ⊙ H) R_h^T + Rb_h))        linear_before_reset = 0
//   h = g(clip(X W_h^T + Wb_h + r ⊙ (H R_h^T + Rb_h)))        linear_before_reset != 0
//   H' = (1 - z) ⊙ h + z ⊙ H
// Y holds every H' (0 past the sequence's length), Y_h the last one.
#include "runtime/ops/rnn/gru.h"

#include "runtime/ops/rnn/rnn_common.h"

namespace ptq {
namespace {

class GRU : public Kernel {
 public:
  explicit GRU(const KernelInit& init)
      : cfg_(ReadRnnConfig(init, {"Sigmoid", "Tanh"})),
        linear_before_reset_(init.attrs->GetInt("linear_before_reset", 0) != 0) {}

  void Run(KernelContext& ctx) override {
    const RnnInputs in = ReadRnnInputs(ctx, cfg_, 3);
    const int64_t H = in.hidden, dirs = cfg_.num_directions;
    std::vector<float> y(static_cast<size_t>(in.seq * dirs * in.batch * H), 0.0f);
    std::vector<float> h_last = in.h0;
    std::vector<float> xw(static_cast<size_t>(3 * H)), hr(static_cast<size_t>(3 * H)), rh(static_cast<size_t>(H));
    std::vector<float> zr(static_cast<size_t>(2 * H));  // activated z, then r
    for (int64_t d = 0; d < dirs; ++d) {
      const bool backward = cfg_.reverse || d == 1;
      const float* w = in.w + d * 3 * H * in.input;
      const float* r = in.r + d * 3 * H * H;
      const float* wb = in.b.data() + d * 6 * H;
      const float* rb = wb + 3 * H;
      const RnnActivation& f = cfg_.act(static_cast<int>(d), 0);
      const RnnActivation& g = cfg_.act(static_cast<int>(d), 1);
      for (int64_t b = 0; b < in.batch; ++b) {
        float* h = h_last.data() + (d * in.batch + b) * H;
        const int64_t len = in.lens[static_cast<size_t>(b)];
        for (int64_t s = 0; s < len; ++s) {
          const int64_t t = backward ? len - 1 - s : s;
          RnnAffine(w, in.x.data() + (t * in.batch + b) * in.input, 3 * H, in.input, wb, xw.data());
          // z and r (and, with linear_before_reset, h's recurrent part) from H R^T + Rb.
          RnnAffine(r, h, linear_before_reset_ ? 3 * H : 2 * H, H, rb, hr.data());
          float* yt = y.data() + ((t * dirs + d) * in.batch + b) * H;
          for (int64_t j = 0; j < 2 * H; ++j) {
            zr[static_cast<size_t>(j)] = f(cfg_.Clip(xw[static_cast<size_t>(j)] + hr[static_cast<size_t>(j)]));
          }
          const float* z = zr.data();
          const float* rg = zr.data() + H;
          const float* xh = xw.data() + 2 * H;  // X W_h^T + Wb_h
          float* hh_r = hr.data() + 2 * H;      // H R_h^T + Rb_h, or (r ⊙ H) R_h^T + Rb_h
          if (!linear_before_reset_) {
            for (int64_t j = 0; j < H; ++j) rh[static_cast<size_t>(j)] = rg[j] * h[j];
            RnnAffine(r + 2 * H * H, rh.data(), H, H, rb + 2 * H, hh_r);
          }
          for (int64_t j = 0; j < H; ++j) {
            const float hh = g(cfg_.Clip(xh[j] + (linear_before_reset_ ? rg[j] * hh_r[j] : hh_r[j])));
            h[j] = yt[j] = (1.0f - z[j]) * hh + z[j] * h[j];
          }
        }
      }
    }
    if (!ctx.outputs.empty()) ctx.outputs[0] = MakeRnnY(y, cfg_, in);
    if (ctx.outputs.size() > 1) ctx.outputs[1] = MakeRnnState(h_last, cfg_, in);
  }

 private:
  RnnConfig cfg_;
  bool linear_before_reset_;
};

}  // namespace

std::unique_ptr<Kernel> MakeGRU(const KernelInit& init) { return MakeKernel<GRU>(init); }

}  // namespace ptq
