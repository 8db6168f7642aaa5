// What RNN, GRU and LSTM share: their attributes (directions, layout, clip, activation functions),
// validated inputs in one [seq, batch, ...] layout, and the outputs in the node's layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/kernel.h"

namespace ptq {

// One activation function of the ONNX recurrent ops, with its alpha/beta.
struct RnnActivation {
  enum class Kind {
    kRelu,
    kTanh,
    kSigmoid,
    kAffine,
    kLeakyRelu,
    kThresholdedRelu,
    kScaledTanh,
    kHardSigmoid,
    kElu,
    kSoftsign,
    kSoftplus
  };
  Kind kind = Kind::kTanh;
  float alpha = 0.0f;
  float beta = 0.0f;
  float operator()(float x) const;
};

struct RnnConfig {
  int64_t hidden_size = -1;  // -1: taken from R
  int num_directions = 1;
  bool reverse = false;  // direction "reverse" (one direction, run backwards)
  bool batch_major =
      false;          // layout = 1: X [batch, seq, input], Y [batch, seq, dirs, hidden], states [batch, dirs, hidden]
  float clip = 0.0f;  // > 0: gate pre-activations clamped to [-clip, clip]
  int per_direction = 1;                   // activation functions per direction (RNN 1, GRU 2, LSTM 3)
  std::vector<RnnActivation> activations;  // num_directions * per_direction

  const RnnActivation& act(int direction, int i) const {
    return activations[static_cast<size_t>(direction * per_direction + i)];
  }
  float Clip(float x) const { return clip > 0 ? (x < -clip ? -clip : (x > clip ? clip : x)) : x; }
};

// Reads direction, layout, clip, hidden_size, activations (default `defaults`, repeated per direction),
// activation_alpha/beta. Throws an input error naming what is wrong.
RnnConfig ReadRnnConfig(const KernelInit& init, const std::vector<std::string>& defaults);

// The float32 inputs X, W, R, B, sequence_lens, initial_h checked against each other; `gates` is the
// number of weight blocks per direction (RNN 1, GRU 3, LSTM 4).
struct RnnInputs {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  std::vector<float> x;       // [seq, batch, input]
  const float* w = nullptr;   // [dirs, gates * hidden, input]
  const float* r = nullptr;   // [dirs, gates * hidden, hidden]
  std::vector<float> b;       // [dirs, 2 * gates * hidden] (zeros when omitted): Wb then Rb
  std::vector<int64_t> lens;  // [batch] (seq when omitted)
  std::vector<float> h0;      // [dirs, batch, hidden] (zeros when omitted)
};
RnnInputs ReadRnnInputs(const KernelContext& ctx, const RnnConfig& cfg, int gates);

// A [dirs, batch, hidden] state input (initial_h = 5, initial_c = 6) in the node's layout, or zeros.
std::vector<float> ReadRnnState(const KernelContext& ctx, int index, const char* name, const RnnConfig& cfg,
                                const RnnInputs& in);

// out[r] = bias[r] + sum_c w[r * cols + c] * v[c] for r < rows (bias may be nullptr).
void RnnAffine(const float* w, const float* v, int64_t rows, int64_t cols, const float* bias, float* out);

// Y from y [seq, dirs, batch, hidden] and a state from s [dirs, batch, hidden], in the node's layout.
Tensor MakeRnnY(const std::vector<float>& y, const RnnConfig& cfg, const RnnInputs& in);
Tensor MakeRnnState(const std::vector<float>& s, const RnnConfig& cfg, const RnnInputs& in);

}  // namespace ptq
