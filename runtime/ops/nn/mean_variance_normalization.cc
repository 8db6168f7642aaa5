// MeanVarianceNormalization kernel on float types, over attribute axes (default [0, 2, 3]), as the
// ONNX function defines it:
//   mean = E[X], variance = E[X^2] - mean^2, Y = (X - mean) / (sqrt(variance) + 1e-9)
// with the expectations over the reduced axes, accumulated in double (a variance that rounds below
// 0 is taken as 0).
#include "runtime/ops/nn/mean_variance_normalization.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

class MeanVarianceNormalization : public Kernel {
 public:
  explicit MeanVarianceNormalization(const KernelInit& init) : axes_(init.attrs->GetInts("axes", {0, 2, 3})) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const int64_t rank = x.rank();
    std::vector<bool> reduced(static_cast<size_t>(rank), false);
    for (int64_t a : axes_) {
      const int64_t axis = NormalizeAxis(a, rank);
      PTQ_ENFORCE(!reduced[static_cast<size_t>(axis)], "attribute 'axes' names axis ", axis, " twice");
      reduced[static_cast<size_t>(axis)] = true;
    }
    // group[i]: the index of element i's statistics, its position in the shape with reduced axes 1.
    Shape group_shape = x.shape();
    int64_t count = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (reduced[static_cast<size_t>(d)]) {
        count *= x.dim(d);
        group_shape[static_cast<size_t>(d)] = 1;
      }
    }
    if (x.size() == 0) {
      ctx.outputs[0] = Tensor(x.dtype(), x.shape());
      return;
    }
    const int64_t groups = ShapeSize(group_shape);
    const std::vector<int64_t> gstrides = BroadcastStrides(group_shape, x.shape());
    DispatchType<kFloatTypes>(x.dtype(), "MeanVarianceNormalization", "X", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      ComputeView<E> in(x);
      ComputeOutput<E> out(x.shape());
      const C* px = in.data();
      C* py = out.data();
      std::vector<double> sum(static_cast<size_t>(groups), 0.0), sum_sq(static_cast<size_t>(groups), 0.0);
      ForEachGroup(x.shape(), gstrides, [&](int64_t i, int64_t g) {
        const double v = px[i];
        sum[static_cast<size_t>(g)] += v;
        sum_sq[static_cast<size_t>(g)] += v * v;
      });
      for (int64_t g = 0; g < groups; ++g) {
        const double mean = sum[static_cast<size_t>(g)] / static_cast<double>(count);
        const double var = std::max(0.0, sum_sq[static_cast<size_t>(g)] / static_cast<double>(count) - mean * mean);
        sum[static_cast<size_t>(g)] = mean;
        sum_sq[static_cast<size_t>(g)] = std::sqrt(var) + 1e-9;
      }
      ForEachGroup(x.shape(), gstrides, [&](int64_t i, int64_t g) {
        py[i] = static_cast<C>((px[i] - sum[static_cast<size_t>(g)]) / sum_sq[static_cast<size_t>(g)]);
      });
      ctx.outputs[0] = out.Finish();
    });
  }

 private:
  // Calls f(i, g) for every element i (row-major) with g its group offset (sum of coordinate * gstride).
  template <class F>
  static void ForEachGroup(const Shape& shape, const std::vector<int64_t>& gstrides, const F& f) {
    const int64_t n = ShapeSize(shape);
    const size_t rank = shape.size();
    std::vector<int64_t> pos(rank, 0);
    int64_t g = 0;
    for (int64_t i = 0; i < n; ++i) {
      f(i, g);
      for (size_t d = rank; d-- > 0;) {
        g += gstrides[d];
        if (++pos[d] < shape[d]) break;
        g -= gstrides[d] * pos[d];
        pos[d] = 0;
      }
    }
  }

  std::vector<int64_t> axes_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMeanVarianceNormalization(const KernelInit& init) {
  return MakeKernel<MeanVarianceNormalization>(init);
}

}  // namespace ptq
