// The contract between the int8 GEMM driver (int8_gemm.cc) and its per-instruction-set block kernels.
#pragma once

#include <cstdint>

#include "runtime/kernels/int8_gemm/int8_gemm.h"

namespace ptq {

// A rectangle of the output: `rows` rows of packed A times `panels` panels of packed B.
// Packed A: row r starts at a + r * a_row_bytes and holds k_steps 32-bit groups of the (unsigned)
// values a' = a (+128 for int8): 4 bytes (VNNI, scalar) or 2 uint16 (AVX2); zero padded.
// Per row: a_row_sum[r] = sum_k a'[r][k], a_zero_point[r] = the row's zero point in the same terms (0 when the
// driver took a zero point shared by all rows off the bias instead).
// Per column (padded to whole panels, indexed from the block's first column): b_zero_point,
// col_adjust (PackedInt8B), bias (zeros when the GEMM has none) and, for 8-bit outputs, multiplier.
// Every element stored is
//   acc = sum_steps dot(a', b') - b_zero_point[n] * a_row_sum[r] - a_zero_point[r] * col_adjust[n] + bias[n]
// (int32, wrapping), then for 8-bit outputs r = round_half_even(float(acc) * multiplier[n]) clamped
// to [lo, hi] = [qmin - y_zero_point, qmax - y_zero_point], plus y_zero_point; for float outputs
// float(acc) * multiplier[n] + float_bias[n] (padded like multiplier).
// Only the first `cols` columns are stored; c points at the block's first element, rows ldc apart.
// With taps (tap_offset not null; Int8GemmTaps), row r of the block is row row0 + r of the GEMM and its k steps are
// `taps` runs of tap_steps steps, run t at a + RowOffset(row0 + r) + tap_offset[t], where RowOffset(m) =
// (m / line_rows) * line_stride + (m % line_rows) * a_row_bytes.
struct Int8Block {
  const uint8_t* a = nullptr;
  int64_t a_row_bytes = 0;
  const int64_t* tap_offset = nullptr;
  int64_t taps = 0, tap_steps = 0, row0 = 0, line_rows = 1, line_stride = 0;
  const int32_t* a_row_sum = nullptr;
  const int32_t* a_zero_point = nullptr;
  int64_t rows = 0;
  const int8_t* b = nullptr;
  int64_t panel_bytes = 0;
  int64_t panels = 0;
  int64_t k_steps = 0;
  int64_t cols = 0;
  const int32_t* b_zero_point = nullptr;
  bool any_b_zero_point = true;
  const int32_t* col_adjust = nullptr;
  const int32_t* bias = nullptr;
  const float* multiplier = nullptr;
  const float* float_bias = nullptr;
  Int8Output out = Int8Output::kInt32;
  void* c = nullptr;
  int64_t ldc = 0;
  float lo = 0.0f;
  float hi = 0.0f;
  int32_t y_zero_point = 0;
};

// The byte offset of row i of A read by taps (Int8GemmTaps): rows in lines of line_rows, lines line_stride apart, rows
// of a line lda apart.
inline int64_t TapRowOffset(int64_t i, int64_t line_rows, int64_t line_stride, int64_t lda) {
  return (i / line_rows) * line_stride + (i % line_rows) * lda;
}

// The first byte of the block's row r (of its first tap's run, with taps).
inline const uint8_t* Int8BlockRow(const Int8Block& blk, int64_t r) {
  if (blk.tap_offset == nullptr) return blk.a + r * blk.a_row_bytes;
  return blk.a + TapRowOffset(blk.row0 + r, blk.line_rows, blk.line_stride, blk.a_row_bytes);
}

// Packed A for the AVX2 kernels: row m of a (K bytes at a + m * lda; int8 values with their sign bit flipped,
// a + 128) widened to uint16 at dst + m * row_bytes, zero padded to row_bytes; row_sum[m] = the row's sum.
void PackRowsWideAvx2(const uint8_t* a, int64_t lda, bool is_signed, int64_t M, int64_t K, int64_t row_bytes,
                      uint8_t* dst, int32_t* row_sum);

// One function per instruction set; each computes the whole block. x86-64 only except the scalar one. Taps are read
// by the scalar and AVX-512 VNNI ones only.
void Int8BlockScalar(const Int8Block& block);
void Int8BlockAvx2(const Int8Block& block);
void Int8BlockAvxVnni(const Int8Block& block);
void Int8BlockAvx512Vnni(const Int8Block& block);

}  // namespace ptq
