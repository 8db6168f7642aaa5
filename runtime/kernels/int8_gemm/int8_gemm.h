// Fast int8 GEMM: uint8/int8 A times a packed uint8/int8 B with zero points, int32 or requantized output.
// The kernels behind MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv; int_matmul_reference.h
// is the oracle every path is tested against bit for bit.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/kernels/row_finish.h"

namespace ptq {

// The kernels of one instruction set. All give identical results.
enum class Int8Isa {
  kScalar,      // portable C++
  kAvx2,        // AVX2 vpmaddwd on values widened to int16 (exact: a pair sum is at most 2 * 255 * 128)
  kAvxVnni,     // AVX-VNNI vpdpbusd on ymm
  kAvx512Vnni,  // AVX-512 VNNI vpdpbusd on zmm
};

// The best instruction set GetCpuFeatures() allows (PTQ_CPU applies).
Int8Isa BestInt8Isa();
const char* Int8IsaName(Int8Isa isa);
// Whether this CPU (with PTQ_CPU) can run `isa`.
bool Int8IsaAvailable(Int8Isa isa);

// B [K, N] in the layout of one instruction set's kernels, with its zero points folded in.
// Internally every value is made signed (a uint8 b becomes b - 128 and its zero point zp - 128, which
// leaves b - zp unchanged), and each column keeps
//   b_zero_point'[n] and col_adjust[n] = sum_k b'[k][n] - K * b_zero_point'[n]   (int32, wrapping).
// The data is split into panels of 16 columns (zero padded); a panel holds `k_steps` steps of 64
// bytes: 4 consecutive k of each of the 16 columns (VNNI, scalar) or 2 k widened to int16 (AVX2).
class PackedInt8B {
 public:
  static constexpr int64_t kPanelCols = 16;

  PackedInt8B() = default;
  // Packs b: element (k, n) is at b[k * ldb + n], or at b[n * ldb + k] when `transposed`.
  // b_zero_point holds N values (repeat the value for per tensor). Reuses this object's memory.
  // REQUIRES: K >= 0, N >= 0.
  void Pack(const void* b, bool b_signed, int64_t K, int64_t N, int64_t ldb, bool transposed,
            const int32_t* b_zero_point, Int8Isa isa);

  Int8Isa isa() const { return isa_; }
  int64_t K() const { return K_; }
  int64_t N() const { return N_; }
  int64_t k_steps() const { return k_steps_; }
  int64_t panels() const { return panels_; }
  int64_t panel_bytes() const { return 64 * k_steps_; }
  const int8_t* data() const { return data_.data(); }
  // Padded to panels() * 16 entries.
  const int32_t* b_zero_point() const { return b_zero_point_.data(); }
  const int32_t* col_adjust() const { return col_adjust_.data(); }
  bool any_b_zero_point() const { return any_b_zero_point_; }

 private:
  Int8Isa isa_ = Int8Isa::kScalar;
  int64_t K_ = 0, N_ = 0, k_steps_ = 0, panels_ = 0;
  std::vector<int8_t> data_;
  std::vector<int32_t> b_zero_point_;
  std::vector<int32_t> col_adjust_;
  bool any_b_zero_point_ = false;
};

// Rows of A read in place from a padded channels-last image, an im2row that is never written: with i = first_row + m,
// the K values of row m are `offsets.size()` runs of K / offsets.size() bytes (one per kernel tap), run t at
//   data + (i / line_rows) * line_stride + (i % line_rows) * lda + offsets[t]
// (output positions in lines of line_rows, lda bytes apart within a line; the first row where first_row says).
struct Int8GemmTaps {
  std::vector<int64_t> offsets;
  int64_t line_rows = 1;
  int64_t line_stride = 0;
  int64_t first_row = 0;
};

// Whether Int8Gemm reads A through taps for this B: uint8 A, runs of whole 4-byte groups, and kernels that
// read them (AVX-512 VNNI and the portable ones).
bool Int8GemmTakesTaps(const PackedInt8B& b, bool a_signed, int64_t taps);

// The left operand: M rows of K values, row m at data + m * lda (elements), or as `taps` say.
struct Int8GemmA {
  int64_t M = 0;
  const void* data = nullptr;
  bool is_signed = false;  // int8, else uint8
  int64_t lda = 0;
  // One value per row when zero_point_per_row, else one value.
  const int32_t* zero_point = nullptr;
  bool zero_point_per_row = false;
  // When set (Int8GemmTakesTaps must hold), the rows as Int8GemmTaps says, with lda their stride within a line.
  const Int8GemmTaps* taps = nullptr;
};

enum class Int8Output { kInt32, kUint8, kInt8, kFloat };


// What is stored. With acc[m][n] = sum_k (a[m][k] - a_zero_point[m]) * (b[k][n] - b_zero_point[n])
// + bias[n] (int32, wrapping modulo 2^32, as the reference kernels):
//   kInt32: c[m][n] = acc[m][n]
//   kUint8 / kInt8: c[m][n] = RequantizeValue(acc[m][n], multiplier[n], y_zero_point, qmin, qmax)
//   (runtime/quant_math.h: saturate(round_half_even(float(acc) * multiplier) + y_zero_point)).
//   kFloat: c[m][n] = float(acc[m][n]) * multiplier[n] + float_bias[n] (float32; two roundings, no FMA).
struct Int8GemmOut {
  Int8Output type = Int8Output::kInt32;
  void* data = nullptr;  // row m at data + m * ldc elements
  int64_t ldc = 0;
  const int32_t* bias = nullptr;      // N values, or nullptr
  const float* multiplier = nullptr;  // N values (8-bit and float outputs)
  int32_t y_zero_point = 0;
  const float* float_bias = nullptr;  // N values or nullptr (float output only)
  // Float output only, may be null: finish(row, n) on each row's n stored values by the thread that stored
  // them, a block of rows at a time while they are in cache (a fused activation).
  const FloatRowFinish* finish = nullptr;
  // Float output only, may be null: the values are then computed and finished in a small per-thread buffer, block of
  // rows by block, and handed to sink(values, n, at) with `at` their place from data on; nothing is written at data
  // (finish must not depend on where its values are). For outputs that only pass through float, as a convolution's
  // on their way to be quantized: stored, 4 bytes an output went to memory and back.
  const FloatRowSink* sink = nullptr;
};

// c = a * b as described above, with b packed for b.isa(). Uses OpenMP threads when the product is
// large enough and the caller is not already inside a parallel region; results do not depend on it.
// REQUIRES: Int8IsaAvailable(b.isa()); a.M >= 0; K of a equals b.K(); c does not overlap a.
void Int8Gemm(const Int8GemmA& a, const PackedInt8B& b, const Int8GemmOut& out);

// The work Int8Gemm weighs before sharing an M x N x K product between threads (from kInt8ParallelWork on):
// its multiply-adds, each output as 16 of them, or as 128 when a finishing step runs on it, and each byte of A
// (packed per call) as 16. PP-OCR rec's 1 x 1 of 16 to 32 channels on 24 x 160 positions (2 M multiply-adds) spent
// most of its 0.1 ms in its 8-step finish on one thread; its 3 x 3 stem of 3 to 16 channels (1.7 M) took 0.09 ms.
inline int64_t Int8GemmWork(int64_t M, int64_t N, int64_t K, bool finish) {
  return M * N * (K + (finish ? 128 : 16)) + M * K * 16;
}
// Splitting a 1 x 768 x 768 product (0.6 M multiply-adds) costs more in thread wake-up than it saves.
constexpr int64_t kInt8ParallelWork = int64_t{1} << 22;

}  // namespace ptq
