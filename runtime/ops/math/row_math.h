// Loops over contiguous rows shared by the softmax, normalization and reduction kernels, written
// so that compilers vectorise them (independent partial accumulators, no per-element index math),
// and the float16/bfloat16 widening those kernels compute through.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/ops/math/elementwise.h"
#include "runtime/kernels/vector/vector_math.h"
#include "runtime/tensor.h"

namespace ptq {

// Row loops are always inlined, so that they are compiled for the ISA of their caller (see
// PTQ_TARGET_AVX2 in elementwise.h).
#define PTQ_ALWAYS_INLINE __attribute__((always_inline)) inline

// Number of independent accumulators of the row reductions (two SSE/one AVX vector of float).
constexpr int kRowLanes = 8;

// max_i x[i]; -inf when n == 0. NaN elements are skipped unless every element is NaN.
template <class T>
PTQ_ALWAYS_INLINE T RowMax(const T* __restrict x, int64_t n) {
  T acc[kRowLanes];
  for (int j = 0; j < kRowLanes; ++j) acc[j] = -std::numeric_limits<T>::infinity();
  int64_t i = 0;
  for (; i + kRowLanes <= n; i += kRowLanes) {
    for (int j = 0; j < kRowLanes; ++j) acc[j] = x[i + j] > acc[j] ? x[i + j] : acc[j];
  }
  T m = -std::numeric_limits<T>::infinity();
  for (int j = 0; j < kRowLanes; ++j) m = acc[j] > m ? acc[j] : m;
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

// sum_i x[i]
template <class T>
PTQ_ALWAYS_INLINE T RowSum(const T* __restrict x, int64_t n) {
  T acc[kRowLanes] = {};
  int64_t i = 0;
  for (; i + kRowLanes <= n; i += kRowLanes) {
    for (int j = 0; j < kRowLanes; ++j) acc[j] += x[i + j];
  }
  T s = 0;
  for (int j = 0; j < kRowLanes; ++j) s += acc[j];
  for (; i < n; ++i) s += x[i];
  return s;
}

// sum_i (x[i] - c)^2
template <class T>
PTQ_ALWAYS_INLINE T RowSumSquaredDiff(const T* __restrict x, int64_t n, T c) {
  T acc[kRowLanes] = {};
  int64_t i = 0;
  for (; i + kRowLanes <= n; i += kRowLanes) {
    for (int j = 0; j < kRowLanes; ++j) {
      const T d = x[i + j] - c;
      acc[j] += d * d;
    }
  }
  T s = 0;
  for (int j = 0; j < kRowLanes; ++j) s += acc[j];
  for (; i < n; ++i) s += (x[i] - c) * (x[i] - c);
  return s;
}

// e^x: the vectorisable float32 approximation (within 2 ulp), std::exp for double.
PTQ_ALWAYS_INLINE float ExpOf(float x) { return VecExp(x); }
inline double ExpOf(double x) { return std::exp(x); }

// y[i] = e^(x[i] - c)
template <class T>
PTQ_ALWAYS_INLINE void RowExpShifted(const T* __restrict x, T c, T* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = ExpOf(x[i] - c);
}

// y[i] *= s
template <class T>
PTQ_ALWAYS_INLINE void RowScale(T* __restrict y, T s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] *= s;
}

// The elements of a tensor of element type E in E's compute type (float for float16/bfloat16).
// When storage and compute types agree this is a pointer into the tensor, else a widened copy.
template <class E>
class ComputeView {
 public:
  using C = typename E::Compute;
  using S = typename E::Storage;
  explicit ComputeView(const Tensor& t) {
    if constexpr (std::is_same<C, S>::value) {
      data_ = t.data<S>();
    } else {
      const S* in = t.data<S>();
      copy_.resize(static_cast<size_t>(t.size()));
      for (size_t i = 0; i < copy_.size(); ++i) copy_[i] = E::Load(in[i]);
      data_ = copy_.data();
    }
  }
  const C* data() const { return data_; }

 private:
  const C* data_ = nullptr;
  std::vector<C> copy_;
};

// A tensor of element type E and the given shape, written through a compute-type buffer: a
// pointer into the tensor when storage and compute types agree, else a buffer that Finish()
// narrows into the tensor. Call Finish() once, after writing data().
template <class E>
class ComputeOutput {
 public:
  using C = typename E::Compute;
  using S = typename E::Storage;
  explicit ComputeOutput(Shape shape) : tensor_(E::kType, std::move(shape)) {
    if constexpr (std::is_same<C, S>::value) {
      data_ = tensor_.data<S>();
    } else {
      buffer_.resize(static_cast<size_t>(tensor_.size()));
      data_ = buffer_.data();
    }
  }
  C* data() { return data_; }
  Tensor Finish() {
    if constexpr (!std::is_same<C, S>::value) {
      S* out = tensor_.data<S>();
      for (size_t i = 0; i < buffer_.size(); ++i) out[i] = E::Store(buffer_[i]);
    }
    return tensor_;
  }

 private:
  Tensor tensor_;
  C* data_ = nullptr;
  std::vector<C> buffer_;
};

}  // namespace ptq
