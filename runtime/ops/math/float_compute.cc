// Widening and narrowing of float16/bfloat16 tensors for kernels that compute in float32.
#include "runtime/ops/math/float_compute.h"

#include "runtime/float16.h"

namespace ptq {

Tensor WidenToFloat(const Tensor& x) {
  Tensor y(DataType::kFloat, x.shape());
  const uint16_t* in = x.data<uint16_t>();
  float* out = y.data<float>();
  const int64_t n = x.size();
  if (x.dtype() == DataType::kFloat16) {
    for (int64_t i = 0; i < n; ++i) out[i] = HalfToFloat(in[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = Bfloat16ToFloat(in[i]);
  }
  return y;
}

Tensor NarrowFromFloat(const Tensor& x, DataType dtype) {
  Tensor y(dtype, x.shape());
  const float* in = x.data<float>();
  uint16_t* out = y.data<uint16_t>();
  const int64_t n = x.size();
  if (dtype == DataType::kFloat16) {
    for (int64_t i = 0; i < n; ++i) out[i] = FloatToHalf(in[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = FloatToBfloat16(in[i]);
  }
  return y;
}

}  // namespace ptq
