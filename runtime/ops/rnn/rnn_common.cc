// Attribute parsing, input checks and layout conversion shared by the recurrent ops.
#include "runtime/ops/rnn/rnn_common.h"

#include <cmath>
#include <cstring>

namespace ptq {

float RnnActivation::operator()(float x) const {
  switch (kind) {
    case Kind::kRelu:
      return x > 0 ? x : 0.0f;
    case Kind::kTanh:
      return std::tanh(x);
    case Kind::kSigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case Kind::kAffine:
      return alpha * x + beta;
    case Kind::kLeakyRelu:
      return x < 0 ? alpha * x : x;
    case Kind::kThresholdedRelu:
      return x > alpha ? x : 0.0f;
    case Kind::kScaledTanh:
      return alpha * std::tanh(beta * x);
    case Kind::kHardSigmoid:
      return std::fmax(0.0f, std::fmin(1.0f, alpha * x + beta));
    case Kind::kElu:
      return x < 0 ? alpha * (std::exp(x) - 1.0f) : x;
    case Kind::kSoftsign:
      return x / (1.0f + std::fabs(x));
    case Kind::kSoftplus:
      return std::log1p(std::exp(x));
  }
  return x;
}

namespace {

// The activation named `name` (case-insensitive, as ONNX Runtime accepts); alpha/beta are taken from
// the lists in order for the functions that have them, else their defaults.
RnnActivation ParseActivation(std::string name, const std::vector<float>& alphas, size_t* ai,
                              const std::vector<float>& betas, size_t* bi) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  using K = RnnActivation::Kind;
  struct Entry {
    const char* name;
    K kind;
    int params;  // 0, 1 (alpha) or 2 (alpha, beta)
    float alpha, beta;
  };
  static const Entry kTable[] = {
      {"relu", K::kRelu, 0, 0, 0},
      {"tanh", K::kTanh, 0, 0, 0},
      {"sigmoid", K::kSigmoid, 0, 0, 0},
      {"affine", K::kAffine, 2, 1.0f, 0.0f},
      {"leakyrelu", K::kLeakyRelu, 1, 0.01f, 0},
      {"thresholdedrelu", K::kThresholdedRelu, 1, 1.0f, 0},
      {"scaledtanh", K::kScaledTanh, 2, 1.0f, 1.0f},
      {"hardsigmoid", K::kHardSigmoid, 2, 0.2f, 0.5f},
      {"elu", K::kElu, 1, 1.0f, 0},
      {"softsign", K::kSoftsign, 0, 0, 0},
      {"softplus", K::kSoftplus, 0, 0, 0},
  };
  for (const Entry& e : kTable) {
    if (name != e.name) continue;
    RnnActivation a{e.kind, e.alpha, e.beta};
    if (e.params >= 1 && *ai < alphas.size()) a.alpha = alphas[(*ai)++];
    if (e.params >= 2 && *bi < betas.size()) a.beta = betas[(*bi)++];
    return a;
  }
  ThrowInputError("attribute 'activations' names unknown function '", name, "'");
}

void Transpose01(const float* src, int64_t d0, int64_t d1, int64_t inner, float* dst) {
  for (int64_t i = 0; i < d0; ++i) {
    for (int64_t j = 0; j < d1; ++j) {
      std::memcpy(dst + (j * d0 + i) * inner, src + (i * d1 + j) * inner, static_cast<size_t>(inner) * sizeof(float));
    }
  }
}

const Tensor* FloatInput(const KernelContext& ctx, int i, const char* name, const Shape& shape) {
  const Tensor* t = ctx.input(i);
  if (!t) return nullptr;
  PTQ_ENFORCE(t->dtype() == DataType::kFloat, "input '", name, "' must be float32 (ptq's recurrent kernels), got ",
              DataTypeName(t->dtype()));
  PTQ_ENFORCE(t->shape() == shape, "input '", name, "' has shape ", ShapeToString(t->shape()), ", expected ",
              ShapeToString(shape));
  return t;
}

}  // namespace

RnnConfig ReadRnnConfig(const KernelInit& init, const std::vector<std::string>& defaults) {
  const Attributes& a = *init.attrs;
  RnnConfig cfg;
  const std::string direction = a.GetString("direction", "forward");
  PTQ_ENFORCE(direction == "forward" || direction == "reverse" || direction == "bidirectional",
              "attribute 'direction' is '", direction, "'; expected forward, reverse or bidirectional");
  cfg.num_directions = direction == "bidirectional" ? 2 : 1;
  cfg.reverse = direction == "reverse";
  const int64_t layout = a.GetInt("layout", 0);
  PTQ_ENFORCE(layout == 0 || layout == 1, "attribute 'layout' is ", layout, "; expected 0 or 1");
  cfg.batch_major = layout == 1;
  cfg.clip = a.GetFloat("clip", 0.0f);
  PTQ_ENFORCE(!(cfg.clip < 0), "attribute 'clip' is ", cfg.clip, "; it must be positive");
  cfg.hidden_size = a.GetInt("hidden_size", -1);
  PTQ_ENFORCE(!a.Has("hidden_size") || cfg.hidden_size >= 1, "attribute 'hidden_size' is ", cfg.hidden_size);
  cfg.per_direction = static_cast<int>(defaults.size());
  std::vector<std::string> names = a.GetStrings("activations");
  if (!a.Has("activations")) {
    for (int d = 0; d < cfg.num_directions; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  }
  PTQ_ENFORCE(names.size() == static_cast<size_t>(cfg.num_directions * cfg.per_direction),
              "attribute 'activations' has ", names.size(), " functions; ", direction, " needs ",
              cfg.num_directions * cfg.per_direction);
  const std::vector<float> alphas = a.GetFloats("activation_alpha"), betas = a.GetFloats("activation_beta");
  size_t ai = 0, bi = 0;
  for (const std::string& n : names) cfg.activations.push_back(ParseActivation(n, alphas, &ai, betas, &bi));
  return cfg;
}

RnnInputs ReadRnnInputs(const KernelContext& ctx, const RnnConfig& cfg, int gates) {
  RnnInputs in;
  const Tensor& x = ctx.required_input(0);
  ctx.required_input(1);
  const Tensor& r = ctx.required_input(2);
  PTQ_ENFORCE(x.dtype() == DataType::kFloat, "input 'X' must be float32 (ptq's recurrent kernels), got ",
              DataTypeName(x.dtype()));
  PTQ_ENFORCE(x.rank() == 3, "input 'X' must have rank 3, has shape ", ShapeToString(x.shape()));
  in.seq = x.dim(cfg.batch_major ? 1 : 0);
  in.batch = x.dim(cfg.batch_major ? 0 : 1);
  in.input = x.dim(2);
  PTQ_ENFORCE(r.rank() == 3, "input 'R' must have rank 3, has shape ", ShapeToString(r.shape()));
  in.hidden = r.dim(2);
  PTQ_ENFORCE(cfg.hidden_size < 0 || cfg.hidden_size == in.hidden, "attribute 'hidden_size' is ", cfg.hidden_size,
              " but input 'R' is ", ShapeToString(r.shape()));
  const int64_t dirs = cfg.num_directions, gh = ShapeSize({gates, in.hidden});
  // The outputs' sizes (products checked for overflow), bounded before any buffer is sized from them.
  PTQ_ENFORCE(ShapeSize({in.seq, dirs, in.batch, in.hidden}) <= MaxTensorBytes() / 4 &&
                  ShapeSize({dirs, in.batch, in.hidden}) <= MaxTensorBytes() / 4 &&
                  ShapeSize({dirs, 2, gh}) <= MaxTensorBytes() / 4,
              "the outputs for X ", ShapeToString(x.shape()), " and R ", ShapeToString(r.shape()),
              " exceed the tensor size limit");
  in.w = FloatInput(ctx, 1, "W", {dirs, gh, in.input})->data<float>();
  in.r = FloatInput(ctx, 2, "R", {dirs, gh, in.hidden})->data<float>();
  in.x.resize(static_cast<size_t>(x.size()));
  if (cfg.batch_major) {
    Transpose01(x.data<float>(), in.batch, in.seq, in.input, in.x.data());
  } else if (x.size() > 0) {
    std::memcpy(in.x.data(), x.data<float>(), x.nbytes());
  }
  in.b.assign(static_cast<size_t>(dirs * 2 * gh), 0.0f);
  if (const Tensor* b = FloatInput(ctx, 3, "B", {dirs, 2 * gh}))
    std::memcpy(in.b.data(), b->data<float>(), b->nbytes());
  in.lens.assign(static_cast<size_t>(in.batch), in.seq);
  if (const Tensor* lens = ctx.input(4)) {
    PTQ_ENFORCE(
        (lens->dtype() == DataType::kInt32 || lens->dtype() == DataType::kInt64) && lens->shape() == Shape{in.batch},
        "input 'sequence_lens' must be int32 of shape [", in.batch, "], got ", DataTypeName(lens->dtype()), " ",
        ShapeToString(lens->shape()));
    in.lens = lens->ToInt64Vector();
    for (int64_t b = 0; b < in.batch; ++b) {
      const int64_t len = in.lens[static_cast<size_t>(b)];
      PTQ_ENFORCE(len >= 0 && len <= in.seq, "sequence_lens[", b, "] is ", len, ", outside [0, ", in.seq, "]");
    }
  }
  in.h0 = ReadRnnState(ctx, 5, "initial_h", cfg, in);
  return in;
}

std::vector<float> ReadRnnState(const KernelContext& ctx, int index, const char* name, const RnnConfig& cfg,
                                const RnnInputs& in) {
  const int64_t dirs = cfg.num_directions;
  std::vector<float> s(static_cast<size_t>(dirs * in.batch * in.hidden), 0.0f);
  const Shape shape = cfg.batch_major ? Shape{in.batch, dirs, in.hidden} : Shape{dirs, in.batch, in.hidden};
  if (const Tensor* t = FloatInput(ctx, index, name, shape)) {
    if (cfg.batch_major) {
      Transpose01(t->data<float>(), in.batch, dirs, in.hidden, s.data());
    } else if (t->size() > 0) {
      std::memcpy(s.data(), t->data<float>(), t->nbytes());
    }
  }
  return s;
}

void RnnAffine(const float* w, const float* v, int64_t rows, int64_t cols, const float* bias, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    float acc = bias ? bias[r] : 0.0f;
    const float* wr = w + r * cols;
    for (int64_t c = 0; c < cols; ++c) acc += wr[c] * v[c];
    out[r] = acc;
  }
}

Tensor MakeRnnY(const std::vector<float>& y, const RnnConfig& cfg, const RnnInputs& in) {
  const int64_t dirs = cfg.num_directions;
  if (!cfg.batch_major) return Tensor::FromVector<float>({in.seq, dirs, in.batch, in.hidden}, y);
  Tensor out = Tensor::Uninitialized(DataType::kFloat, {in.batch, in.seq, dirs, in.hidden});
  float* o = out.data<float>();
  for (int64_t t = 0; t < in.seq; ++t) {
    for (int64_t d = 0; d < dirs; ++d) {
      for (int64_t b = 0; b < in.batch; ++b) {
        std::memcpy(o + ((b * in.seq + t) * dirs + d) * in.hidden,
                    y.data() + ((t * dirs + d) * in.batch + b) * in.hidden,
                    static_cast<size_t>(in.hidden) * sizeof(float));
      }
    }
  }
  return out;
}

Tensor MakeRnnState(const std::vector<float>& s, const RnnConfig& cfg, const RnnInputs& in) {
  const int64_t dirs = cfg.num_directions;
  if (!cfg.batch_major) return Tensor::FromVector<float>({dirs, in.batch, in.hidden}, s);
  Tensor out = Tensor::Uninitialized(DataType::kFloat, {in.batch, dirs, in.hidden});
  Transpose01(s.data(), dirs, in.batch, in.hidden, out.data<float>());
  return out;
}

}  // namespace ptq
