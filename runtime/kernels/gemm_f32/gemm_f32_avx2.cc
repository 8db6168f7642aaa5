// Float32 GEMM: B packed into K x 16 panels, K and N blocking, OpenMP over tiles; the AVX2+FMA
// micro-kernels (6 x 16 ymm tiles) are in gemm_f32_avx2_tile.cc, the AVX-512 ones in gemm_f32_avx512.cc. Only these files'
// target("avx2,fma") / target("avx512f") functions use those instruction sets (no -mavx2), and they
// include no Eigen, so no inline function is compiled twice for different instruction sets.
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/kernels/gemm_f32/gemm_f32_tile.h"
#include "runtime/threading.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define PTQ_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace ptq {

F32Kernels BestF32Kernels() { return GetCpuFeatures().avx512f ? F32Kernels::kAvx512 : F32Kernels::kAvx2; }

int64_t F32GemmKBlock(int64_t K) {
  constexpr int64_t kMaxBlock = 256;  // one packed panel is 16 KiB, stays in L1 across a tile
  const int64_t blocks = (K + kMaxBlock - 1) / kMaxBlock;
  return (K + blocks - 1) / blocks;
}

#if defined(__x86_64__)
namespace {

constexpr int64_t kMr = kF32TileRows;
constexpr int64_t kNr = kF32PanelCols;
constexpr int64_t kNc = 256;  // N block: a packed kc x kNc block (256 KiB at most) stays in L2 (see RunShare)
constexpr int64_t kParallelMinMacs = int64_t{1} << 18;  // smaller products run on the calling thread
// A non-transposed B is read in place for few rows (packing would cost more than it saves) or when
// small (it then stays in L2 in its own layout; large strided blocks suffer set conflicts and TLB misses).
constexpr int64_t kInPlaceBMaxRows = 4 * kMr;
constexpr int64_t kInPlaceBMaxFloats = 64 * 1024;

// The arguments of GemmF32Avx2.
struct Problem {
  bool trans_a, trans_b;
  int64_t M, N, K;
  float alpha;
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  float beta;
  float* c;
  int64_t ldc;
  F32Kernels kernels;
  GemmEpilogue<float> epilogue;
  const float* const* b_rows;  // B(k, n) = b_rows[k][n] when set (not transposed; always packed)
  const float* prepacked;      // B packed by PackF32B (then b, b_rows and trans_b are not read)
  int64_t k_begin = 0, k_end = 0;  // the K blocks computed; a holds A's columns from k_begin on
};

// One N block times one K block: columns [n0, n0 + nc), k in [k0, k0 + kc).
struct Block {
  int64_t n0, nc, k0, kc;
  float* packed;        // kc x 16 panels, zero-padded, from panel first_panel on; nullptr: B in place
  int64_t first_panel;  // the block's panel (16 columns from n0 + 16 * panel) at packed[0]
};

// How many 16-column panels one tile spans: lone rows get wider tiles, for 8 independent FMA chains.
int64_t PanelsPerTile(F32Kernels kernels, int64_t M) {
  const int64_t avx2 = M == 1 ? 4 : M == 2 ? 2 : 1;
  return kernels == F32Kernels::kAvx512 ? 2 * avx2 : avx2;
}

// The tile of rows [m0, m0 + rows) by `panels` panels from `panel` of blk (fewer at the N edge), one K block.
F32Tile MakeTile(const Problem& p, const Block& blk, int64_t m0, int64_t rows, int64_t panel, int64_t panels) {
  const bool in_place = blk.packed == nullptr;
  const int64_t n0 = blk.n0 + panel * kNr;
  F32Tile t;
  t.trans_a = p.trans_a;
  t.lda = p.lda;
  const int64_t ka = blk.k0 - p.k_begin;  // the block's first column in a
  t.a = p.trans_a ? p.a + ka * p.lda + m0 : p.a + m0 * p.lda + ka;
  t.b_stride = in_place ? p.ldb : kNr;
  t.panel_stride = in_place ? kNr : blk.kc * kNr;
  t.b = in_place ? p.b + blk.k0 * p.ldb + n0 : blk.packed + (panel - blk.first_panel) * t.panel_stride;
  t.b_padded = !in_place;
  t.c = p.c + m0 * p.ldc + n0;
  t.ldc = p.ldc;
  t.kc = blk.kc;
  t.rows = rows;
  t.cols = std::min(panels * kNr, blk.n0 + blk.nc - n0);
  t.alpha = p.alpha;
  t.beta = p.beta;
  t.first = blk.k0 == 0;
  t.last = blk.k0 + blk.kc == p.K;
  t.row_bias = p.epilogue.row_bias ? p.epilogue.row_bias + m0 : nullptr;
  t.col_bias = p.epilogue.col_bias ? p.epilogue.col_bias + n0 : nullptr;
  t.sum = p.epilogue.sum ? p.epilogue.sum + m0 * p.epilogue.ld_sum + n0 : nullptr;
  t.ld_sum = p.epilogue.ld_sum;
  t.clamp = p.epilogue.clamp;
  t.lo = p.epilogue.lo;
  t.hi = p.epilogue.hi;
  return t;
}

void RunTile(const Problem& p, const F32Tile& t) {
  if (p.kernels == F32Kernels::kAvx512) {
    F32TileAvx512(t);
  } else {
    F32TileAvx2(t);
  }
}

// dst[k * 16 + i] = src[i * ld + k] for i, k < 8: an 8 x 8 transpose into a packed panel.
PTQ_AVX2 void Transpose8x8(const float* src, int64_t ld, float* dst) {
  __m256 r[8], t[8], u[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * ld);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);      // per 128-bit half: rows i, i+1 interleaved, k = 0, 1
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);  // k = 2, 3
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));          // rows i..i+3 at k = 0 | 4
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));      // k = 1 | 5
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));  // k = 2 | 6
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));  // k = 3 | 7
  }
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_ps(dst + k * kNr, _mm256_permute2f128_ps(u[k], u[k + 4], 0x20));
    _mm256_storeu_ps(dst + (k + 4) * kNr, _mm256_permute2f128_ps(u[k], u[k + 4], 0x31));
  }
}

// Packs panel `panel` of blk: dst[k * 16 + i] = B(k0 + k, n0 + i), zero for columns at or past N.
PTQ_AVX2 void PackPanel(const Problem& p, const Block& blk, int64_t panel) {
  const int64_t n0 = blk.n0 + panel * kNr;
  const int64_t cols = std::min(kNr, blk.n0 + blk.nc - n0);
  float* dst = blk.packed + (panel - blk.first_panel) * blk.kc * kNr;
  if (!p.trans_b) {  // B(k, n) = b[k * ldb + n]: rows of 16 contiguous floats
    const __m256i mask0 = F32FirstLanes(std::min<int64_t>(cols, 8));
    const __m256i mask1 = F32FirstLanes(std::max<int64_t>(cols - 8, 0));
    for (int64_t k = 0; k < blk.kc; ++k, dst += kNr) {
      const float* src = p.b_rows != nullptr ? p.b_rows[blk.k0 + k] + n0 : p.b + (blk.k0 + k) * p.ldb + n0;
      _mm256_storeu_ps(dst, cols >= 8 ? _mm256_loadu_ps(src) : _mm256_maskload_ps(src, mask0));
      const __m256 high = cols >= kNr ? _mm256_loadu_ps(src + 8)
                          : cols > 8  ? _mm256_maskload_ps(src + 8, mask1)
                                      : _mm256_setzero_ps();  // no load at all: see gemm_f32_avx512.cc
      _mm256_storeu_ps(dst + 8, high);
    }
    return;
  }
  // B(k, n) = b[n * ldb + k]: transpose 8 columns x 8 k at a time, scalar at the edges.
  for (int64_t i0 = 0; i0 < kNr; i0 += 8) {
    const float* src = p.b + (n0 + i0) * p.ldb + blk.k0;
    int64_t k = 0;
    if (cols >= i0 + 8) {
      for (; k + 8 <= blk.kc; k += 8) Transpose8x8(src + k, p.ldb, dst + k * kNr + i0);
    }
    for (; k < blk.kc; ++k) {
      for (int64_t i = 0; i < 8; ++i) dst[k * kNr + i0 + i] = i0 + i < cols ? src[i * p.ldb + k] : 0.0f;
    }
  }
}

// A 64-byte aligned buffer of at least `floats` floats, owned by the calling thread and reused.
float* PackBuffer(int64_t floats) {
  thread_local std::vector<float> buffer;
  if (buffer.size() < static_cast<size_t>(floats + 16)) buffer.resize(static_cast<size_t>(floats + 16));
  const uintptr_t addr = reinterpret_cast<uintptr_t>(buffer.data());
  return reinterpret_cast<float*>((addr + 63) & ~uintptr_t{63});
}

// How threads share the product: share s takes slice s % tn of each N block's panel groups (tiles'
// column ranges) and slice s / tn of the row blocks.
struct Split {
  int tn, tm;
};

// The split into at most `shares` shares: the best speedup, counting whole tiles of rows and the columns of
// each share's panel groups (as RunShare deals them out; a group of `group_cols` columns, the last one partial
// when `cols` is not a multiple), or one within 5% of it that reads less: every column share reads all of A's
// rows (cols x K for each) and every row share all of B's columns, so tn * rows + tm * cols counts the values
// read per K; among equals, the one that splits N most (each share then packs only the panels it uses).
// Counting groups alone, 24 columns in two shares of 16 and 8 looked like a speedup of 2 (and shares of one row
// block then wrote the same cache lines); splitting ResNet-50's 1x1 convolutions (3136 rows of 64 channels to
// 256) by columns made each share read all of A from L3.
Split ChooseSplit(int64_t cols, int64_t group_cols, int64_t row_blocks, int shares) {
  const int64_t groups = (cols + group_cols - 1) / group_cols, rows = row_blocks * kMr;
  auto speedup = [&](int tn) {  // work / the largest share's work, for tn column shares
    const int tm = shares / tn;
    int64_t widest = 0;  // the most columns a share gets
    for (int in = 0; in < tn; ++in) {
      const int64_t g0 = groups * in / tn, g1 = groups * (in + 1) / tn;
      widest = std::max(widest, std::min(cols, g1 * group_cols) - g0 * group_cols);
    }
    return double(cols) / double(widest) * double(row_blocks) / double((row_blocks + tm - 1) / tm);
  };
  double best_speedup = 1.0;
  for (int tn = shares; tn >= 1; --tn) best_speedup = std::max(best_speedup, speedup(tn));
  Split best{1, 1};
  int64_t least = rows + cols;  // values read per K by {1, 1}
  for (int tn = shares; tn >= 1; --tn) {
    const Split split{tn, shares / tn};
    const int64_t read = split.tn * rows + split.tm * cols;
    if (speedup(tn) >= 0.95 * best_speedup && (read < least || (best.tn == 1 && best.tm == 1))) {
      best = split;
      least = read;
    }
  }
  return best;
}

// The prefetches of tile t, of row block rb of a share ending at row block rb_end (F32Tile::a_prefetch,
// c_prefetch, sum_prefetch), for whole row blocks of the share only:
// - the next row block's A, from the row block's first tile: A read from memory (a large activation read
//   once per run) otherwise stalls the next block's first tile line by line. RegNet-Y-800MF's 1x1
//   convolution of 144 to 16 channels at 56 x 56, batch 8: 3.5 -> 1.2-1.5 ms (ONNX Runtime: 1.3);
// - C's lines of the tile's columns kPrefetchRowBlocks ahead, in the first K block, where C is not in cache
//   (a large activation written once per run): the read of each line that a store needs then overlaps the
//   tiles before instead of stalling them (a 1x1 convolution of 16 to 96 channels at 112 x 112 with cold
//   caches: 1.59 -> 1.14 ms). Each tile prefetches its own lines: all of a row block's at once, before its
//   first tile, stalled on the queue of misses (RegNet's 64 to 144 channels at 56 x 56, batch 8: 7.4 -> 6.8 ms);
// - the residual's lines (GemmEpilogue::sum) as far ahead, in the last K block, for the same reason: ResNet-50's
//   1x1 convolutions of 64 to 256 channels at 56 x 56 with the residual, alone: 1.5-2.1 -> 1.1-1.4 ms.
// (In a share's first row block, each tile but the last prefetches the next one's prepacked B: F32Tile::b_prefetch.)
constexpr int64_t kPrefetchRowBlocks = 2;
void SetPrefetches(const Problem& p, const Block& blk, int64_t rb, int64_t rb_end, bool first_tile, F32Tile& t) {
  if (!p.trans_a && first_tile && rb + 1 < rb_end && (rb + 2) * kMr <= p.M) t.a_prefetch = t.a + kMr * p.lda;
  const int64_t ahead = rb + kPrefetchRowBlocks;
  if (blk.k0 == p.k_begin && ahead < rb_end && (ahead + 1) * kMr <= p.M) {
    t.c_prefetch = t.c + kPrefetchRowBlocks * kMr * p.ldc;
  }
  if (t.last && t.sum != nullptr && ahead < rb_end && (ahead + 1) * kMr <= p.M) {
    t.sum_prefetch = t.sum + kPrefetchRowBlocks * kMr * p.epilogue.ld_sum;
  }
}

// Share `share` of the product, with no synchronisation: N blocks outer, K blocks (of a balanced size
// that depends on K alone) inner; in each block, pack the share's panels into the thread's own buffer,
// then compute its tiles row block by row block, so that A's rows stay in L1 across the panels. Each row
// block reads the whole packed block, which must stay in L2 beside the rows and outputs: N blocks of 512
// columns (512 KiB, all of a Zen 3 core's L2) were read from L3 for every row block, and FCN on two threads
// (its 3x3 convolutions of 2048 and 512 channels) took 626 ms against 588 with blocks of 256.
void RunShare(const Problem& p, bool pack, Split split, int share) {
  const int64_t group = PanelsPerTile(p.kernels, p.M);
  const int64_t row_blocks = (p.M + kMr - 1) / kMr;
  const int64_t in = share % split.tn, im = share / split.tn;
  const int64_t rb0 = row_blocks * im / split.tm, rb1 = row_blocks * (im + 1) / split.tm;
  const int64_t kc = F32GemmKBlock(p.K);
  for (int64_t n0 = 0; n0 < p.N; n0 += kNc) {
    const int64_t nc = std::min(kNc, p.N - n0);
    const int64_t panels = (nc + kNr - 1) / kNr;
    const int64_t groups = (panels + group - 1) / group;
    const int64_t g0 = groups * in / split.tn, g1 = groups * (in + 1) / split.tn;
    const int64_t j0 = g0 * group, j1 = std::min(g1 * group, panels);
    if (j0 >= j1) continue;
    float* packed = pack && p.prepacked == nullptr ? PackBuffer(kc * (j1 - j0) * kNr) : nullptr;
    for (int64_t k0 = p.k_begin; k0 < p.k_end; k0 += kc) {
      // PackF32B's layout: N blocks one after the other, each its K blocks of all its panels.
      const Block blk = p.prepacked != nullptr
                            ? Block{n0, nc, k0, std::min(kc, p.K - k0), const_cast<float*>(p.prepacked) + n0 * p.K + k0 * panels * kNr, 0}
                            : Block{n0, nc, k0, std::min(kc, p.K - k0), packed, j0};
      for (int64_t j = j0; packed != nullptr && j < j1; ++j) PackPanel(p, blk, j);
      for (int64_t rb = rb0; rb < rb1; ++rb) {
        const int64_t m0 = rb * kMr, rows = std::min(kMr, p.M - m0);
        int64_t g = g0;
        if (rows == kMr && group == 1 && !p.trans_a && p.kernels == F32Kernels::kAvx2 && blk.packed != nullptr) {
          const int64_t full = std::min(g1, nc / kNr);  // panels of 16 columns
          if (full > g) {
            F32Tile t = MakeTile(p, blk, m0, rows, g, 1);
            SetPrefetches(p, blk, rb, rb1, true, t);
            F32FullTilesAvx2(t, full - g);
          }
          g = std::max(g, full);
        }
        for (; g < g1; ++g) {
          F32Tile t = MakeTile(p, blk, m0, rows, g * group, group);
          SetPrefetches(p, blk, rb, rb1, g == g0, t);
          if (rb == rb0 && p.prepacked != nullptr && (g + 2) * group <= j1) t.b_prefetch = t.b + group * t.panel_stride;
          RunTile(p, t);
        }
      }
    }
  }
}

// Runs the product, B packed per call when `pack` (or prepacked), shared between threads when large.
void RunProblem(const Problem& p, bool pack) {
  const int64_t M = p.M, N = p.N;
  const F32Kernels kernels = p.kernels;
  const int64_t group = PanelsPerTile(kernels, M);
  const int64_t macs = M * N * (p.k_end - p.k_begin);
  const int threads = macs > kParallelMinMacs && !InParallelRegion() ? omp_get_max_threads() : 1;
  const Split split =  // as a full N block is split
      ChooseSplit(std::min(kNc, N), group * kNr, (M + kMr - 1) / kMr, threads > 1 ? threads * kUnitsPerThread : 1);
  const int shares = split.tn * split.tm;
  if (shares == 1) {
    RunShare(p, pack, split, 0);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(std::min(threads, shares))
  for (int s = 0; s < shares; ++s) RunShare(p, pack, split, s);
}

}  // namespace

void GemmF32Avx2(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc, F32Kernels kernels,
                 const GemmEpilogue<float>& epilogue, const float* const* b_rows) {
  const Problem p{trans_a, trans_b, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc, kernels, epilogue, b_rows, nullptr,
                  0, K};
  RunProblem(p, trans_b || b_rows != nullptr || (M > kInPlaceBMaxRows && K * N > kInPlaceBMaxFloats));
}

PackedF32B PackF32B(bool trans_b, int64_t K, int64_t N, const float* b, int64_t ldb) {
  PackedF32B packed;
  packed.K = K;
  packed.N = N;
  const int64_t kc = K == 0 ? 0 : F32GemmKBlock(K);
  const int64_t all_panels = (N + kNr - 1) / kNr;
  packed.data.resize(static_cast<size_t>(all_panels * kNr * K));
  const Problem p{false, trans_b, 0, N, K, 1.0f, nullptr, 0, b, ldb, 0.0f, nullptr, 0, F32Kernels::kAvx2, {},
                  nullptr, nullptr};
  for (int64_t n0 = 0; n0 < N; n0 += kNc) {
    const int64_t nc = std::min(kNc, N - n0);
    const int64_t panels = (nc + kNr - 1) / kNr;
    for (int64_t k0 = 0; k0 < K; k0 += kc) {
      const Block blk{n0, nc, k0, std::min(kc, K - k0), packed.data.data() + n0 * K + k0 * panels * kNr, 0};
      for (int64_t j = 0; j < panels; ++j) PackPanel(p, blk, j);
    }
  }
  return packed;
}

const float* PackedF32Panel(const PackedF32B& b, int64_t panel, int64_t k0) {
  // PackF32B's layout: N blocks of kNc columns, each its K blocks one after the other, each block its panels.
  const int64_t n0 = panel * kNr / kNc * kNc;
  const int64_t panels = (std::min(kNc, b.N - n0) + kNr - 1) / kNr;  // in the N block
  const int64_t kc = std::min(F32GemmKBlock(b.K), b.K - k0);
  return b.data.data() + n0 * b.K + k0 * panels * kNr + (panel - n0 / kNr) * kc * kNr;
}

void GemmF32Avx2Packed(int64_t M, float alpha, const float* a, int64_t lda, const PackedF32B& b, float beta, float* c,
                       int64_t ldc, F32Kernels kernels, const GemmEpilogue<float>& epilogue, int64_t k_begin,
                       int64_t k_end) {
  const Problem p{false, false, M, b.N, b.K, alpha, a, lda, nullptr, 0, beta, c, ldc, kernels, epilogue, nullptr,
                  b.data.data(), k_begin, k_end < 0 ? b.K : k_end};
  RunProblem(p, true);
}


#else  // not x86-64: GetCpuFeatures().avx2_fma is always false, so this is never called.

void GemmF32Avx2(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t, float,
                 float*, int64_t, F32Kernels, const GemmEpilogue<float>&, const float* const*) {
  std::abort();
}
PackedF32B PackF32B(bool, int64_t, int64_t, const float*, int64_t) { std::abort(); }
const float* PackedF32Panel(const PackedF32B&, int64_t, int64_t) { std::abort(); }
void GemmF32Avx2Packed(int64_t, float, const float*, int64_t, const PackedF32B&, float, float*, int64_t, F32Kernels,
                       const GemmEpilogue<float>&, int64_t, int64_t) {
  std::abort();
}

#endif

}  // namespace ptq
