// Hardmax kernel on float types: along the axis (opset 13: one axis, default -1; before: the input
// flattened to 2-D at `axis`, default 1, the row being everything from axis on),
//   y[j] = 1 if j is the first index with x[j] = max(x) else 0.
// A row with NaN: the first NaN (numpy.argmax's choice).
#include "runtime/ops/math/hardmax.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

class Hardmax : public Kernel {
 public:
  explicit Hardmax(const KernelInit& init)
      : coerce_2d_(init.opset < 13), axis_(init.attrs->GetInt("axis", init.opset < 13 ? 1 : -1)) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const int64_t rank = x.rank();
    int64_t outer, n, inner;
    if (coerce_2d_) {
      PTQ_ENFORCE(axis_ >= -rank && axis_ <= rank, "attribute 'axis' is ", axis_, ", out of range for input of rank ",
                  rank);
      const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
      outer = SizeOfRange(x.shape(), 0, axis);
      n = SizeOfRange(x.shape(), axis, rank);
      inner = 1;
    } else {
      PTQ_ENFORCE(rank >= 1, "input 'input' must have rank >= 1, got a scalar");
      const int64_t axis = NormalizeAxis(axis_, rank);
      outer = SizeOfRange(x.shape(), 0, axis);
      n = x.dim(axis);
      inner = SizeOfRange(x.shape(), axis + 1, rank);
    }
    DispatchType<kFloatTypes>(x.dtype(), "Hardmax", "input", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      ComputeView<E> in(x);
      ComputeOutput<E> out(x.shape());  // zero-filled
      const C* px = in.data();
      C* py = out.data();
      for (int64_t o = 0; o < outer && n > 0; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const C* row = px + o * n * inner + i;
          int64_t best = 0;
          for (int64_t j = 1; j < n && !std::isnan(row[best * inner]); ++j) {
            if (row[j * inner] > row[best * inner] || std::isnan(row[j * inner])) best = j;
          }
          py[(o * n + best) * inner + i] = C(1);
        }
      }
      ctx.outputs[0] = out.Finish();
    });
  }

 private:
  bool coerce_2d_;
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeHardmax(const KernelInit& init) { return MakeKernel<Hardmax>(init); }

}  // namespace ptq
