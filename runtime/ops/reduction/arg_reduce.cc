// ArgMax/ArgMin kernel: walks [outer, n, inner] around the axis, keeping the best value and its
// index per (outer, inner) position.
#include "runtime/ops/reduction/arg_reduce.h"

#include <string>
#include <vector>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

// True when v replaces the current best b: strictly better, or equal and the last index is wanted.
template <bool kMax, class C>
bool Replaces(C v, C b, bool last) {
  const bool better = kMax ? v > b : v < b;
  return better || (last && v == b);
}

// index[o * inner + i] = the r whose x[(o * n + r) * inner + i] is extreme. REQUIRES: n >= 1.
template <bool kMax, class C>
void ArgReduce(const C* x, int64_t outer, int64_t n, int64_t inner, bool last, int64_t* index) {
  std::vector<C> best(static_cast<size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    const C* xo = x + o * n * inner;
    int64_t* io = index + o * inner;
    for (int64_t i = 0; i < inner; ++i) {
      best[static_cast<size_t>(i)] = xo[i];
      io[i] = 0;
    }
    for (int64_t r = 1; r < n; ++r) {
      const C* xr = xo + r * inner;
      for (int64_t i = 0; i < inner; ++i) {
        if (Replaces<kMax>(xr[i], best[static_cast<size_t>(i)], last)) {
          best[static_cast<size_t>(i)] = xr[i];
          io[i] = r;
        }
      }
    }
  }
}

class ArgReduceKernel final : public Kernel {
 public:
  ArgReduceKernel(const KernelInit& init, bool max)
      : op_type_(init.op_type),
        max_(max),
        axis_(init.attrs->GetInt("axis", 0)),
        keepdims_(init.attrs->GetInt("keepdims", 1) != 0),
        select_last_index_(init.opset >= 12 && init.attrs->GetInt("select_last_index", 0) != 0) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const int64_t rank = x.rank();
    PTQ_ENFORCE(rank >= 1, op_type_, ": input 'data' must have rank >= 1, got a scalar");
    const int64_t axis = NormalizeAxis(axis_, rank);
    const int64_t n = x.dim(axis);
    const int64_t outer = SizeOfRange(x.shape(), 0, axis);
    const int64_t inner = SizeOfRange(x.shape(), axis + 1, rank);
    Shape out_shape = x.shape();
    if (keepdims_) out_shape[static_cast<size_t>(axis)] = 1;
    else out_shape.erase(out_shape.begin() + axis);
    Tensor y(DataType::kInt64, out_shape);
    if (y.size() > 0) {
      PTQ_ENFORCE(n > 0, op_type_, ": axis ", axis, " of input 'data' (shape ", ShapeToString(x.shape()),
                  ") is empty; there is no extreme element to index");
    }
    DispatchType<kNumericTypes>(x.dtype(), op_type_, "data", [&](auto e) {
      using E = decltype(e);
      ComputeView<E> in(x);
      if (max_) ArgReduce<true>(in.data(), outer, n, inner, select_last_index_, y.data<int64_t>());
      else ArgReduce<false>(in.data(), outer, n, inner, select_last_index_, y.data<int64_t>());
    });
    ctx.outputs[0] = y;
  }

 private:
  std::string op_type_;
  bool max_;
  int64_t axis_;
  bool keepdims_;
  bool select_last_index_;
};

}  // namespace

std::unique_ptr<Kernel> MakeArgReduceKernel(const KernelInit& init, bool max) {
  return std::make_unique<ArgReduceKernel>(init, max);
}

}  // namespace ptq
