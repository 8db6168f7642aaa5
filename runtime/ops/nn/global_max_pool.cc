// GlobalMaxPool: a maximum per plane.
#include "runtime/ops/nn/global_max_pool.h"

#include <limits>

#include "runtime/ops/math/float_compute.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

// y[n, c] = max_s x[n, c, s] (the type's lowest value for an empty plane)
template <class T>
Tensor GlobalMaxPoolTyped(const Tensor& x) {
  Shape ys(x.shape().size(), 1);
  ys[0] = x.dim(0);
  ys[1] = x.dim(1);
  Tensor y(x.dtype(), ys);
  const int64_t planes = x.dim(0) * x.dim(1);
  const int64_t plane_size = SizeOfRange(x.shape(), 2, x.rank());
  const T* px = x.data<T>();
  T* py = y.data<T>();
  for (int64_t i = 0; i < planes; ++i) {
    const T* plane = px + i * plane_size;
    T best = plane_size > 0 ? plane[0] : std::numeric_limits<T>::lowest();
    for (int64_t s = 1; s < plane_size; ++s) best = plane[s] > best ? plane[s] : best;
    py[i] = best;
  }
  return y;
}

class GlobalMaxPoolKernel final : public Kernel {
 public:
  explicit GlobalMaxPoolKernel(const KernelInit&) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    PTQ_ENFORCE(x.rank() >= 2, "input 'X' has shape ", ShapeToString(x.shape()), "; expected [N, C, ...]");
    switch (x.dtype()) {
      case DataType::kFloat: ctx.outputs[0] = GlobalMaxPoolTyped<float>(x); break;
      case DataType::kDouble: ctx.outputs[0] = GlobalMaxPoolTyped<double>(x); break;
      case DataType::kInt8: ctx.outputs[0] = GlobalMaxPoolTyped<int8_t>(x); break;
      case DataType::kUint8: ctx.outputs[0] = GlobalMaxPoolTyped<uint8_t>(x); break;
      case DataType::kFloat16:
      case DataType::kBfloat16:
        ctx.outputs[0] = NarrowFromFloat(GlobalMaxPoolTyped<float>(WidenToFloat(x)), x.dtype());
        break;
      default:
        ThrowInputError("input 'X' has type ", DataTypeName(x.dtype()),
                        "; GlobalMaxPool supports float32, float64, float16, bfloat16, int8 and uint8");
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeGlobalMaxPool(const KernelInit& init) { return MakeKernel<GlobalMaxPoolKernel>(init); }

}  // namespace ptq
