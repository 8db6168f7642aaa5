// AveragePool: sums over each window of a zero-padded plane (blocks of outputs in registers), divided by tap counts.
#include "runtime/ops/nn/average_pool.h"

#include <algorithm>
#include <vector>

#include "runtime/ops/math/float_compute.h"
#include "runtime/ops/nn/pool_window.h"
#include "runtime/ops/tensor/scratch_buffer.h"

namespace ptq {
namespace {

class AveragePoolKernel final : public Kernel {
 public:
  explicit AveragePoolKernel(const KernelInit& init)
      : attrs_(ReadConvAttributes(*init.attrs)), count_include_pad_(init.attrs->GetInt("count_include_pad", 0) != 0) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    switch (x.dtype()) {
      case DataType::kFloat: ctx.outputs[0] = Pool<float>(x); break;
      case DataType::kDouble: ctx.outputs[0] = Pool<double>(x); break;
      case DataType::kFloat16:
      case DataType::kBfloat16: ctx.outputs[0] = NarrowFromFloat(Pool<float>(WidenToFloat(x)), x.dtype()); break;
      default:
        ThrowInputError("input 'X' has type ", DataTypeName(x.dtype()),
                        "; AveragePool supports float32, float64, float16 and bfloat16");
    }
  }

 private:
  template <class T>
  Tensor Pool(const Tensor& x) {
    if (x.shape() != x_shape_) {  // resolve the window once per input shape
      const SlidingWindow w = ResolvePoolWindow(attrs_, x.shape());
      plan_ = MakePoolPlan(w);
      counts_ = AveragePoolCounts(plan_, count_include_pad_);
      y_shape_ = {x.dim(0), x.dim(1)};
      y_shape_.insert(y_shape_.end(), w.output.begin(), w.output.end());
      x_shape_ = x.shape();
    }
    Tensor y(x.dtype(), y_shape_);
    T* padded = plan_.padded ? scratch_.Get<T>(static_cast<size_t>(plan_.plane_size)) : nullptr;
    const int64_t planes = x.dim(0) * x.dim(1);
    for (int64_t i = 0; i < planes; ++i) {
      // y[o] = (sum over the window's taps inside x) / count (the zero padding adds nothing)
      const T* src = PoolSource(x.data<T>() + i * plan_.in_size, plan_, T(0), padded);
      T* py = y.data<T>() + i * plan_.out_size;
      PoolPlane(
          src, plan_, T(0), [](const auto& a, const auto& b) { return a + b; }, py);
      for (int64_t o = 0; o < plan_.out_size; ++o) py[o] /= static_cast<T>(counts_[static_cast<size_t>(o)]);
    }
    return y;
  }

  ConvAttributes attrs_;
  bool count_include_pad_;
  Shape x_shape_, y_shape_;
  PoolPlan plan_;
  std::vector<float> counts_;  // AveragePoolCounts(plan_)
  ScratchBuffer scratch_;      // one padded plane
};

}  // namespace

std::unique_ptr<Kernel> MakeAveragePool(const KernelInit& init) { return MakeKernel<AveragePoolKernel>(init); }

}  // namespace ptq
