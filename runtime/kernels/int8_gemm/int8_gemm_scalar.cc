// Portable int8 GEMM block kernel: plain loops over the VNNI layout (4 k per step), rows dense or by taps, any CPU.
#include <algorithm>
#include <cstring>

#include "runtime/kernels/int8_gemm/int8_gemm_kernels.h"
#include "runtime/quant_math.h"

namespace ptq {

void Int8BlockScalar(const Int8Block& blk) {
  constexpr int64_t kCols = PackedInt8B::kPanelCols;
  const DataType y_type = blk.out == Int8Output::kUint8 ? DataType::kUint8 : DataType::kInt8;
  const int32_t qmin = QuantMin(y_type);
  const int32_t qmax = QuantMax(y_type);
  for (int64_t p = 0; p < blk.panels; ++p) {
    const int8_t* panel = blk.b + p * blk.panel_bytes;
    const int64_t c0 = p * kCols;
    const int64_t cols = std::min(kCols, blk.cols - c0);
    for (int64_t r = 0; r < blk.rows; ++r) {
      const uint8_t* row = Int8BlockRow(blk, r);
      uint32_t acc[kCols] = {};
      for (int64_t s = 0; s < blk.k_steps; ++s) {
        // Step s of the row: its own 4 bytes, or byte (s % tap_steps) * 4 of tap s / tap_steps's run.
        const uint8_t* a = blk.tap_offset == nullptr ? row + 4 * s
                                                     : row + blk.tap_offset[s / blk.tap_steps] + 4 * (s % blk.tap_steps);
        const int8_t* b = panel + s * 64;
        for (int64_t c = 0; c < kCols; ++c) {
          int32_t dot = 0;
          for (int j = 0; j < 4; ++j) dot += int32_t{a[j]} * int32_t{b[4 * c + j]};
          acc[c] += static_cast<uint32_t>(dot);
        }
      }
      const uint32_t row_sum = static_cast<uint32_t>(blk.a_row_sum[r]);
      const uint32_t a_zp = static_cast<uint32_t>(blk.a_zero_point[r]);
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t n = c0 + c;
        const uint32_t v = acc[c] - static_cast<uint32_t>(blk.b_zero_point[n]) * row_sum -
                           a_zp * static_cast<uint32_t>(blk.col_adjust[n]) + static_cast<uint32_t>(blk.bias[n]);
        const int32_t value = static_cast<int32_t>(v);
        const int64_t at = r * blk.ldc + n;
        if (blk.out == Int8Output::kInt32) {
          static_cast<int32_t*>(blk.c)[at] = value;
        } else if (blk.out == Int8Output::kFloat) {
          static_cast<float*>(blk.c)[at] = static_cast<float>(value) * blk.multiplier[n] + blk.float_bias[n];
        } else {
          const int32_t q = RequantizeValue(value, blk.multiplier[n], blk.y_zero_point, qmin, qmax);
          if (blk.out == Int8Output::kUint8) {
            static_cast<uint8_t*>(blk.c)[at] = static_cast<uint8_t>(q);
          } else {
            static_cast<int8_t*>(blk.c)[at] = static_cast<int8_t>(q);
          }
        }
      }
    }
  }
}

}  // namespace ptq
