// GlobalAveragePool: a sum per plane, divided by the plane's size.
#include "runtime/ops/nn/global_average_pool.h"

#include "runtime/ops/math/float_compute.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

// y[n, c] = (1 / S) * sum_s x[n, c, s], S = D1 * .. * Dn
template <class T>
Tensor GlobalAveragePoolTyped(const Tensor& x) {
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
    T sum = T(0);
    for (int64_t s = 0; s < plane_size; ++s) sum += plane[s];
    py[i] = sum / static_cast<T>(plane_size);
  }
  return y;
}

class GlobalAveragePoolKernel final : public Kernel {
 public:
  explicit GlobalAveragePoolKernel(const KernelInit&) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    PTQ_ENFORCE(x.rank() >= 2, "input 'X' has shape ", ShapeToString(x.shape()), "; expected [N, C, ...]");
    switch (x.dtype()) {
      case DataType::kFloat: ctx.outputs[0] = GlobalAveragePoolTyped<float>(x); break;
      case DataType::kDouble: ctx.outputs[0] = GlobalAveragePoolTyped<double>(x); break;
      case DataType::kFloat16:
      case DataType::kBfloat16:
        ctx.outputs[0] = NarrowFromFloat(GlobalAveragePoolTyped<float>(WidenToFloat(x)), x.dtype());
        break;
      default:
        ThrowInputError("input 'X' has type ", DataTypeName(x.dtype()),
                        "; GlobalAveragePool supports float32, float64, float16 and bfloat16");
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeGlobalAveragePool(const KernelInit& init) {
  return MakeKernel<GlobalAveragePoolKernel>(init);
}

}  // namespace ptq
