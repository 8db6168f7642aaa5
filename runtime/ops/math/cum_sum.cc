// CumSum kernel. With the axis (input 'axis', a one-element int32/int64 tensor, negative counts from
// the end) of size n and j in [0, n):
//   forward:  y[j] = sum_{i <= j} x[i]   (exclusive: i < j)
//   reverse:  y[j] = sum_{i >= j} x[i]   (exclusive: i > j)
// Integers wrap on overflow; float16/bfloat16 accumulate in float32.
#include "runtime/ops/math/cum_sum.h"

#include <algorithm>
#include <vector>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

class CumSum : public Kernel {
 public:
  explicit CumSum(const KernelInit& init)
      : exclusive_(init.attrs->GetInt("exclusive", 0) != 0), reverse_(init.attrs->GetInt("reverse", 0) != 0) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& axis_t = ctx.required_input(1);
    PTQ_ENFORCE((axis_t.dtype() == DataType::kInt64 || axis_t.dtype() == DataType::kInt32) && axis_t.size() == 1,
                "input 'axis' must be one int32 or int64 value, got ", DataTypeName(axis_t.dtype()), " of shape ",
                ShapeToString(axis_t.shape()));
    PTQ_ENFORCE(x.rank() >= 1, "input 'x' must have rank >= 1, got a scalar");
    const int64_t axis = NormalizeAxis(axis_t.ToInt64Vector()[0], x.rank());
    const int64_t outer = SizeOfRange(x.shape(), 0, axis);
    const int64_t n = x.dim(axis);
    const int64_t inner = SizeOfRange(x.shape(), axis + 1, x.rank());
    DispatchType<kNumericTypes>(x.dtype(), "CumSum", "x", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      ComputeView<E> in(x);
      ComputeOutput<E> out(x.shape());
      const C* px = in.data();
      C* py = out.data();
      std::vector<C> acc(static_cast<size_t>(inner));
      for (int64_t o = 0; o < outer; ++o) {
        std::fill(acc.begin(), acc.end(), C(0));
        for (int64_t s = 0; s < n; ++s) {
          const int64_t row = (o * n + (reverse_ ? n - 1 - s : s)) * inner;
          for (int64_t i = 0; i < inner; ++i) {
            const C v = px[row + i];
            if (exclusive_) py[row + i] = acc[static_cast<size_t>(i)];
            acc[static_cast<size_t>(i)] = WrapAdd(acc[static_cast<size_t>(i)], v);
            if (!exclusive_) py[row + i] = acc[static_cast<size_t>(i)];
          }
        }
      }
      ctx.outputs[0] = out.Finish();
    });
  }

 private:
  bool exclusive_;
  bool reverse_;
};

}  // namespace

std::unique_ptr<Kernel> MakeCumSum(const KernelInit& init) { return MakeKernel<CumSum>(init); }

}  // namespace ptq
