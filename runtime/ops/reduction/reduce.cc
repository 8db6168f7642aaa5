// The Reduce* kernel: the reduced axes are brought to one [outer, n, inner] walk (contiguous rows
// when inner = 1), transposing first when reduced and kept axes interleave.
#include "runtime/ops/reduction/reduce.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/ops/tensor/copy_util.h"
#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

template <class C>
C Lowest() {
  return std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::lowest();
}
template <class C>
C Highest() {
  return std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity() : std::numeric_limits<C>::max();
}

// f(v) for a floating f applied to integer values goes through double.
template <class C, class F>
C ApplyFloat(C v, F f) {
  if constexpr (std::is_floating_point<C>::value) return f(v);
  else return static_cast<C>(f(static_cast<double>(v)));
}

// A reduction as result = Post(Combine(... Combine(Init, Pre(s_1)) ..., Pre(s_n)), n) with an
// associative Combine, so that rows can be split into independent partial accumulators.
struct SumOp {
  template <class C> static C Init() { return C(0); }
  template <class C> static C Pre(C x) { return x; }
  template <class C> static C Combine(C a, C b) { return WrapAdd(a, b); }
  template <class C> static C Post(C a, int64_t) { return a; }
};
struct MeanOp : SumOp {
  template <class C> static C Post(C a, int64_t n) {
    if constexpr (kIsInt<C>) return n == 0 ? C(0) : static_cast<C>(a / static_cast<C>(n));
    else return a / static_cast<C>(n);
  }
};
struct MaxOp : SumOp {
  template <class C> static C Init() { return Lowest<C>(); }
  template <class C> static C Combine(C a, C b) { return b > a ? b : a; }
};
struct MinOp : SumOp {
  template <class C> static C Init() { return Highest<C>(); }
  template <class C> static C Combine(C a, C b) { return b < a ? b : a; }
};
struct ProdOp : SumOp {
  template <class C> static C Init() { return C(1); }
  template <class C> static C Combine(C a, C b) { return WrapMul(a, b); }
};
struct L1Op : SumOp {
  template <class C> static C Pre(C x) {
    if constexpr (std::is_signed<C>::value) return x < C(0) ? WrapSub(C(0), x) : x;
    else return x;
  }
};
struct SumSquareOp : SumOp {
  template <class C> static C Pre(C x) { return WrapMul(x, x); }
};
struct L2Op : SumSquareOp {
  template <class C> static C Post(C a, int64_t) { return ApplyFloat(a, [](auto v) { return std::sqrt(v); }); }
};
struct LogSumOp : SumOp {
  template <class C> static C Post(C a, int64_t) { return ApplyFloat(a, [](auto v) { return std::log(v); }); }
};

// out[o * inner + i] = reduction over r of x[(o * n + r) * inner + i].
template <class Op, class C>
void ReduceOuterInner(const C* x, int64_t outer, int64_t n, int64_t inner, C* out) {
  if (n == 1) {
    for (int64_t i = 0; i < outer * inner; ++i) out[i] = Op::Post(Op::Pre(x[i]), 1);
  } else if (inner == 1) {
    for (int64_t o = 0; o < outer; ++o) {
      const C* __restrict xr = x + o * n;
      C acc[kRowLanes];
      for (int j = 0; j < kRowLanes; ++j) acc[j] = Op::template Init<C>();
      int64_t r = 0;
      for (; r + kRowLanes <= n; r += kRowLanes) {
        for (int j = 0; j < kRowLanes; ++j) acc[j] = Op::Combine(acc[j], Op::Pre(xr[r + j]));
      }
      C a = acc[0];
      for (int j = 1; j < kRowLanes; ++j) a = Op::Combine(a, acc[j]);
      for (; r < n; ++r) a = Op::Combine(a, Op::Pre(xr[r]));
      out[o] = Op::Post(a, n);
    }
  } else {
    for (int64_t o = 0; o < outer; ++o) {
      C* __restrict acc = out + o * inner;
      for (int64_t i = 0; i < inner; ++i) acc[i] = Op::template Init<C>();
      for (int64_t r = 0; r < n; ++r) {
        const C* __restrict xr = x + (o * n + r) * inner;
        for (int64_t i = 0; i < inner; ++i) acc[i] = Op::Combine(acc[i], Op::Pre(xr[i]));
      }
      for (int64_t i = 0; i < inner; ++i) acc[i] = Op::Post(acc[i], n);
    }
  }
}

// log(sum(e^s)) = m + log(sum(e^(s - m))), m = max(S) (0 when m is infinite, so that sets of -inf
// give -inf and sets containing +inf give +inf). Integers are computed in double.
template <class C>
void ReduceLogSumExp(const C* x, int64_t outer, int64_t n, int64_t inner, C* out) {
  using F = std::conditional_t<std::is_floating_point<C>::value, C, double>;
  std::vector<F> m(static_cast<size_t>(inner)), s(static_cast<size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) m[i] = -std::numeric_limits<F>::infinity();
    for (int64_t r = 0; r < n; ++r) {
      const C* xr = x + (o * n + r) * inner;
      for (int64_t i = 0; i < inner; ++i) m[i] = static_cast<F>(xr[i]) > m[i] ? static_cast<F>(xr[i]) : m[i];
    }
    for (int64_t i = 0; i < inner; ++i) {
      if (!std::isfinite(m[i])) m[i] = 0;
      s[i] = 0;
    }
    for (int64_t r = 0; r < n; ++r) {
      const C* xr = x + (o * n + r) * inner;
      for (int64_t i = 0; i < inner; ++i) s[i] += ExpOf(static_cast<F>(xr[i]) - m[i]);
    }
    for (int64_t i = 0; i < inner; ++i) out[o * inner + i] = static_cast<C>(m[i] + std::log(s[i]));
  }
}

// How the reduced axes are walked: optionally transpose `shape` by `perm` (kept axes first), then
// [outer, n, inner] with the middle extent reduced.
struct ReducePlan {
  bool transpose = false;
  Shape shape;
  std::vector<int64_t> perm;
  int64_t outer = 1, n = 1, inner = 1;
};

// Axes of size 1 are dropped and neighbouring axes that are alike (both reduced or both kept)
// merged; the merged pattern K, R, KR, RK or KRK needs no transpose.
ReducePlan PlanReduce(const Shape& shape, const std::vector<bool>& reduced) {
  std::vector<int64_t> sizes;
  std::vector<bool> flags;
  for (size_t a = 0; a < shape.size(); ++a) {
    if (shape[a] == 1) continue;
    if (!flags.empty() && flags.back() == reduced[a]) {
      sizes.back() *= shape[a];
    } else {
      sizes.push_back(shape[a]);
      flags.push_back(reduced[a]);
    }
  }
  ReducePlan p;
  const size_t g = sizes.size();
  if (g == 0) return p;
  if (g == 1) {
    (flags[0] ? p.n : p.outer) = sizes[0];
  } else if (g == 2) {
    if (flags[0]) {
      p.n = sizes[0];
      p.inner = sizes[1];
    } else {
      p.outer = sizes[0];
      p.n = sizes[1];
    }
  } else if (g == 3 && !flags[0]) {
    p.outer = sizes[0];
    p.n = sizes[1];
    p.inner = sizes[2];
  } else {
    p.transpose = true;
    p.shape = sizes;
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = 0; i < g; ++i) {
        if (flags[i] != (pass == 1)) continue;
        p.perm.push_back(static_cast<int64_t>(i));
        (pass == 0 ? p.outer : p.n) *= sizes[i];
      }
    }
  }
  return p;
}

template <class E>
Tensor RunReduction(ReduceKind kind, const Tensor& x, const ReducePlan& p, const Shape& out_shape) {
  using C = typename E::Compute;
  ComputeView<E> in(x);
  const C* src = in.data();
  std::unique_ptr<C[]> transposed;  // not std::vector: C may be bool
  if (p.transpose) {
    transposed.reset(new C[static_cast<size_t>(x.size())]);
    TransposeCopy(src, p.shape, p.perm, sizeof(C), transposed.get());
    src = transposed.get();
  }
  ComputeOutput<E> out(out_shape);
  C* dst = out.data();
  if constexpr (std::is_same<C, bool>::value) {
    if (kind == ReduceKind::kMax) ReduceOuterInner<MaxOp>(src, p.outer, p.n, p.inner, dst);
    else ReduceOuterInner<MinOp>(src, p.outer, p.n, p.inner, dst);
  } else {
    switch (kind) {
      case ReduceKind::kSum: ReduceOuterInner<SumOp>(src, p.outer, p.n, p.inner, dst); break;
      case ReduceKind::kMean: ReduceOuterInner<MeanOp>(src, p.outer, p.n, p.inner, dst); break;
      case ReduceKind::kMax: ReduceOuterInner<MaxOp>(src, p.outer, p.n, p.inner, dst); break;
      case ReduceKind::kMin: ReduceOuterInner<MinOp>(src, p.outer, p.n, p.inner, dst); break;
      case ReduceKind::kProd: ReduceOuterInner<ProdOp>(src, p.outer, p.n, p.inner, dst); break;
      case ReduceKind::kL1: ReduceOuterInner<L1Op>(src, p.outer, p.n, p.inner, dst); break;
      case ReduceKind::kL2: ReduceOuterInner<L2Op>(src, p.outer, p.n, p.inner, dst); break;
      case ReduceKind::kSumSquare: ReduceOuterInner<SumSquareOp>(src, p.outer, p.n, p.inner, dst); break;
      case ReduceKind::kLogSum: ReduceOuterInner<LogSumOp>(src, p.outer, p.n, p.inner, dst); break;
      case ReduceKind::kLogSumExp: ReduceLogSumExp(src, p.outer, p.n, p.inner, dst); break;
    }
  }
  return out.Finish();
}

class Reduce final : public Kernel {
 public:
  Reduce(const KernelInit& init, ReduceKind kind)
      : op_type_(init.op_type),
        kind_(kind),
        keepdims_(init.attrs->GetInt("keepdims", 1) != 0),
        noop_with_empty_axes_(init.attrs->GetInt("noop_with_empty_axes", 0) != 0),
        axes_from_input_(init.opset >= (kind == ReduceKind::kSum ? 13 : 18)) {
    if (!axes_from_input_) axes_attr_ = init.attrs->GetInts("axes");
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const int64_t rank = x.rank();
    std::vector<int64_t> axes = axes_attr_;
    if (axes_from_input_ && ctx.input(1)) axes = ctx.input(1)->ToInt64Vector();
    std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty() && !noop_with_empty_axes_);
    for (int64_t a : axes) reduced[static_cast<size_t>(NormalizeAxis(a, rank))] = true;
    Shape out_shape;
    bool any_reduced = false;
    for (int64_t a = 0; a < rank; ++a) {
      if (!reduced[static_cast<size_t>(a)]) out_shape.push_back(x.dim(a));
      else if (keepdims_) out_shape.push_back(1);
      any_reduced = any_reduced || reduced[static_cast<size_t>(a)];
    }
    const bool identity = kind_ == ReduceKind::kSum || kind_ == ReduceKind::kMean || kind_ == ReduceKind::kMax ||
                          kind_ == ReduceKind::kMin || kind_ == ReduceKind::kProd;
    if (!any_reduced && identity) {
      ctx.outputs[0] = x;
      return;
    }
    const ReducePlan plan = PlanReduce(x.shape(), reduced);
    auto run = [&](auto e) { ctx.outputs[0] = RunReduction<decltype(e)>(kind_, x, plan, out_shape); };
    if (kind_ == ReduceKind::kMax || kind_ == ReduceKind::kMin) {
      DispatchType<kNumericTypes | kBoolType>(x.dtype(), op_type_, "data", run);
    } else {
      DispatchType<kNumericTypes>(x.dtype(), op_type_, "data", run);
    }
  }

 private:
  std::string op_type_;
  ReduceKind kind_;
  bool keepdims_;
  bool noop_with_empty_axes_;
  bool axes_from_input_;
  std::vector<int64_t> axes_attr_;
};

}  // namespace

std::unique_ptr<Kernel> MakeReduceKernel(const KernelInit& init, ReduceKind kind) {
  return std::make_unique<Reduce>(init, kind);
}

}  // namespace ptq
