// TopK kernel (opsets 1-21): k from attribute 'k' (opset 1) or input 'K' (opset 10+); largest and
// sorted from opset 11. Results are always sorted (also when sorted = 0, which leaves the order
// open); equal values keep their input order (lower index first), NaN counts as the largest value.
#include "runtime/ops/math/top_k.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

template <class C>
bool IsNan(C v) {
  if constexpr (std::is_floating_point<C>::value) return std::isnan(v);
  else return false;
}

// Strict order of (value, index) pairs: by value (descending when largest, NaN above everything),
// then by index ascending.
template <class C>
struct TopKOrder {
  bool largest;
  bool operator()(const std::pair<C, int64_t>& a, const std::pair<C, int64_t>& b) const {
    const bool an = IsNan(a.first), bn = IsNan(b.first);
    if (an != bn) return largest ? an : bn;
    if (!an && a.first != b.first) return largest ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
  }
};

class TopK final : public Kernel {
 public:
  explicit TopK(const KernelInit& init)
      : opset_(init.opset),
        axis_(init.attrs->GetInt("axis", -1)),
        largest_(init.opset < 11 || init.attrs->GetInt("largest", 1) != 0),
        k_attr_(init.opset < 10 ? init.attrs->RequireInt("k") : 0) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const int64_t rank = x.rank();
    PTQ_ENFORCE(rank >= 1, "TopK: input 'X' must have rank >= 1, got a scalar");
    const int64_t axis = NormalizeAxis(axis_, rank);
    int64_t k = k_attr_;
    if (opset_ >= 10) {
      const Tensor& kt = ctx.required_input(1);
      PTQ_ENFORCE(kt.size() == 1, "TopK: input 'K' must hold one value, got shape ", ShapeToString(kt.shape()));
      k = kt.ToInt64Vector()[0];
    }
    const int64_t n = x.dim(axis);
    PTQ_ENFORCE(k >= 0 && k <= n, "TopK: k = ", k, " is outside [0, ", n, "], the size of axis ", axis,
                " of input 'X' (shape ", ShapeToString(x.shape()), ")");
    const int64_t outer = SizeOfRange(x.shape(), 0, axis);
    const int64_t inner = SizeOfRange(x.shape(), axis + 1, rank);
    Shape out_shape = x.shape();
    out_shape[static_cast<size_t>(axis)] = k;
    Tensor values(x.dtype(), out_shape), indices(DataType::kInt64, out_shape);
    int64_t* idx = indices.data<int64_t>();
    const size_t es = ElementSize(x.dtype());
    const char* src = static_cast<const char*>(x.raw());
    char* dst = static_cast<char*>(values.raw());
    DispatchType<kNumericTypes>(x.dtype(), "TopK", "X", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      ComputeView<E> in(x);
      std::vector<std::pair<C, int64_t>> items(static_cast<size_t>(n));
      const TopKOrder<C> order{largest_};
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t base = o * n * inner + i;
          for (int64_t r = 0; r < n; ++r) items[static_cast<size_t>(r)] = {in.data()[base + r * inner], r};
          std::partial_sort(items.begin(), items.begin() + k, items.end(), order);
          for (int64_t j = 0; j < k; ++j) {
            const int64_t from = base + items[static_cast<size_t>(j)].second * inner;
            const int64_t to = o * k * inner + j * inner + i;
            idx[to] = items[static_cast<size_t>(j)].second;
            std::copy(src + from * es, src + (from + 1) * es, dst + to * es);
          }
        }
      }
    });
    ctx.outputs[0] = values;
    if (ctx.outputs.size() > 1) ctx.outputs[1] = indices;
  }

 private:
  int opset_;
  int64_t axis_;
  bool largest_;
  int64_t k_attr_;
};

}  // namespace

std::unique_ptr<Kernel> MakeTopK(const KernelInit& init) { return MakeKernel<TopK>(init); }

}  // namespace ptq
