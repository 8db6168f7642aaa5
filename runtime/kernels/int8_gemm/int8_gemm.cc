// Int8 GEMM driver: instruction-set choice, packing of B (once) and A (per call), the split into threads.
#include "runtime/kernels/int8_gemm/int8_gemm.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "runtime/cpu_features.h"
#include "runtime/error.h"
#include "runtime/kernels/aligned_vector.h"
#include "runtime/kernels/grow_only.h"
#include "runtime/kernels/int8_gemm/int8_gemm_kernels.h"
#include "runtime/kernels/shared_zeros.h"
#include "runtime/quant_math.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

// Threads' rows start at multiples of the tallest tile (6 rows).
constexpr int64_t kRowQuantum = 6;

int64_t KPerStep(Int8Isa isa) { return isa == Int8Isa::kAvx2 ? 2 : 4; }

using BlockFn = void (*)(const Int8Block&);

BlockFn BlockFunction(Int8Isa isa) {
  switch (isa) {
    case Int8Isa::kAvx512Vnni: return Int8BlockAvx512Vnni;
    case Int8Isa::kAvxVnni: return Int8BlockAvxVnni;
    case Int8Isa::kAvx2: return Int8BlockAvx2;
    case Int8Isa::kScalar: break;
  }
  return Int8BlockScalar;
}

// a' = a for uint8, a + 128 for int8 (flipping the sign bit), as an unsigned byte.
template <bool kSigned>
inline uint8_t Unsigned(const void* row, int64_t k) {
  return kSigned ? static_cast<uint8_t>(static_cast<const uint8_t*>(row)[k] ^ 0x80u)
                 : static_cast<const uint8_t*>(row)[k];
}

// Packs row a (K values) into dst as a' in k_steps 4-byte groups, zero padded; returns sum_k a'.
template <bool kSigned>
int32_t PackRow(const void* a, int64_t K, int64_t padded, uint8_t* dst) {
  int32_t sum = 0;
  for (int64_t k = 0; k < K; ++k) dst[k] = Unsigned<kSigned>(a, k);
  for (int64_t k = 0; k < K; ++k) sum += dst[k];
  std::fill(dst + K, dst + padded, uint8_t{0});
  return sum;
}

int32_t RowSum(const uint8_t* row, int64_t K) {
  int32_t sum = 0;
  for (int64_t k = 0; k < K; ++k) sum += row[k];
  return sum;
}

// Per-call scratch, one per thread (a GEMM may run inside another op's parallel loop).
struct Scratch {
  std::vector<uint8_t> a;
  std::vector<int32_t> row_sum;
  std::vector<int32_t> a_zero_point;
  std::vector<int32_t> bias;
  std::vector<float> multiplier;
  std::vector<float> float_bias;
};

Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

}  // namespace

Int8Isa BestInt8Isa() {
  const CpuFeatures& f = GetCpuFeatures();
  if (f.avx512_vnni && f.avx512f) return Int8Isa::kAvx512Vnni;
  if (f.avx_vnni && f.avx2_fma) return Int8Isa::kAvxVnni;
  if (f.avx2_fma) return Int8Isa::kAvx2;
  return Int8Isa::kScalar;
}

bool Int8IsaAvailable(Int8Isa isa) {
  const CpuFeatures& f = GetCpuFeatures();
  switch (isa) {
    case Int8Isa::kAvx512Vnni: return f.avx512_vnni && f.avx512f;
    case Int8Isa::kAvxVnni: return f.avx_vnni && f.avx2_fma;
    case Int8Isa::kAvx2: return f.avx2_fma;
    case Int8Isa::kScalar: break;
  }
  return true;
}

bool Int8GemmTakesTaps(const PackedInt8B& b, bool a_signed, int64_t taps) {
  const Int8Isa isa = b.isa();
  return !a_signed && taps > 0 && b.K() % (4 * taps) == 0 && (isa == Int8Isa::kAvx512Vnni || isa == Int8Isa::kScalar);
}

const char* Int8IsaName(Int8Isa isa) {
  switch (isa) {
    case Int8Isa::kAvx512Vnni: return "avx512-vnni";
    case Int8Isa::kAvxVnni: return "avx-vnni";
    case Int8Isa::kAvx2: return "avx2";
    case Int8Isa::kScalar: break;
  }
  return "scalar";
}

void PackedInt8B::Pack(const void* b, bool b_signed, int64_t K, int64_t N, int64_t ldb, bool transposed,
                       const int32_t* b_zero_point, Int8Isa isa) {
  isa_ = isa;
  K_ = K;
  N_ = N;
  const int64_t per_step = KPerStep(isa);  // 4 (bytes) or 2 (int16) k per 64-byte step
  k_steps_ = (K + per_step - 1) / per_step;
  panels_ = (N + kPanelCols - 1) / kPanelCols;
  data_.assign(static_cast<size_t>(panels_ * panel_bytes()), 0);
  b_zero_point_.assign(static_cast<size_t>(panels_ * kPanelCols), 0);
  col_adjust_.assign(static_cast<size_t>(panels_ * kPanelCols), 0);
  any_b_zero_point_ = false;
  const auto* bytes = static_cast<const uint8_t*>(b);
  const int32_t shift = b_signed ? 0 : 128;
  const uint8_t flip = b_signed ? 0 : 0x80;  // b' = b - 128 for uint8: the byte with its sign bit flipped
  const int64_t k_stride = transposed ? 1 : ldb;
  const int64_t n_stride = transposed ? ldb : 1;
  const bool wide = isa == Int8Isa::kAvx2;
  for (int64_t n = 0; n < N; ++n) {
    const uint8_t* column = bytes + n * n_stride;
    int8_t* dst = data_.data() + (n / kPanelCols) * panel_bytes() + (n % kPanelCols) * 4;
    uint32_t sum = 0;
    for (int64_t k = 0; k < K; ++k) {
      const int8_t v = static_cast<int8_t>(column[k * k_stride] ^ flip);
      sum += static_cast<uint32_t>(static_cast<int32_t>(v));
      if (wide) {  // step k / 2 holds k's value as int16 at byte 2 * (k % 2) of the column's 4 bytes
        const int16_t w = v;
        std::memcpy(dst + (k >> 1) * 64 + 2 * (k & 1), &w, sizeof(w));
      } else {
        dst[(k >> 2) * 64 + (k & 3)] = v;
      }
    }
    const int32_t zp = b_zero_point[n] - shift;
    b_zero_point_[static_cast<size_t>(n)] = zp;
    any_b_zero_point_ = any_b_zero_point_ || zp != 0;
    col_adjust_[static_cast<size_t>(n)] = static_cast<int32_t>(sum - static_cast<uint32_t>(K) * static_cast<uint32_t>(zp));
  }
}

namespace {

// Rows [r0, r1) and panels [p0, p1) of base (elem: bytes of an output).
Int8Block SubBlock(const Int8Block& base, int64_t r0, int64_t r1, int64_t p0, int64_t p1, int64_t elem) {
  const int64_t c0 = p0 * PackedInt8B::kPanelCols;
  Int8Block blk = base;
  if (base.tap_offset != nullptr) {
    blk.row0 = base.row0 + r0;  // rows are found from the GEMM's base
  } else {
    blk.a = base.a + r0 * base.a_row_bytes;
  }
  blk.a_row_sum = base.a_row_sum + r0;
  blk.a_zero_point = base.a_zero_point + r0;
  blk.rows = r1 - r0;
  blk.b = base.b + p0 * base.panel_bytes;
  blk.panels = p1 - p0;
  blk.cols = std::min(blk.panels * PackedInt8B::kPanelCols, base.cols - c0);
  blk.b_zero_point = base.b_zero_point + c0;
  blk.col_adjust = base.col_adjust + c0;
  blk.bias = base.bias + c0;
  if (base.multiplier != nullptr) blk.multiplier = base.multiplier + c0;
  if (base.float_bias != nullptr) blk.float_bias = base.float_bias + c0;
  blk.c = static_cast<uint8_t*>(base.c) + (r0 * base.ldc + c0) * elem;
  return blk;
}

// Rows [r0, r1) and panels [p0, p1) of base, computed; with `finish` or `sink`, in blocks of rows of about 16 Ki
// float outputs (64 KiB), each finished while in cache (Int8GemmOut). A thread's half of PP-OCRv4 detector's 1 x 1 of
// 16 to 32 channels at batch 8 computed whole before its finish was 52 MB of floats, stored, then read back: 1.2x
// faster on two threads than on one.
void RunFinished(void (*run)(const Int8Block&), const Int8Block& base, int64_t r0, int64_t r1, int64_t p0, int64_t p1,
                 int64_t elem, const FloatRowFinish* finish, const FloatRowSink* sink) {
  if (finish == nullptr && sink == nullptr) {
    run(SubBlock(base, r0, r1, p0, p1, elem));
    return;
  }
  const int64_t cols = std::min(p1 * PackedInt8B::kPanelCols, base.cols) - p0 * PackedInt8B::kPanelCols;
  const int64_t rows = std::max<int64_t>(kRowQuantum, (int64_t{16} << 10) / cols / kRowQuantum * kRowQuantum);
  thread_local AlignedVector<float> buffer;
  if (sink != nullptr && static_cast<int64_t>(buffer.size()) < rows * cols) {
    buffer.resize(static_cast<size_t>(rows * cols));
  }
  for (int64_t b0 = r0; b0 < r1; b0 += rows) {
    Int8Block blk = SubBlock(base, b0, std::min(r1, b0 + rows), p0, p1, elem);
    const auto* at = static_cast<const float*>(blk.c);
    const int64_t ldc = blk.ldc;
    if (sink != nullptr) {
      blk.c = buffer.data();
      blk.ldc = blk.cols;
    }
    run(blk);
    if (finish != nullptr && blk.ldc == blk.cols) {  // whole rows, one after the other
      (*finish)(static_cast<float*>(blk.c), blk.rows * blk.cols);
    } else if (finish != nullptr) {
      for (int64_t r = 0; r < blk.rows; ++r) (*finish)(static_cast<float*>(blk.c) + r * blk.ldc, blk.cols);
    }
    if (sink == nullptr) continue;
    if (ldc == blk.cols) {
      (*sink)(buffer.data(), blk.rows * blk.cols, at);
    } else {
      for (int64_t r = 0; r < blk.rows; ++r) (*sink)(buffer.data() + r * blk.cols, blk.cols, at + r * ldc);
    }
  }
}

}  // namespace

void Int8Gemm(const Int8GemmA& a, const PackedInt8B& b, const Int8GemmOut& out) {
  const int64_t M = a.M;
  const int64_t N = b.N();
  const int64_t K = b.K();
  if (M == 0 || N == 0) return;
  const Int8Isa isa = b.isa();
  PTQ_ENFORCE(Int8IsaAvailable(isa), "int8 GEMM: this CPU cannot run ", Int8IsaName(isa), " kernels");
  Scratch& s = ThreadScratch();

  // A: used in place when it already is the kernels' layout (uint8 bytes, whole 4-byte groups), as taps always are.
  const Int8GemmTaps* taps = a.taps;
  const int64_t tap_count = taps != nullptr ? static_cast<int64_t>(taps->offsets.size()) : 0;
  PTQ_ENFORCE(taps == nullptr || Int8GemmTakesTaps(b, a.is_signed, tap_count),
              "int8 GEMM: the ", Int8IsaName(isa), " kernels cannot read these taps");
  const bool wide = isa == Int8Isa::kAvx2;
  const bool in_place = taps != nullptr || (!wide && !a.is_signed && K % 4 == 0);
  const int64_t row_bytes = 4 * b.k_steps();
  const auto* src = static_cast<const uint8_t*>(a.data);
  GrowTo(s.row_sum, M);
  if (!in_place) GrowTo(s.a, M * row_bytes);
  const uint8_t* packed_a = in_place ? src : s.a.data();
  const int64_t a_row_bytes = in_place ? a.lda : row_bytes;
  int32_t* const row_sum = s.row_sum.data();
  uint8_t* const a_out = s.a.data();
  // Rows [r0, r1) of A into the kernels' layout, with their sums.
  auto pack_rows = [&, src](int64_t r0, int64_t r1) {
    if (taps != nullptr) {
      if (b.any_b_zero_point()) {
        const int64_t run = K / tap_count;
        for (int64_t m = r0; m < r1; ++m) {
          const uint8_t* row = src + TapRowOffset(taps->first_row + m, taps->line_rows, taps->line_stride, a.lda);
          int32_t sum = 0;
          for (const int64_t offset : taps->offsets) sum += RowSum(row + offset, run);
          row_sum[m] = sum;
        }
      }
    } else if (in_place) {
      if (b.any_b_zero_point()) {
        for (int64_t m = r0; m < r1; ++m) row_sum[m] = RowSum(src + m * a.lda, K);
      }
    } else if (wide) {  // uint16 values (AVX2 kernels)
      PackRowsWideAvx2(src + r0 * a.lda, a.lda, a.is_signed, r1 - r0, K, row_bytes, a_out + r0 * row_bytes,
                       row_sum + r0);
    } else {
      for (int64_t m = r0; m < r1; ++m) {
        const uint8_t* row = src + m * a.lda;
        uint8_t* dst = a_out + m * row_bytes;
        row_sum[m] = a.is_signed ? PackRow<true>(row, K, row_bytes, dst) : PackRow<false>(row, K, row_bytes, dst);
      }
    }
  };
  const int64_t padded_cols = b.panels() * PackedInt8B::kPanelCols;
  s.bias.assign(static_cast<size_t>(padded_cols), 0);
  if (out.bias != nullptr) std::copy(out.bias, out.bias + N, s.bias.begin());
  // One zero point for all rows (per-tensor activations): its term a_zp * col_adjust[n] is taken off the bias
  // once (int32 wrapping, as the kernels subtract it) and the kernels see zero, instead of a multiply per output.
  // The kernels then read zeros shared by all calls: filling a scratch vector with them on every call was 15% of
  // RegNet-Y-800MF int8 at batch 8 (a fill as long as the largest GEMM's rows for each group's small one).
  const int32_t* a_zero_point = static_cast<const int32_t*>(SharedZeros(static_cast<size_t>(M) * sizeof(int32_t)));
  const int32_t a_shift = a.is_signed ? 128 : 0;
  if (a.zero_point_per_row) {
    GrowTo(s.a_zero_point, M);
    for (int64_t m = 0; m < M; ++m) s.a_zero_point[static_cast<size_t>(m)] = a.zero_point[m] + a_shift;
    a_zero_point = s.a_zero_point.data();
  } else {
    const uint32_t a_zp = static_cast<uint32_t>(a.zero_point[0] + a_shift);
    for (int64_t n = 0; n < N; ++n) {
      int32_t& bias = s.bias[static_cast<size_t>(n)];
      bias = static_cast<int32_t>(static_cast<uint32_t>(bias) - a_zp * static_cast<uint32_t>(b.col_adjust()[n]));
    }
  }
  Int8Block base;
  if (out.type != Int8Output::kInt32) {
    s.multiplier.assign(static_cast<size_t>(padded_cols), 0.0f);
    std::copy(out.multiplier, out.multiplier + N, s.multiplier.begin());
    const DataType t = out.type == Int8Output::kUint8 ? DataType::kUint8 : DataType::kInt8;
    base.lo = static_cast<float>(QuantMin(t) - out.y_zero_point);
    base.hi = static_cast<float>(QuantMax(t) - out.y_zero_point);
    base.multiplier = s.multiplier.data();
  }
  if (out.type == Int8Output::kFloat) {
    s.float_bias.assign(static_cast<size_t>(padded_cols), 0.0f);
    if (out.float_bias != nullptr) std::copy(out.float_bias, out.float_bias + N, s.float_bias.begin());
    base.float_bias = s.float_bias.data();
  }
  base.a = packed_a;
  base.a_row_bytes = a_row_bytes;
  if (taps != nullptr) {
    base.tap_offset = taps->offsets.data();
    base.taps = tap_count;
    base.tap_steps = K / tap_count / 4;
    base.line_rows = taps->line_rows;
    base.line_stride = taps->line_stride;
    base.row0 = taps->first_row;
  }
  base.a_row_sum = s.row_sum.data();
  base.a_zero_point = a_zero_point;
  base.rows = M;
  base.b = b.data();
  base.panel_bytes = b.panel_bytes();
  base.panels = b.panels();
  base.k_steps = b.k_steps();
  base.cols = N;
  base.b_zero_point = b.b_zero_point();
  base.any_b_zero_point = b.any_b_zero_point();
  base.col_adjust = b.col_adjust();
  base.bias = s.bias.data();
  base.out = out.type;
  base.c = out.data;
  base.ldc = out.ldc;
  base.y_zero_point = out.y_zero_point;
  const BlockFn run = BlockFunction(isa);

  const int threads = InParallelRegion() ? 1 : omp_get_max_threads();
  const int64_t elem = out.type == Int8Output::kInt32 || out.type == Int8Output::kFloat ? 4 : 1;
  const FloatRowFinish* finish = out.type == Int8Output::kFloat ? out.finish : nullptr;
  const FloatRowSink* sink = out.type == Int8Output::kFloat ? out.sink : nullptr;
  if (threads <= 1 || Int8GemmWork(M, N, K, finish != nullptr || sink != nullptr) < kInt8ParallelWork) {
    pack_rows(0, M);
    RunFinished(run, base, 0, M, 0, b.panels(), elem, finish, sink);
    return;
  }
  // Threads share rows when A is the larger operand (each then reads all of B and its own rows of A), else
  // panels (each reads all of A and its own panels of B); in units of equal size (whole tiles of rows, whole
  // panels), kUnitsPerThread per thread. (Units of a fixed 48 rows x 4 panels gave one thread twice the other's
  // work when the panels were not a multiple of 8: 144 columns, 1.13x on two threads.)
  // Rows also when there are enough for every thread to take 8 tiles of them and B is small enough for every thread
  // to read it all: each thread then reads only the rows of A that it wrote in the layer before, where the panels
  // had each read all of A. Where the two vCPUs sit on two L3 caches, RegNet-Y-800MF int8 at batch 1 took 7.1-7.3 ms
  // on two threads instead of 7.5-7.7 (PP-OCR rec int8 6.3-6.4 instead of 6.5-6.6); on one L3, the same.
  const int64_t panels = b.panels();
  const int64_t quanta = (M + kRowQuantum - 1) / kRowQuantum;  // row blocks of whole tiles
  const bool by_rows = M >= N || panels < threads || (quanta >= 8 * threads && K * N <= (int64_t{512} << 10));
  const int64_t units = std::max<int64_t>(1, std::min<int64_t>(int64_t{threads} * kUnitsPerThread, by_rows ? quanta : panels));
  // Rows [r0, r1) of unit u (whole tiles but the last).
  auto unit_rows = [&](int64_t u, int64_t* r0, int64_t* r1) {
    *r0 = by_rows ? std::min(M, quanta * u / units * kRowQuantum) : 0;
    *r1 = by_rows ? std::min(M, quanta * (u + 1) / units * kRowQuantum) : M;
  };
  // A packed by all threads (a serial pass there left the other thread waiting: 5% of RegNet int8 on two
  // threads), each its own units' rows when they share rows one unit a thread; then the units.
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(static)
    for (int t = 0; t < threads; ++t) {
      int64_t r0 = M * t / threads, r1 = M * (t + 1) / threads;
      if (by_rows && units == threads) unit_rows(t, &r0, &r1);
      pack_rows(r0, r1);
    }
#pragma omp for schedule(static)
    for (int64_t u = 0; u < units; ++u) {
      // Rows [r0, r1) and panels [p0, p1) of unit u.
      int64_t r0, r1;
      unit_rows(u, &r0, &r1);
      const int64_t p0 = by_rows ? 0 : panels * u / units, p1 = by_rows ? panels : panels * (u + 1) / units;
      if (r0 < r1 && p0 < p1) RunFinished(run, base, r0, r1, p0, p1, elem, finish, sink);
    }
  }
}

}  // namespace ptq
