// Unique kernel (numpy.unique with return_index, return_inverse, return_counts). Without attribute
// axis the items are the elements of the flattened X; with it, the slices X[..., i, ...] along the
// axis, compared lexicographically in row-major order of the other axes. Outputs:
//   Y: the distinct items, ascending (sorted = 1, the default) or in order of first occurrence;
//   indices[k]: where Y's item k first occurs; inverse_indices[i]: the position in Y of item i;
//   counts[k]: how often Y's item k occurs (the last three int64).
// Floats compare numerically, with every NaN equal to every other and above all numbers.
#include "runtime/ops/tensor/unique.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

// -1, 0, 1 for a < b, a == b, a > b in the order above.
template <class C>
int Compare(C a, C b) {
  if constexpr (std::is_floating_point<C>::value) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  }
  return a < b ? -1 : (b < a ? 1 : 0);
}

class Unique : public Kernel {
 public:
  explicit Unique(const KernelInit& init)
      : has_axis_(init.attrs->Has("axis")),
        axis_(init.attrs->GetInt("axis", 0)),
        sorted_(init.attrs->GetInt("sorted", 1) != 0) {}

  void Run(KernelContext& ctx) override {
    const Tensor& input = ctx.required_input(0);
    const Tensor x = has_axis_ ? input : input.Reshaped({input.size()});
    const int64_t axis = has_axis_ ? NormalizeAxis(axis_, x.rank()) : 0;
    const int64_t outer = SizeOfRange(x.shape(), 0, axis), n = x.dim(axis);
    const int64_t inner = SizeOfRange(x.shape(), axis + 1, x.rank());
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::vector<int64_t> group_of(static_cast<size_t>(n));  // item -> group (in sorted order)
    std::vector<int64_t> group_first;                       // group -> first item
    // Bool items compare as bytes normalized to 0/1 (a model's bool may hold any non-zero byte).
    Tensor keys = x;
    if (x.dtype() == DataType::kBool) {
      keys = Tensor::Uninitialized(DataType::kUint8, x.shape());
      for (int64_t i = 0; i < x.size(); ++i) {
        keys.data<uint8_t>()[i] = static_cast<const uint8_t*>(x.raw())[i] != 0 ? 1 : 0;
      }
    }
    DispatchType<kNumericTypes>(keys.dtype(), "Unique", "X", [&](auto e) {
      using E = decltype(e);
      ComputeView<E> view(keys);
      const auto* p = view.data();
      // Lexicographic comparison of items i and j.
      auto cmp = [&](int64_t i, int64_t j) {
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t k = 0; k < inner; ++k) {
            const int c = Compare(p[(o * n + i) * inner + k], p[(o * n + j) * inner + k]);
            if (c != 0) return c;
          }
        }
        return 0;
      };
      std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return cmp(i, j) < 0; });
      for (size_t r = 0; r < order.size(); ++r) {
        if (r == 0 || cmp(order[r - 1], order[r]) != 0) group_first.push_back(order[r]);
        group_of[static_cast<size_t>(order[r])] = static_cast<int64_t>(group_first.size()) - 1;
      }
    });
    const int64_t groups = static_cast<int64_t>(group_first.size());
    // rank[g]: the output position of group g.
    std::vector<int64_t> rank(static_cast<size_t>(groups));
    std::iota(rank.begin(), rank.end(), 0);
    if (!sorted_) {
      std::vector<int64_t> by_first(rank);
      std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) {
        return group_first[static_cast<size_t>(a)] < group_first[static_cast<size_t>(b)];
      });
      for (int64_t pos = 0; pos < groups; ++pos) rank[static_cast<size_t>(by_first[static_cast<size_t>(pos)])] = pos;
    }
    Shape y_shape = x.shape();
    y_shape[static_cast<size_t>(axis)] = groups;
    Tensor y = Tensor::Uninitialized(x.dtype(), y_shape);
    Tensor indices = Tensor::Uninitialized(DataType::kInt64, {groups});
    Tensor inverse = Tensor::Uninitialized(DataType::kInt64, {n});
    Tensor counts(DataType::kInt64, {groups});
    const size_t block = static_cast<size_t>(inner) * ElementSize(x.dtype());
    const char* src = static_cast<const char*>(x.raw());
    char* dst = static_cast<char*>(y.raw());
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t pos = rank[static_cast<size_t>(g)], first = group_first[static_cast<size_t>(g)];
      indices.data<int64_t>()[pos] = first;
      for (int64_t o = 0; o < outer && block > 0; ++o) {
        std::memcpy(dst + static_cast<size_t>(o * groups + pos) * block,
                    src + static_cast<size_t>(o * n + first) * block, block);
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t pos = rank[static_cast<size_t>(group_of[static_cast<size_t>(i)])];
      inverse.data<int64_t>()[i] = pos;
      ++counts.data<int64_t>()[pos];
    }
    Tensor* outs[] = {&y, &indices, &inverse, &counts};
    for (size_t i = 0; i < ctx.outputs.size() && i < 4; ++i) ctx.outputs[i] = std::move(*outs[i]);
  }

 private:
  bool has_axis_;
  int64_t axis_;
  bool sorted_;
};

}  // namespace

std::unique_ptr<Kernel> MakeUnique(const KernelInit& init) { return MakeKernel<Unique>(init); }

}  // namespace ptq
