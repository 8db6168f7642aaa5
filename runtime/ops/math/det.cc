// Det kernel on float types: X [*, M, M] -> Y [*], each determinant by LU decomposition with partial
// pivoting in double: det = (-1)^swaps * prod(diag(U)). An empty matrix (M = 0) has determinant 1.
#include "runtime/ops/math/det.h"

#include <cmath>
#include <utility>
#include <vector>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

// The determinant of the m x m row-major matrix `a` (overwritten).
double Determinant(std::vector<double>& a, int64_t m) {
  double det = 1.0;
  for (int64_t k = 0; k < m; ++k) {
    int64_t pivot = k;
    for (int64_t r = k + 1; r < m; ++r) {
      if (std::fabs(a[static_cast<size_t>(r * m + k)]) > std::fabs(a[static_cast<size_t>(pivot * m + k)])) pivot = r;
    }
    const double p = a[static_cast<size_t>(pivot * m + k)];
    if (p == 0.0) return 0.0;
    if (pivot != k) {
      for (int64_t c = 0; c < m; ++c)
        std::swap(a[static_cast<size_t>(k * m + c)], a[static_cast<size_t>(pivot * m + c)]);
      det = -det;
    }
    det *= p;
    for (int64_t r = k + 1; r < m; ++r) {
      const double f = a[static_cast<size_t>(r * m + k)] / p;
      for (int64_t c = k + 1; c < m; ++c) a[static_cast<size_t>(r * m + c)] -= f * a[static_cast<size_t>(k * m + c)];
    }
  }
  return det;
}

class Det : public Kernel {
 public:
  explicit Det(const KernelInit&) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const int64_t rank = x.rank();
    PTQ_ENFORCE(rank >= 2 && x.dim(rank - 1) == x.dim(rank - 2), "input 'X' must be [*, M, M], has shape ",
                ShapeToString(x.shape()));
    const int64_t m = x.dim(rank - 1);
    const Shape out_shape(x.shape().begin(), x.shape().end() - 2);
    DispatchType<kFloatTypes>(x.dtype(), "Det", "X", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      ComputeView<E> in(x);
      ComputeOutput<E> out(out_shape);
      const int64_t count = ShapeSize(out_shape);
      std::vector<double> a(count > 0 ? static_cast<size_t>(m * m) : 0);  // m * m <= x.size() when count > 0
      for (int64_t b = 0; b < count; ++b) {
        for (int64_t i = 0; i < m * m; ++i) a[static_cast<size_t>(i)] = in.data()[b * m * m + i];
        out.data()[b] = static_cast<C>(Determinant(a, m));
      }
      ctx.outputs[0] = out.Finish();
    });
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeDet(const KernelInit& init) { return MakeKernel<Det>(init); }

}  // namespace ptq
