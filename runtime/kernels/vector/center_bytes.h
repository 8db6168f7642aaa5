// Bytes to float minus a zero point (x - x_zero_point, exact): the int8 kernels that sum in float32 lanes.
#pragma once

#include <cstdint>

namespace ptq {

// dst[i] = x[i] - x_zero_point in float for i < n, x read as int8 (x_signed) or uint8. Every result is an integer
// of magnitude at most 510, so it is exact.
void CenterBytes(const uint8_t* x, bool x_signed, int32_t x_zero_point, int64_t n, float* dst);

}  // namespace ptq
