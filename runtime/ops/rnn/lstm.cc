// LSTM kernel (float32). Weights in gate order i, o, f, c; peepholes P in order i, o, f; f, g, h the
// direction's activations (default Sigmoid, Tanh, Tanh). With S = X W^T + Wb + H R^T + Rb per gate:
//   i = f(clip(S_i + P_i ⊙ C))      f_t = f(clip(S_f + P_f ⊙ C))  (input_forget: f_t = 1 - i)
//   C' = f_t ⊙ C + i ⊙ g(clip(S_c))
//   o = f(clip(S_o + P_o ⊙ C'))     H' = o ⊙ h(C')
// over each batch entry's first sequence_lens[b] steps. Outputs Y (every H'), Y_h and Y_c (the last).
#include "runtime/ops/rnn/lstm.h"

#include <cstring>

#include "runtime/ops/rnn/rnn_common.h"

namespace ptq {
namespace {

class LSTM : public Kernel {
 public:
  explicit LSTM(const KernelInit& init)
      : cfg_(ReadRnnConfig(init, {"Sigmoid", "Tanh", "Tanh"})),
        input_forget_(init.attrs->GetInt("input_forget", 0) != 0) {}

  void Run(KernelContext& ctx) override {
    const RnnInputs in = ReadRnnInputs(ctx, cfg_, 4);
    const int64_t H = in.hidden, dirs = cfg_.num_directions;
    std::vector<float> c_last = ReadRnnState(ctx, 6, "initial_c", cfg_, in);
    std::vector<float> p(static_cast<size_t>(dirs * 3 * H), 0.0f);
    if (const Tensor* pt = ctx.input(7)) {
      PTQ_ENFORCE(pt->dtype() == DataType::kFloat && pt->shape() == (Shape{dirs, 3 * H}), "input 'P' must be float32 [",
                  dirs, ", ", 3 * H, "], got ", DataTypeName(pt->dtype()), " ", ShapeToString(pt->shape()));
      if (pt->size() > 0) std::memcpy(p.data(), pt->data<float>(), pt->nbytes());
    }
    std::vector<float> y(static_cast<size_t>(in.seq * dirs * in.batch * H), 0.0f);
    std::vector<float> h_last = in.h0;
    std::vector<float> s_x(static_cast<size_t>(4 * H)), s_h(static_cast<size_t>(4 * H));
    for (int64_t d = 0; d < dirs; ++d) {
      const bool backward = cfg_.reverse || d == 1;
      const float* w = in.w + d * 4 * H * in.input;
      const float* r = in.r + d * 4 * H * H;
      const float* wb = in.b.data() + d * 8 * H;
      const float* pi = p.data() + d * 3 * H;
      const float* po = pi + H;
      const float* pf = pi + 2 * H;
      const RnnActivation& f = cfg_.act(static_cast<int>(d), 0);
      const RnnActivation& g = cfg_.act(static_cast<int>(d), 1);
      const RnnActivation& hf = cfg_.act(static_cast<int>(d), 2);
      for (int64_t b = 0; b < in.batch; ++b) {
        float* h = h_last.data() + (d * in.batch + b) * H;
        float* c = c_last.data() + (d * in.batch + b) * H;
        const int64_t len = in.lens[static_cast<size_t>(b)];
        for (int64_t s = 0; s < len; ++s) {
          const int64_t t = backward ? len - 1 - s : s;
          RnnAffine(w, in.x.data() + (t * in.batch + b) * in.input, 4 * H, in.input, wb, s_x.data());
          RnnAffine(r, h, 4 * H, H, wb + 4 * H, s_h.data());
          float* yt = y.data() + ((t * dirs + d) * in.batch + b) * H;
          for (int64_t j = 0; j < H; ++j) {
            auto gate = [&](int k) {
              return s_x[static_cast<size_t>(k * H + j)] + s_h[static_cast<size_t>(k * H + j)];
            };
            const float i_g = f(cfg_.Clip(gate(0) + pi[j] * c[j]));
            const float f_g = input_forget_ ? 1.0f - i_g : f(cfg_.Clip(gate(2) + pf[j] * c[j]));
            const float c_new = f_g * c[j] + i_g * g(cfg_.Clip(gate(3)));
            const float o_g = f(cfg_.Clip(gate(1) + po[j] * c_new));
            c[j] = c_new;
            h[j] = yt[j] = o_g * hf(c_new);
          }
        }
      }
    }
    if (!ctx.outputs.empty()) ctx.outputs[0] = MakeRnnY(y, cfg_, in);
    if (ctx.outputs.size() > 1) ctx.outputs[1] = MakeRnnState(h_last, cfg_, in);
    if (ctx.outputs.size() > 2) ctx.outputs[2] = MakeRnnState(c_last, cfg_, in);
  }

 private:
  RnnConfig cfg_;
  bool input_forget_;
};

}  // namespace

std::unique_ptr<Kernel> MakeLSTM(const KernelInit& init) { return MakeKernel<LSTM>(init); }

}  // namespace ptq
