// QLinearAveragePool / QLinearGlobalAveragePool: integer window sums of each plane, requantized.
#include "runtime/ops/quantization/qlinear_average_pool.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "runtime/channels_last_layout.h"
#include "runtime/ops/nn/pool_window.h"
#include "runtime/quant_math.h"
#include "runtime/shape_util.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

struct PoolParams {
  float x_scale, y_scale;
  int32_t x_zero_point, y_zero_point;
  QuantRange range;
};

PoolParams ReadParams(const KernelContext& ctx) {
  const Tensor& x = ctx.required_input(0);
  PTQ_ENFORCE(x.dtype() == DataType::kUint8 || x.dtype() == DataType::kInt8, "input 'X' has type ",
              DataTypeName(x.dtype()), "; expected uint8 or int8");
  PTQ_ENFORCE(x.rank() >= 3, "input 'X' has shape ", ShapeToString(x.shape()), "; expected [N, C, D1, ...]");
  for (int i : {1, 3}) {
    const Tensor& s = ctx.required_input(i);
    PTQ_ENFORCE(s.dtype() == DataType::kFloat && s.size() == 1, i == 1 ? "x_scale" : "y_scale", " must be one float32");
  }
  for (int i : {2, 4}) {
    const Tensor& z = ctx.required_input(i);
    PTQ_ENFORCE(z.dtype() == x.dtype() && z.size() == 1, i == 2 ? "x_zero_point" : "y_zero_point", " must be one ",
                DataTypeName(x.dtype()), " value");
  }
  return {ctx.required_input(1).data<float>()[0], ctx.required_input(3).data<float>()[0],
          static_cast<int32_t>(ctx.required_input(2).GetAsDouble(0)),
          static_cast<int32_t>(ctx.required_input(4).GetAsDouble(0)), QuantRangeOf(x.dtype())};
}

// The requantization multiplier of an average over `count` values.
float Multiplier(const PoolParams& p, float count) { return p.x_scale / (count * p.y_scale); }

// Planes are shared between threads from this many input elements on.
constexpr int64_t kParallelElements = int64_t{1} << 16;

int Threads(int64_t elements) {
  return elements < kParallelElements || InParallelRegion() ? 1 : omp_get_max_threads();
}

// f(plane) for every plane in [0, planes), shared between threads when the tensor is large.
template <class F>
void ForEachPlane(int64_t planes, int64_t elements, const F& f) {
#pragma omp parallel for schedule(static) num_threads(Threads(elements))
  for (int64_t i = 0; i < planes; ++i) f(i);
}

// Channels last: the sums of each channel over the positions of an image, added a row of channels at a time.
template <class T>
void GlobalPoolChannelsLast(const Tensor& x, const PoolParams& p, Tensor& y) {
  const int64_t C = x.dim(x.rank() - 1);
  const int64_t size = SizeOfRange(x.shape(), 1, x.rank() - 1);
  PTQ_ENFORCE(size < (int64_t{1} << 23), "input 'X' has planes of ", size, " values; at most 2^23 are summed exactly");
  const float multiplier = Multiplier(p, static_cast<float>(size));
  std::vector<int32_t> sum(static_cast<size_t>(C));
  for (int64_t n = 0; n < x.dim(0); ++n) {
    std::fill(sum.begin(), sum.end(), 0);
    for (int64_t s = 0; s < size; ++s) {
      const T* row = x.data<T>() + (n * size + s) * C;
      for (int64_t c = 0; c < C; ++c) sum[static_cast<size_t>(c)] += row[c];
    }
    T* out = y.data<T>() + n * C;
    for (int64_t c = 0; c < C; ++c) {
      const int32_t acc = sum[static_cast<size_t>(c)] - static_cast<int32_t>(size) * p.x_zero_point;
      out[c] = static_cast<T>(RequantizeValue(acc, multiplier, p.y_zero_point, p.range.qmin, p.range.qmax));
    }
  }
}

template <class T>
void GlobalPool(const Tensor& x, const PoolParams& p, Tensor& y) {
  const int64_t planes = x.dim(0) * x.dim(1);
  const int64_t size = SizeOfRange(x.shape(), 2, x.rank());
  PTQ_ENFORCE(size < (int64_t{1} << 23), "input 'X' has planes of ", size, " values; at most 2^23 are summed exactly");
  const float multiplier = Multiplier(p, static_cast<float>(size));
  const T* px = x.data<T>();
  T* py = y.data<T>();
  ForEachPlane(planes, x.size(), [&](int64_t i) {
    const T* plane = px + i * size;
    int32_t sum = 0;
    for (int64_t s = 0; s < size; ++s) sum += plane[s];
    const int32_t acc = sum - static_cast<int32_t>(size) * p.x_zero_point;
    py[i] = static_cast<T>(RequantizeValue(acc, multiplier, p.y_zero_point, p.range.qmin, p.range.qmax));
  });
}

class QLinearGlobalAveragePoolKernel final : public Kernel {
 public:
  explicit QLinearGlobalAveragePoolKernel(const KernelInit& init)
      : channels_last_(init.attrs->GetInt(kChannelsLast, 0) != 0) {}

  void Run(KernelContext& ctx) override {
    const PoolParams p = ReadParams(ctx);
    const Tensor& x = ctx.required_input(0);
    Shape ys(x.shape().size(), 1);
    ys[0] = x.dim(0);
    ys[channels_last_ ? ys.size() - 1 : 1] = x.dim(channels_last_ ? x.rank() - 1 : 1);
    Tensor y = Tensor::Uninitialized(x.dtype(), ys);
    const bool s8 = x.dtype() == DataType::kInt8;
    if (channels_last_) {
      s8 ? GlobalPoolChannelsLast<int8_t>(x, p, y) : GlobalPoolChannelsLast<uint8_t>(x, p, y);
    } else {
      s8 ? GlobalPool<int8_t>(x, p, y) : GlobalPool<uint8_t>(x, p, y);
    }
    ctx.outputs[0] = std::move(y);
  }

 private:
  bool channels_last_;  // x [N, D.., C], y [N, 1.., C]: the session's channels-last layout
};

class QLinearAveragePoolKernel final : public Kernel {
 public:
  explicit QLinearAveragePoolKernel(const KernelInit& init)
      : attrs_(ReadConvAttributes(*init.attrs)), count_include_pad_(init.attrs->GetInt("count_include_pad", 0) != 0) {}

  void Run(KernelContext& ctx) override {
    const PoolParams p = ReadParams(ctx);
    const Tensor& x = ctx.required_input(0);
    if (x.shape() != x_shape_) Resolve(x.shape());
    Tensor y = Tensor::Uninitialized(x.dtype(), y_shape_);
    if (x.dtype() == DataType::kInt8) {
      Pool<int8_t>(x, p, y);
    } else {
      Pool<uint8_t>(x, p, y);
    }
    ctx.outputs[0] = std::move(y);
  }

 private:
  // The window, the output shape and each output's divisor, once per input shape.
  void Resolve(const Shape& x_shape) {
    const SlidingWindow w = ResolvePoolWindow(attrs_, x_shape);
    plan_ = MakePoolPlan(w);
    y_shape_ = {x_shape[0], x_shape[1]};
    y_shape_.insert(y_shape_.end(), w.output.begin(), w.output.end());
    PTQ_ENFORCE(static_cast<int64_t>(plan_.taps.size()) < (int64_t{1} << 23), "the window has ", plan_.taps.size(),
                " taps; at most 2^23 are summed exactly");
    counts_ = AveragePoolCounts(plan_, count_include_pad_);
    x_shape_ = x_shape;
  }

  template <class T>
  void Pool(const Tensor& x, const PoolParams& p, Tensor& y) {
    const int64_t planes = x.dim(0) * x.dim(1);
    std::vector<float> multiplier(counts_.size());
    for (size_t o = 0; o < counts_.size(); ++o) multiplier[o] = Multiplier(p, counts_[o]);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    ForEachPlane(planes, x.size(), [&](int64_t i) {
      // The plane as int32 x - x_zero_point, padded with 0 (the real value 0 adds nothing, as in the float op).
      thread_local std::vector<int32_t> centred, padded, sums;
      centred.resize(static_cast<size_t>(plan_.in_size));
      padded.resize(static_cast<size_t>(plan_.plane_size));
      sums.resize(static_cast<size_t>(plan_.out_size));
      const T* plane = px + i * plan_.in_size;
      for (int64_t s = 0; s < plan_.in_size; ++s) centred[s] = static_cast<int32_t>(plane[s]) - p.x_zero_point;
      const int32_t* src = PoolSource(centred.data(), plan_, int32_t{0}, padded.data());
      PoolPlane(src, plan_, int32_t{0}, [](const auto& a, const auto& b) { return a + b; }, sums.data());
      T* out = py + i * plan_.out_size;
      for (int64_t o = 0; o < plan_.out_size; ++o) {
        out[o] = static_cast<T>(RequantizeValue(sums[o], multiplier[o], p.y_zero_point, p.range.qmin, p.range.qmax));
      }
    });
  }

  ConvAttributes attrs_;
  bool count_include_pad_;
  Shape x_shape_, y_shape_;
  PoolPlan plan_;
  std::vector<float> counts_;
};

}  // namespace

std::unique_ptr<Kernel> MakeQLinearAveragePool(const KernelInit& init) {
  return MakeKernel<QLinearAveragePoolKernel>(init);
}
std::unique_ptr<Kernel> MakeQLinearGlobalAveragePool(const KernelInit& init) {
  return MakeKernel<QLinearGlobalAveragePoolKernel>(init);
}

}  // namespace ptq
