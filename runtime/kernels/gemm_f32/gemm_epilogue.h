// What a float GEMM does to each element of C after the product: a per-row or per-column bias, a matrix
// added at the end (a residual), then a clamp (a fused Relu or Clip), so that a convolution writes its
// output once.
#pragma once

namespace ptq {

// With beta == 0: y = alpha * sum + row_bias[m] or + col_bias[n], the same bits as beta = 1 over a C holding
// that bias (a convolution has one of them: per output channel along rows, or along columns when
// channels last); once the whole sum is in C, + sum[m * ld_sum + n] (the residual Add after a
// convolution: the same bits as adding it afterwards); then, when `clamp`, y = (y < lo ? lo : y), y = (hi < y ? hi : y) as the Clip kernel computes it (NaN
// stays NaN). T is float or double.
template <class T>
struct GemmEpilogue {
  const T* row_bias = nullptr;  // M values, or nullptr
  const T* col_bias = nullptr;  // N values, or nullptr (output channels along columns: channels last)
  const T* sum = nullptr;       // an M x N matrix with row stride ld_sum, or nullptr
  int64_t ld_sum = 0;
  bool clamp = false;
  T lo = T(0), hi = T(0);

  bool any() const { return row_bias != nullptr || col_bias != nullptr || sum != nullptr || clamp; }
};

}  // namespace ptq
