// BatchNormalization kernel (opsets 1-15), inference only: training mode is refused with an error; the session's
// fused form adds a per-channel constant before, clamps and quantizes after (runtime/batch_norm_fusion.cc).
#include "runtime/ops/nn/batch_normalization.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "runtime/channels_last_layout.h"
#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/ops/nn/conv_activation.h"
#include "runtime/ops/quantization/quantize_linear.h"
#include "runtime/shape_util.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

class BatchNormalization final : public Kernel {
 public:
  // Training mode is: opset >= 14, attribute training_mode = 1; opsets 1-13, more than one output
  // (the rule opset 7 states; for opsets 1-6 it agrees with ONNX's version converter, which drops
  // is_test). Before opset 9, spatial = 0 gives every element of X's shape[1:] its own statistics
  // (the parameters then have shape[1:]'s element count).
  explicit BatchNormalization(const KernelInit& init)
      : epsilon_(init.attrs->GetFloat("epsilon", 1e-5f)),
        spatial_(init.opset < 9 ? init.attrs->GetInt("spatial", 1) != 0 : true),
        channels_last_(init.attrs->GetInt(kChannelsLast, 0) != 0),
        act_(ReadConvActivation(*init.attrs, "BatchNormalization")) {
    if (init.opset >= 14) {
      PTQ_ENFORCE(init.attrs->GetInt("training_mode", 0) == 0,
                  "BatchNormalization: attribute 'training_mode' is 1; ptq runs inference only and does not "
                  "support training-mode batch normalization");
    } else {
      PTQ_ENFORCE(init.num_outputs <= 1, "BatchNormalization: the node has ", init.num_outputs,
                  " outputs, which at opset ", init.opset,
                  " means training mode; ptq runs inference only (use a single output Y)");
    }
  }

  void Run(KernelContext& ctx) override {
    const Tensor* given = &ctx.required_input(0);
    const Tensor* before = ctx.input(kBatchNormBias);
    Tensor sum;
    if (before != nullptr && given->rank() != 4) {  // no per-channel bias of a 4-D tensor: the Add on its own
      PTQ_ENFORCE(given->dtype() == DataType::kFloat && before->dtype() == DataType::kFloat,
                  "BatchNormalization: the session's fused form takes float32 'X' and 'before'");
      sum = BroadcastBinary<Elem<DataType::kFloat>, Elem<DataType::kFloat>, Elem<DataType::kFloat>>(
          *given, *before, [](float u, float v) { return u + v; });
      given = &sum;
      before = nullptr;
    }
    const Tensor& x = *given;
    PTQ_ENFORCE(x.rank() >= 2, "BatchNormalization: input 'X' must have rank >= 2 (N x C x ...), got shape ",
                ShapeToString(x.shape()));
    // Per-"channel" statistics: channel c covers `inner` contiguous elements of each batch item; channels
    // last (the session's layout), the channels are the last axis and every other position a batch item.
    const int64_t channels = channels_last_ ? x.dim(x.rank() - 1)
                             : spatial_     ? x.dim(1)
                                            : SizeOfRange(x.shape(), 1, x.rank());
    const int64_t batch = channels_last_ ? SizeOfRange(x.shape(), 0, x.rank() - 1) : x.dim(0);
    const int64_t inner = spatial_ && !channels_last_ ? SizeOfRange(x.shape(), 2, x.rank()) : 1;
    static const char* const kNames[] = {"scale", "B", "input_mean", "input_var"};
    std::vector<std::vector<double>> params(4);
    for (int i = 0; i < 4; ++i) {
      const Tensor& p = ctx.required_input(i + 1);
      PTQ_ENFORCE(p.size() == channels, "BatchNormalization: input '", kNames[i], "' has shape ",
                  ShapeToString(p.shape()), "; expected ", channels, " values for input 'X' of shape ",
                  ShapeToString(x.shape()), spatial_ ? "" : " with spatial = 0");
      params[static_cast<size_t>(i)].resize(static_cast<size_t>(channels));
      for (int64_t c = 0; c < channels; ++c) params[static_cast<size_t>(i)][static_cast<size_t>(c)] = p.GetAsDouble(c);
    }
    const Tensor* y_scale = ctx.input(kBatchNormYScale);
    if (before != nullptr || y_scale != nullptr || act_.clamp) {
      RunFused(x, before, y_scale, ctx.input(kBatchNormYZeroPoint), params, channels, batch, inner, ctx);
      return;
    }
    DispatchType<kFloatTypes>(x.dtype(), "BatchNormalization", "X", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      std::vector<C> a, b;
      ScaleAndShift(params, &a, &b);
      ComputeView<E> in(x);
      ComputeOutput<E> out(x.shape());
      // Threads share the batch items (channels last: the positions) from 64 K values on; each value is computed
      // alone, so any thread count gives the same bits.
      const int threads = ThreadsForWork(x.size(), int64_t{1} << 16);
      if (inner == 1) {
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
        for (int64_t n = 0; n < batch; ++n) {
          const C* __restrict xn = in.data() + n * channels;
          C* __restrict yn = out.data() + n * channels;
          const C* __restrict pa = a.data();
          const C* __restrict pb = b.data();
          for (int64_t c = 0; c < channels; ++c) yn[c] = xn[c] * pa[c] + pb[c];
        }
      } else {
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
        for (int64_t plane = 0; plane < batch * channels; ++plane) {  // (n, c)
          const int64_t c = plane % channels, offset = plane * inner;
          const C* __restrict xc = in.data() + offset;
          C* __restrict yc = out.data() + offset;
          const C ac = a[static_cast<size_t>(c)], bc = b[static_cast<size_t>(c)];
          for (int64_t i = 0; i < inner; ++i) yc[i] = xc[i] * ac + bc;
        }
      }
      ctx.outputs[0] = out.Finish();
    });
    // Opset 14+ inference: running_mean and running_var, if asked for, are the given statistics.
    if (ctx.outputs.size() > 1) ctx.outputs[1] = ctx.required_input(3);
    if (ctx.outputs.size() > 2) ctx.outputs[2] = ctx.required_input(4);
  }

 private:
  // y = x * a + b per channel with a = scale / sqrt(var + epsilon), b = B - mean * a (computed in double, stored as C),
  // from params = {scale, B, mean, var}.
  template <class C>
  void ScaleAndShift(const std::vector<std::vector<double>>& params, std::vector<C>* a, std::vector<C>* b) const {
    a->resize(params[0].size());
    b->resize(params[0].size());
    for (size_t c = 0; c < a->size(); ++c) {
      const double ac = params[0][c] / std::sqrt(params[3][c] + static_cast<double>(epsilon_));
      (*a)[c] = static_cast<C>(ac);
      (*b)[c] = static_cast<C>(params[1][c] - params[2][c] * ac);
    }
  }

  // The fused form (float32): v = x [+ before[c]], then v * a + b as above, then the clamp, then [quantized], each
  // step with the bits of its own node (Add, BatchNormalization, Relu or Clip, QuantizeLinear), in one pass.
  void RunFused(const Tensor& x, const Tensor* before, const Tensor* y_scale, const Tensor* y_zero_point,
                const std::vector<std::vector<double>>& params, int64_t channels, int64_t batch, int64_t inner,
                KernelContext& ctx) const {
    PTQ_ENFORCE(x.dtype() == DataType::kFloat, "BatchNormalization: input 'X' has type ", DataTypeName(x.dtype()),
                "; the session's fused form takes float32");
    const float* add = nullptr;  // per channel
    if (before != nullptr) {
      PTQ_ENFORCE(before->dtype() == DataType::kFloat && before->size() == channels, "BatchNormalization: input ",
                  "'before' must hold ", channels, " float32 values (one per channel), got ",
                  DataTypeName(before->dtype()), " ", ShapeToString(before->shape()));
      add = before->data<float>();
    }
    std::vector<float> a, b;
    ScaleAndShift(params, &a, &b);
    std::optional<Quantize8> quantized;
    if (y_scale != nullptr) {
      PTQ_ENFORCE(y_zero_point != nullptr, "BatchNormalization: input 'y_scale' without 'y_zero_point'");
      quantized = ReadQuantize8(*y_scale, *y_zero_point, "BatchNormalization");
    }
    Tensor y = Tensor::Uninitialized(quantized ? quantized->type : DataType::kFloat, x.shape());
    const float* px = x.data<float>();
    auto* py = static_cast<uint8_t*>(y.raw());
    const size_t out_bytes = quantized ? 1 : 4;
    // n values at v, whose outputs start at element `at`: clamped, then quantized into y (v is then scratch).
    auto finish = [&](float* v, int64_t n, int64_t at) {
      ApplyActivation(act_, v, n);
      if (quantized) QuantizeRun8(v, n, *quantized, py + at);
    };
    // Through blocks of about kBlock values (in L1) when quantized; else y itself.
    constexpr int64_t kBlock = 1024;
    const int threads = ThreadsForWork(x.size(), int64_t{1} << 16);
    if (inner == 1) {  // channels last: positions of `channels` values, shared out whole
      const int64_t rows_per_block = std::max<int64_t>(1, kBlock / channels);
      const int64_t per_unit = ItemsPerUnit(batch, threads);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
      for (int64_t u = 0; u < (batch + per_unit - 1) / per_unit; ++u) {
        thread_local std::vector<float> block;
        if (quantized && static_cast<int64_t>(block.size()) < rows_per_block * channels) {
          block.resize(static_cast<size_t>(rows_per_block * channels));
        }
        for (int64_t r = u * per_unit; r < std::min(batch, (u + 1) * per_unit); r += rows_per_block) {
          const int64_t rows = std::min(rows_per_block, std::min(batch, (u + 1) * per_unit) - r);
          float* v = quantized ? block.data() : reinterpret_cast<float*>(py + r * channels * out_bytes);
          const float* pa = a.data();
          const float* pb = b.data();
          for (int64_t i = 0; i < rows; ++i) {
            const float* xs = px + (r + i) * channels;
            float* vs = v + i * channels;
            if (add != nullptr) {
              for (int64_t c = 0; c < channels; ++c) vs[c] = (xs[c] + add[c]) * pa[c] + pb[c];
            } else {
              for (int64_t c = 0; c < channels; ++c) vs[c] = xs[c] * pa[c] + pb[c];
            }
          }
          finish(v, rows * channels, r * channels);
        }
      }
    } else {  // planes of `inner` values, one channel each
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
      for (int64_t plane = 0; plane < batch * channels; ++plane) {
        const size_t c = static_cast<size_t>(plane % channels);
        const float ac = a[c], bc = b[c], pc = add != nullptr ? add[c] : 0.0f;
        alignas(64) float block[kBlock];
        for (int64_t at = plane * inner; at < (plane + 1) * inner; at += kBlock) {
          const int64_t n = std::min(kBlock, (plane + 1) * inner - at);
          float* v = quantized ? block : reinterpret_cast<float*>(py) + at;
          const float* xs = px + at;
          if (add != nullptr) {
            for (int64_t i = 0; i < n; ++i) v[i] = (xs[i] + pc) * ac + bc;
          } else {
            for (int64_t i = 0; i < n; ++i) v[i] = xs[i] * ac + bc;
          }
          finish(v, n, at);
        }
      }
    }
    ctx.outputs[0] = std::move(y);
  }

  float epsilon_;
  bool spatial_;
  bool channels_last_;  // ptq.fused BatchNormalization of the session's channels-last layout
  ConvActivation act_;  // the fused Relu or Clip (ptq.fused), else none
};

}  // namespace

std::unique_ptr<Kernel> MakeBatchNormalization(const KernelInit& init) { return MakeKernel<BatchNormalization>(init); }

}  // namespace ptq
