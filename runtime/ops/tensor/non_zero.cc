// NonZero kernel: Y is int64 [rank, nnz]; column j holds the coordinates of the j-th non-zero element
// of X in row-major order. A scalar is treated as shape [1] (Y is [1, nnz]), as ONNX Runtime does.
// NaN counts as non-zero, -0.0 as zero.
#include "runtime/ops/tensor/non_zero.h"

#include <vector>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

class NonZero : public Kernel {
 public:
  explicit NonZero(const KernelInit&) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    std::vector<int64_t> positions;
    if (x.dtype() == DataType::kBool) {  // bytes: a model's bool may hold any non-zero value
      const auto* p = static_cast<const uint8_t*>(x.raw());
      for (int64_t i = 0; i < x.size(); ++i) {
        if (p[i] != 0) positions.push_back(i);
      }
    } else {
      DispatchType<kNumericTypes>(x.dtype(), "NonZero", "X", [&](auto e) {
        using E = decltype(e);
        using C = typename E::Compute;
        const auto* p = x.data<typename E::Storage>();
        for (int64_t i = 0; i < x.size(); ++i) {
          if (E::Load(p[i]) != C(0)) positions.push_back(i);
        }
      });
    }
    const Shape shape = x.rank() == 0 ? Shape{1} : x.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    const int64_t nnz = static_cast<int64_t>(positions.size());
    Tensor y = Tensor::Uninitialized(DataType::kInt64, {rank, nnz});
    int64_t* out = y.data<int64_t>();
    for (int64_t j = 0; j < nnz; ++j) {
      int64_t rest = positions[static_cast<size_t>(j)];
      for (int64_t d = rank - 1; d >= 0; --d) {
        const int64_t dim = shape[static_cast<size_t>(d)];
        out[d * nnz + j] = rest % dim;
        rest /= dim;
      }
    }
    ctx.outputs[0] = std::move(y);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeNonZero(const KernelInit& init) { return MakeKernel<NonZero>(init); }

}  // namespace ptq
