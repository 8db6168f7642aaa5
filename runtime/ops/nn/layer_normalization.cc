// LayerNormalization kernel: two passes over each contiguous row for the statistics, one to write
// (float32 rows also compiled for AVX2).
#include "runtime/ops/nn/layer_normalization.h"

#include <cmath>
#include <string>
#include <vector>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

// `param` (Scale or B) broadcast (numpy rules, aligned right) to the normalized shape and
// flattened to n values of compute type C. Points into the tensor when it already holds exactly
// that (same type, n elements); otherwise expands into `storage`.
template <class C>
const C* ExpandParam(const Tensor& param, const Shape& normalized, const char* name, std::vector<C>& storage) {
  PTQ_ENFORCE(param.rank() <= static_cast<int64_t>(normalized.size()) &&
                  BroadcastShapes(param.shape(), normalized) == normalized,
              "LayerNormalization: input '", name, "' of shape ", ShapeToString(param.shape()),
              " does not broadcast to the normalized shape ", ShapeToString(normalized));
  const int64_t n = ShapeSize(normalized);
  if (param.dtype() == DataTypeOf<C>::value && param.size() == n) return param.data<C>();
  const std::vector<int64_t> strides = BroadcastStrides(param.shape(), normalized);
  storage.resize(static_cast<size_t>(n));
  std::vector<int64_t> index(normalized.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t offset = 0;
    for (size_t a = 0; a < index.size(); ++a) offset += index[a] * strides[a];
    storage[static_cast<size_t>(i)] = static_cast<C>(param.GetAsDouble(offset));
    for (size_t a = index.size(); a-- > 0;) {
      if (++index[a] < normalized[a]) break;
      index[a] = 0;
    }
  }
  return storage.data();
}

// Each of `rows` contiguous rows of n values:
//   mean = sum(x) / n;  inv_std = 1 / sqrt(sum((x - mean)^2) / n + epsilon)
//   y = (x - mean) * inv_std * scale + bias
// Always inlined, so that the AVX2 clone below compiles it (and the row loops) for AVX2; the row
// sums use kRowLanes fixed partial sums, so both compilations add in the same order.
template <class C>
__attribute__((always_inline)) inline void RowsLoop(const C* x, int64_t rows, int64_t n, const C* __restrict g,
                                                    const C* __restrict b, C epsilon, C* y, C* mean_out,
                                                    C* inv_out) {
  for (int64_t r = 0; r < rows; ++r) {
    const C* __restrict xr = x + r * n;
    C* __restrict yr = y + r * n;
    const C mean = RowSum(xr, n) / static_cast<C>(n);
    const C var = RowSumSquaredDiff(xr, n, mean) / static_cast<C>(n);
    const C inv_std = C(1) / std::sqrt(var + epsilon);
    for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - mean) * inv_std * g[i] + b[i];
    mean_out[r] = mean;
    inv_out[r] = inv_std;
  }
}

PTQ_TARGET_AVX2 void RowsAvx2(const float* x, int64_t rows, int64_t n, const float* g, const float* b, float epsilon,
                              float* y, float* mean_out, float* inv_out) {
  RowsLoop(x, rows, n, g, b, epsilon, y, mean_out, inv_out);
}

template <class C>
void Rows(const C* x, int64_t rows, int64_t n, const C* g, const C* b, C epsilon, C* y, C* mean_out, C* inv_out,
          bool avx2) {
  if constexpr (std::is_same<C, float>::value) {
    if (PTQ_HAS_AVX2_CLONES && avx2) return RowsAvx2(x, rows, n, g, b, epsilon, y, mean_out, inv_out);
  }
  RowsLoop(x, rows, n, g, b, epsilon, y, mean_out, inv_out);
}

class LayerNormalization final : public Kernel {
 public:
  explicit LayerNormalization(const KernelInit& init)
      : axis_(init.attrs->GetInt("axis", -1)), epsilon_(init.attrs->GetFloat("epsilon", 1e-5f)) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& scale = ctx.required_input(1);
    const Tensor* bias = ctx.input(2);
    const int64_t rank = x.rank();
    PTQ_ENFORCE(rank >= 1, "LayerNormalization: input 'X' must have rank >= 1, got a scalar");
    const int64_t axis = NormalizeAxis(axis_, rank);
    const Shape normalized(x.shape().begin() + axis, x.shape().end());
    const int64_t rows = SizeOfRange(x.shape(), 0, axis);
    const int64_t n = ShapeSize(normalized);
    // Mean and InvStdDev: X's shape with the normalized axes set to 1.
    Shape stat_shape(x.shape().begin(), x.shape().begin() + axis);
    stat_shape.resize(static_cast<size_t>(rank), 1);

    DispatchType<kFloatTypes>(x.dtype(), "LayerNormalization", "X", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      using StatE = std::conditional_t<std::is_same<C, double>::value, Elem<DataType::kDouble>, Elem<DataType::kFloat>>;
      std::vector<C> gamma_storage, beta_storage;
      const C* __restrict g = ExpandParam<C>(scale, normalized, "Scale", gamma_storage);
      if (!bias) beta_storage.assign(static_cast<size_t>(n), C(0));
      const C* __restrict b = bias ? ExpandParam<C>(*bias, normalized, "B", beta_storage) : beta_storage.data();
      ComputeView<E> in(x);
      Tensor mean_t = Tensor::Uninitialized(StatE::kType, stat_shape);
      Tensor inv_t = Tensor::Uninitialized(StatE::kType, stat_shape);
      auto* mean_out = mean_t.template data<typename StatE::Storage>();
      auto* inv_out = inv_t.template data<typename StatE::Storage>();
      const bool avx2 = UseAvx2Clone<C, C>();
      if constexpr (std::is_same<C, typename E::Storage>::value) {
        // float32 / float64: written in place (every element is written, so no zero fill).
        Tensor y = Tensor::Uninitialized(E::kType, x.shape());
        Rows(in.data(), rows, n, g, b, static_cast<C>(epsilon_), y.template data<C>(), mean_out, inv_out, avx2);
        ctx.outputs[0] = y;
      } else {
        ComputeOutput<E> out(x.shape());
        Rows(in.data(), rows, n, g, b, static_cast<C>(epsilon_), out.data(), mean_out, inv_out, avx2);
        ctx.outputs[0] = out.Finish();
      }
      if (ctx.outputs.size() > 1) ctx.outputs[1] = mean_t;
      if (ctx.outputs.size() > 2) ctx.outputs[2] = inv_t;
    });
  }

 private:
  int64_t axis_;
  float epsilon_;
};

}  // namespace

void LayerNormalizationRows(const float* x, int64_t rows, int64_t n, const float* scale, const float* bias,
                            float epsilon, float* y, float* mean, float* inv_std_dev, bool avx2) {
  Rows(x, rows, n, scale, bias, epsilon, y, mean, inv_std_dev, avx2);
}

std::unique_ptr<Kernel> MakeLayerNormalization(const KernelInit& init) { return MakeKernel<LayerNormalization>(init); }

}  // namespace ptq
