// Softmax and LogSoftmax kernels on float types: contiguous rows when the softmax axis is
// innermost, an [outer, n, inner] walk with inner-contiguous vectors otherwise.
#include "runtime/ops/math/softmax.h"

#include <cmath>
#include <string>
#include <vector>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

// Softmax:    y = e^(x - m) / s
// LogSoftmax: y = x - (m + log s)
// with m = max_j x_j and s = sum_j e^(x_j - m) over each row of n contiguous elements.
// Always inlined, so that the AVX2 clone below compiles it (and the row loops) for AVX2.
template <class T>
__attribute__((always_inline)) inline void SoftmaxRowsLoop(const T* x, T* y, int64_t rows, int64_t n, bool log,
                                                           T* tmp) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    const T m = RowMax(xr, n);
    T* e = log ? tmp : yr;
    RowExpShifted(xr, m, e, n);
    const T s = RowSum(e, n);
    if (log) {
      const T shift = m + std::log(s);
      for (int64_t i = 0; i < n; ++i) yr[i] = xr[i] - shift;
    } else {
      RowScale(yr, T(1) / s, n);
    }
  }
}

PTQ_TARGET_AVX2 void SoftmaxRowsAvx2(const float* x, float* y, int64_t rows, int64_t n, bool log, float* tmp) {
  SoftmaxRowsLoop(x, y, rows, n, log, tmp);
}
PTQ_TARGET_AVX512 void SoftmaxRowsAvx512(const float* x, float* y, int64_t rows, int64_t n, bool log, float* tmp) {
  SoftmaxRowsLoop(x, y, rows, n, log, tmp);
}

// Rows shared between threads in contiguous chunks when there are enough elements (each row is computed
// alone, so the split does not change a bit).
template <class T>
void SoftmaxRows(const T* x, T* y, int64_t rows, int64_t n, bool log) {
  ForEachChunk(rows, 1, ElementwiseThreads(rows * n), [&](int64_t r0, int64_t r1) {
    std::vector<T> tmp(log ? static_cast<size_t>(n) : 0);
    const T* xr = x + r0 * n;
    T* yr = y + r0 * n;
    if constexpr (std::is_same<T, float>::value) {
      if (UseAvx512Clone<float, float>()) return SoftmaxRowsAvx512(xr, yr, r1 - r0, n, log, tmp.data());
      if (UseAvx2Clone<float, float>()) return SoftmaxRowsAvx2(xr, yr, r1 - r0, n, log, tmp.data());
    }
    SoftmaxRowsLoop(xr, yr, r1 - r0, n, log, tmp.data());
  });
}

// The same formulas along the middle axis of [outer, n, inner], vectorised over inner; m and s hold inner
// values each. Always inlined, like SoftmaxRowsLoop, for the clones below.
template <class T>
__attribute__((always_inline)) inline void SoftmaxStridedLoop(const T* x, T* y, int64_t outer, int64_t n,
                                                              int64_t inner, bool log, T* __restrict pm,
                                                              T* __restrict ps) {
  for (int64_t o = 0; o < outer; ++o) {
    const T* xo = x + o * n * inner;
    T* yo = y + o * n * inner;
    for (int64_t i = 0; i < inner; ++i) pm[i] = -std::numeric_limits<T>::infinity();
    for (int64_t r = 0; r < n; ++r) {
      const T* __restrict xr = xo + r * inner;
      for (int64_t i = 0; i < inner; ++i) pm[i] = xr[i] > pm[i] ? xr[i] : pm[i];
    }
    for (int64_t i = 0; i < inner; ++i) ps[i] = 0;
    for (int64_t r = 0; r < n; ++r) {
      const T* __restrict xr = xo + r * inner;
      T* __restrict yr = yo + r * inner;
      for (int64_t i = 0; i < inner; ++i) {
        yr[i] = ExpOf(xr[i] - pm[i]);
        ps[i] += yr[i];
      }
    }
    if (log) {
      for (int64_t i = 0; i < inner; ++i) ps[i] = pm[i] + std::log(ps[i]);
      for (int64_t r = 0; r < n; ++r) {
        const T* __restrict xr = xo + r * inner;
        T* __restrict yr = yo + r * inner;
        for (int64_t i = 0; i < inner; ++i) yr[i] = xr[i] - ps[i];
      }
    } else {
      for (int64_t i = 0; i < inner; ++i) ps[i] = T(1) / ps[i];
      for (int64_t r = 0; r < n; ++r) {
        T* __restrict yr = yo + r * inner;
        for (int64_t i = 0; i < inner; ++i) yr[i] *= ps[i];
      }
    }
  }
}

PTQ_TARGET_AVX2 void SoftmaxStridedAvx2(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, bool log,
                                        float* m, float* s) {
  SoftmaxStridedLoop(x, y, outer, n, inner, log, m, s);
}
PTQ_TARGET_AVX512 void SoftmaxStridedAvx512(const float* x, float* y, int64_t outer, int64_t n, int64_t inner,
                                            bool log, float* m, float* s) {
  SoftmaxStridedLoop(x, y, outer, n, inner, log, m, s);
}

template <class T>
void SoftmaxStrided(const T* x, T* y, int64_t outer, int64_t n, int64_t inner, bool log) {
  std::vector<T> m(static_cast<size_t>(inner)), s(static_cast<size_t>(inner));
  if constexpr (std::is_same<T, float>::value) {
    if (UseAvx512Clone<float, float>()) return SoftmaxStridedAvx512(x, y, outer, n, inner, log, m.data(), s.data());
    if (UseAvx2Clone<float, float>()) return SoftmaxStridedAvx2(x, y, outer, n, inner, log, m.data(), s.data());
  }
  SoftmaxStridedLoop(x, y, outer, n, inner, log, m.data(), s.data());
}

class Softmax final : public Kernel {
 public:
  Softmax(const KernelInit& init, bool log)
      : op_type_(init.op_type),
        log_(log),
        coerce_2d_(init.opset < 13),
        axis_(init.attrs->GetInt("axis", init.opset < 13 ? 1 : -1)) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const int64_t rank = x.rank();
    int64_t outer, n, inner;
    if (coerce_2d_) {
      // axis may equal rank here (the trailing block is then empty: one element per row).
      PTQ_ENFORCE(axis_ >= -rank && axis_ <= rank, op_type_, ": attribute 'axis' is ", axis_,
                  ", out of range for input 'input' of rank ", rank);
      const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
      outer = SizeOfRange(x.shape(), 0, axis);
      n = SizeOfRange(x.shape(), axis, rank);
      inner = 1;
    } else {
      PTQ_ENFORCE(rank >= 1, op_type_, ": input 'input' must have rank >= 1, got a scalar");
      const int64_t axis = NormalizeAxis(axis_, rank);
      outer = SizeOfRange(x.shape(), 0, axis);
      n = x.dim(axis);
      inner = SizeOfRange(x.shape(), axis + 1, rank);
    }
    DispatchType<kFloatTypes>(x.dtype(), op_type_, "input", [&](auto e) {
      using E = decltype(e);
      ComputeView<E> in(x);
      ComputeOutput<E> out(x.shape());
      if (inner == 1) {
        SoftmaxRows(in.data(), out.data(), outer, n, log_);
      } else {
        SoftmaxStrided(in.data(), out.data(), outer, n, inner, log_);
      }
      ctx.outputs[0] = out.Finish();
    });
  }

 private:
  std::string op_type_;
  bool log_;
  bool coerce_2d_;
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeSoftmaxKernel(const KernelInit& init, bool log) {
  return std::make_unique<Softmax>(init, log);
}

std::unique_ptr<Kernel> MakeSoftmax(const KernelInit& init) { return MakeSoftmaxKernel(init, /*log=*/false); }

}  // namespace ptq
