// ConvNhwcDirectF32: tiles of 6 output positions x 16 output channels of one group in ymm registers (AVX2+FMA),
// or of 12 x 16 to 6 x 64 in zmm registers (AVX-512F), each position's taps (or kernel rows) read through pointers
// into the image (zeros outside it), K block by K block of the packed weights.
#include "runtime/kernels/conv/conv_nhwc_direct.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>

#include "runtime/cpu_features.h"
#include "runtime/kernels/conv/conv_store_512.h"
#include "runtime/kernels/gemm_f32/gemm_f32_tile.h"
#include "runtime/threading.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define PTQ_AVX2 __attribute__((target("avx2,fma")))
#define PTQ_AVX512 __attribute__((target("avx512f")))
#endif

namespace ptq {

namespace {

// Few channels of one group (3-channel stems): a position's taps are its kernel rows, each KW * C values of one
// image row (Im2RowNhwc's order: tap-major, then channel, is kernel row, then kw * C + c).
bool ReadsKernelRows(const ConvGeometry& g) {
  return g.in_channels_per_group() < 8 && g.group == 1 && g.window.dilations[1] == 1;
}

constexpr int64_t kMaxTaps = 32;  // taps of a window read through pointers (5 x 5 and smaller)

}  // namespace

bool ConvNhwcDirectApplies(const ConvGeometry& g) {
  if (!g.channels_last || g.window.rank() != 2 || !GetCpuFeatures().avx2_fma) return false;
  const int64_t cg = g.in_channels_per_group(), T = g.window.kernel[0] * g.window.kernel[1], K = cg * T;
  if (g.out_channels_per_group() % 8 != 0) return false;
  if (ReadsKernelRows(g)) return K <= 256 && F32GemmKBlock(K) == K;
  if (cg < 8 || T > kMaxTaps) return false;
  if (K <= 256) return true;
  // Deeper products: windows of stride 1 (each pixel then serves several taps of a tile; strided windows and 1 x 1
  // ones lost 7-60% of ResNet-50's time against im2row and the GEMM) with at most 64 MiB of weights a group (each
  // block of positions reads them all). With one-panel tiles FCN's 9 MiB and 36 MiB lost 5% and 48% against K
  // slices of im2row and the GEMM; with tiles of four panels they won (its 3 x 3s of 512 channels 52-56 -> 47-49
  // ms, its head of 2048 225-233 -> 197-200 ms, batch 1, one thread).
  const bool stride1 = g.window.strides[0] == 1 && g.window.strides[1] == 1;
  return stride1 && T > 1 && K * g.out_channels_per_group() <= (int64_t{1} << 24);
}

#if defined(__x86_64__)
namespace {

constexpr int64_t kRows = kF32TileRows;  // output positions per tile
constexpr int64_t kPanel = kF32PanelCols;
constexpr int64_t kChunk = 16 * kRows;  // output positions per unit of work

// One tile's arguments: taps[r * T + t] points at tap t's cg channels for position r. The tile computes the K
// block [k0, k0 + kc) of k = t * cg + c as the GEMM does a K block (F32Tile's contract with alpha 1, beta 0).
struct DirectTile {
  const float* const* taps;
  const float* zeros;  // not nullptr: a tap that is `zeros` for every row of the tile is skipped
  int64_t shift;       // added to every tap pointer: the group's first channel
  int64_t T, cg;
  int64_t k0, kc;
  const float* b;  // the panel's K block: b[(k - k0) * 16 + i]; panel v after it at b + v * panel_stride
  int64_t panel_stride;
  float* y;
  int64_t ldy;
  bool first, last;        // the product's first and last K block
  const float* col_bias;  // nullptr: none
  const float* sum;       // nullptr: none
  int64_t ld_sum;
  bool clamp;
  float lo, hi;
  bool prefetch_taps;  // prefetch each tap's successor (see TapRows)
};

// Tap t's pointers for the kR rows of tile d, from channel c0 on (p[r]); whether the tap is skipped (every row
// reads d.zeros, see DirectTile). Else, when `next`, the next tap's pixels are prefetched while this one's
// products run (a tap's work outlasts a miss).
template <int kR>
inline __attribute__((always_inline)) bool TapRows(const DirectTile& d, int64_t t, int64_t c0, bool next,
                                                   const float* (&p)[kR]) {
  bool outside = d.zeros != nullptr;
#pragma GCC unroll 16
  for (int r = 0; r < kR; ++r) {
    const float* tap = d.taps[r * d.T + t];
    outside = outside && tap == d.zeros;
    p[r] = tap + d.shift + c0;
  }
  if (outside) return true;
  if (next) {
#pragma GCC unroll 16
    for (int r = 0; r < kR; ++r) {
      const char* line = reinterpret_cast<const char*>(d.taps[r * d.T + t + 1] + d.shift);
      for (int64_t byte = 0; byte < d.cg * 4; byte += 64) _mm_prefetch(line + byte, _MM_HINT_T0);
    }
  }
  return false;
}

// acc = fma(A(r, k), B(k, n), acc) for k of the block increasing, then the GEMM's store of a K block with alpha 1
// and beta 0: the first block stores acc + col_bias, later ones acc + y; the last adds sum, then clamps. A tap
// skipped (every row's pointer is d.zeros, with finite weights) would add fma(0, w, acc) = acc: an acc that starts
// at +0 never becomes -0 by sums, so the bits are those of computing it.
template <int kR, int kVecs>
PTQ_AVX2 void Tile(const DirectTile& d) {
  __m256 acc[kR][kVecs];
#pragma GCC unroll 8
  for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm256_setzero_ps();
  }
  const float* b = d.b;
  int64_t t = d.k0 / d.cg, c0 = d.k0 % d.cg;
  for (int64_t left = d.kc; left > 0; ++t, c0 = 0) {
    const int64_t n = std::min(d.cg - c0, left);
    left -= n;
    const float* p[kR];
    if (TapRows<kR>(d, t, c0, left > 0 && d.prefetch_taps, p)) {
      b += n * kPanel;
      continue;
    }
    for (int64_t c = 0; c < n; ++c, b += kPanel) {
      __m256 bv[kVecs];
#pragma GCC unroll 2
      for (int v = 0; v < kVecs; ++v) bv[v] = _mm256_loadu_ps(b + 8 * v);
#pragma GCC unroll 8
      for (int r = 0; r < kR; ++r) {
        const __m256 a = _mm256_broadcast_ss(p[r] + c);
#pragma GCC unroll 2
        for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm256_fmadd_ps(a, bv[v], acc[r][v]);
      }
    }
  }
  const __m256 lo = _mm256_set1_ps(d.lo), hi = _mm256_set1_ps(d.hi);
  const float* const col_bias = d.first ? d.col_bias : nullptr;
  const float* const sum = d.last ? d.sum : nullptr;
  const bool clamp = d.last && d.clamp;
#pragma GCC unroll 8
  for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < kVecs; ++v) {
      float* out = d.y + r * d.ldy + 8 * v;
      __m256 x = acc[r][v];
      if (!d.first) x = _mm256_add_ps(x, _mm256_loadu_ps(out));
      if (col_bias != nullptr) x = _mm256_add_ps(x, _mm256_loadu_ps(col_bias + 8 * v));
      if (sum != nullptr) x = _mm256_add_ps(x, _mm256_loadu_ps(sum + r * d.ld_sum + 8 * v));
      if (clamp) {  // y < lo ? lo : y, then hi < y ? hi : y: vmaxps(a, b) is a > b ? a : b, vminps a < b ? a : b
        x = _mm256_max_ps(lo, x);
        x = _mm256_min_ps(hi, x);
      }
      _mm256_storeu_ps(out, x);
    }
  }
}

using TileFn = void (*)(const DirectTile&);
constexpr TileFn kTiles[2][kRows] = {
    {Tile<1, 1>, Tile<2, 1>, Tile<3, 1>, Tile<4, 1>, Tile<5, 1>, Tile<6, 1>},
    {Tile<1, 2>, Tile<2, 2>, Tile<3, 2>, Tile<4, 2>, Tile<5, 2>, Tile<6, 2>}};

// Tile<kR, 2>'s contract for kV whole panels (16 kV channels) of kR positions, one zmm register per position and
// panel: the same operations on every output (so the same bits). One panel: a tap's 16 channel steps feed 2 * kRows
// independent sums instead of kRows (RegNet-Y-800MF's first grouped 3 x 3, 4 groups of 16 channels, stride 2, in
// the model: 1.35 -> 0.97 ms, medians of six alternating profiles on Zen 4). Several panels: each broadcast of an
// input feeds kV products, so that a step reads kR + kV values for kR * kV products instead of kR + 1 for kR (the
// broadcasts, not the products, bounded the one-panel tiles of ResNet-50's 3 x 3s at 72% of Zen 4's peak).
template <int kR, int kV>
PTQ_AVX512 void Tile512(const DirectTile& d) {
  __m512 acc[kR][kV];
#pragma GCC unroll 16
  for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kV; ++v) acc[r][v] = _mm512_setzero_ps();
  }
  const float* b = d.b;
  const int64_t ps = d.panel_stride;
  int64_t t = d.k0 / d.cg, c0 = d.k0 % d.cg;
  for (int64_t left = d.kc; left > 0; ++t, c0 = 0) {  // as Tile does
    const int64_t n = std::min(d.cg - c0, left);
    left -= n;
    const float* p[kR];
    if (TapRows<kR>(d, t, c0, left > 0 && d.prefetch_taps, p)) {
      b += n * kPanel;
      continue;
    }
    for (int64_t c = 0; c < n; ++c, b += kPanel) {
      __m512 bv[kV];
#pragma GCC unroll 4
      for (int v = 0; v < kV; ++v) bv[v] = _mm512_loadu_ps(b + v * ps);
#pragma GCC unroll 16
      for (int r = 0; r < kR; ++r) {
        const __m512 a = _mm512_set1_ps(p[r][c]);
#pragma GCC unroll 4
        for (int v = 0; v < kV; ++v) acc[r][v] = _mm512_fmadd_ps(a, bv[v], acc[r][v]);
      }
    }
  }
  const __m512 lo = _mm512_set1_ps(d.lo), hi = _mm512_set1_ps(d.hi);
  const float* const col_bias = d.first ? d.col_bias : nullptr;
  const float* const sum = d.last ? d.sum : nullptr;
  const bool clamp = d.last && d.clamp;
#pragma GCC unroll 16
  for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kV; ++v) {
      float* out = d.y + r * d.ldy + 16 * v;
      __m512 x = acc[r][v];
      if (!d.first) x = _mm512_add_ps(x, _mm512_loadu_ps(out));
      StoreConv512(x, col_bias != nullptr ? col_bias + 16 * v : nullptr,
                   sum != nullptr ? sum + r * d.ld_sum + 16 * v : nullptr, clamp, lo, hi, out);
    }
  }
}

// Positions per AVX-512 tile of kV panels (24 accumulators at most, 12 for one panel), and the tiles by kV, rows.
constexpr int64_t kMaxPanels512 = 4;
constexpr int64_t Rows512(int64_t panels) { return panels == 1 ? 2 * kRows : 24 / panels; }
constexpr TileFn kTiles512[kMaxPanels512][2 * kRows] = {
    {Tile512<1, 1>, Tile512<2, 1>, Tile512<3, 1>, Tile512<4, 1>, Tile512<5, 1>, Tile512<6, 1>, Tile512<7, 1>,
     Tile512<8, 1>, Tile512<9, 1>, Tile512<10, 1>, Tile512<11, 1>, Tile512<12, 1>},
    {Tile512<1, 2>, Tile512<2, 2>, Tile512<3, 2>, Tile512<4, 2>, Tile512<5, 2>, Tile512<6, 2>, Tile512<7, 2>,
     Tile512<8, 2>, Tile512<9, 2>, Tile512<10, 2>, Tile512<11, 2>, Tile512<12, 2>},
    {Tile512<1, 3>, Tile512<2, 3>, Tile512<3, 3>, Tile512<4, 3>, Tile512<5, 3>, Tile512<6, 3>, Tile512<7, 3>,
     Tile512<8, 3>, nullptr, nullptr, nullptr, nullptr},
    {Tile512<1, 4>, Tile512<2, 4>, Tile512<3, 4>, Tile512<4, 4>, Tile512<5, 4>, Tile512<6, 4>, nullptr, nullptr,
     nullptr, nullptr, nullptr, nullptr}};

// The tiles of group grp over a block's first `positions` positions, kRows at a time (fewer in the last tile),
// taps[p * T + t] + grp * cg: tap t of its position p, cg values. Panels [j0, j1) of the group's packed weights
// (K x mg), each K block by K block: a block of a panel (at most 16 KiB) runs over every tile before the next one,
// staying in L1 (L2 for the 64 KiB of four panels) across the tiles, as the outputs of the panel do across the
// blocks; into y from `at` (the block's first output of the group) on, through epi. With `avx512`, up to
// kMaxPanels512 whole panels (adjacent in the packed weights) go over Rows512 positions at a time (Tile512): ResNet-
// 50's 3 x 3s of stride 1 (64 to 256 channels), batch 1, one thread: 2.6-2.8 -> 2.3-2.4 ms each (ONNX Runtime:
// 2.2-2.3). zeros, prefetch_taps: see DirectTile.
void RunTiles(const float* const* taps, int64_t positions, int64_t T, int64_t cg, const PackedF32B& b, int64_t j0,
              int64_t j1, int64_t M, int64_t mg, int64_t grp, int64_t at, float* y, const GemmEpilogue<float>& epi,
              bool avx512, const float* zeros, bool prefetch_taps) {
  const int64_t K = b.K, kc = F32GemmKBlock(K);
  auto full = [&](int64_t j) { return mg - j * kPanel >= kPanel; };
  for (int64_t j = j0, panels = 1; j < j1; j += panels) {
    // Whole panels from j whose K blocks lie one after the other (the same N block of PackF32B's layout).
    panels = 1;
    if (avx512 && full(j)) {
      const float* first = PackedF32Panel(b, j, 0);
      const int64_t stride = kc * kPanel;  // the first K block's panels
      while (panels < kMaxPanels512 && j + panels < j1 && full(j + panels) &&
             PackedF32Panel(b, j + panels, 0) == first + panels * stride) {
        ++panels;
      }
    }
    DirectTile d;
    d.zeros = zeros;
    d.prefetch_taps = prefetch_taps;
    d.shift = grp * cg;
    d.T = T;
    d.cg = cg;
    d.ldy = M;
    d.col_bias = epi.col_bias != nullptr ? epi.col_bias + grp * mg + j * kPanel : nullptr;
    d.ld_sum = M;
    d.clamp = epi.clamp;
    d.lo = epi.lo;
    d.hi = epi.hi;
    const bool wide = avx512 && full(j);
    const int64_t step = wide ? Rows512(panels) : kRows;  // positions per tile
    for (int64_t k0 = 0; k0 < K; k0 += kc) {
      d.k0 = k0;
      d.kc = std::min(kc, K - k0);
      d.b = PackedF32Panel(b, j, k0);
      d.panel_stride = d.kc * kPanel;
      d.first = k0 == 0;
      d.last = k0 + d.kc == K;
      for (int64_t i = 0; i < positions; i += step) {
        const int64_t first = at + i * M + j * kPanel, rows = std::min(step, positions - i);
        d.taps = taps + i * T;
        d.y = y + first;
        d.sum = epi.sum != nullptr ? epi.sum + first : nullptr;
        (wide ? kTiles512[panels - 1][rows - 1] : kTiles[full(j)][rows - 1])(d);
      }
    }
  }
}

// taps[r * KH + kh]: kernel row kh of position o0 + r (KW * C values): in the image when the row lies inside it,
// `zeros` when above or below it, else a copy in edge[(r * KH + kh) * KW * C ...] with zeros for the columns outside.
void KernelRowTaps(const float* image, const SlidingWindow& w, int64_t C, int64_t o0, int64_t rows, const float* zeros,
                   float* edge, const float** taps) {
  const int64_t H = w.input[0], W = w.input[1], OW = w.output[1], KH = w.kernel[0], KW = w.kernel[1];
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t oh = (o0 + r) / OW, ow = (o0 + r) % OW;
    const int64_t iw0 = ow * w.strides[1] - w.pads_begin[1];
    for (int64_t kh = 0; kh < KH; ++kh) {
      const int64_t ih = oh * w.strides[0] - w.pads_begin[0] + kh * w.dilations[0];
      if (ih < 0 || ih >= H) {
        taps[r * KH + kh] = zeros;
      } else if (iw0 >= 0 && iw0 + KW <= W) {
        taps[r * KH + kh] = image + (ih * W + iw0) * C;
      } else {
        float* copy = edge + (r * KH + kh) * KW * C;
        for (int64_t kw = 0; kw < KW; ++kw) {
          const int64_t iw = iw0 + kw;
          for (int64_t c = 0; c < C; ++c) copy[kw * C + c] = iw >= 0 && iw < W ? image[(ih * W + iw) * C + c] : 0.0f;
        }
        taps[r * KH + kh] = copy;
      }
    }
  }
}

// The input rows that the windows of image n's output positions [o_begin, o_end) read (clamped to the image): one
// contiguous range of x, `bytes` long from `begin` (0 when the windows lie wholly in the padding).
struct InputRows {
  const char* begin = nullptr;
  int64_t bytes = 0;
};
InputRows WindowRows(const float* x, const ConvGeometry& g, int64_t n, int64_t o_begin, int64_t o_end) {
  const SlidingWindow& w = g.window;
  const int64_t H = w.input[0], W = w.input[1], OW = w.output[1];
  const int64_t ih0 = std::max<int64_t>(0, o_begin / OW * w.strides[0] - w.pads_begin[0]);
  const int64_t ih1 = std::min<int64_t>(
      H, (o_end - 1) / OW * w.strides[0] - w.pads_begin[0] + (w.kernel[0] - 1) * w.dilations[0] + 1);
  InputRows rows;
  if (ih1 > ih0) {
    rows.begin = reinterpret_cast<const char*>(x + ((n * H + ih0) * W) * g.in_channels);
    rows.bytes = (ih1 - ih0) * W * g.in_channels * static_cast<int64_t>(sizeof(float));
  }
  return rows;
}

// Share `share` of `shares` of rows' cache lines, prefetched into L1.
void PrefetchShare(const InputRows& rows, int64_t share, int64_t shares) {
  const int64_t end = rows.bytes * (share + 1) / shares;
  for (int64_t byte = rows.bytes * share / shares / 64 * 64; byte < end; byte += 64) {
    _mm_prefetch(rows.begin + byte, _MM_HINT_T0);
  }
}

}  // namespace

void ConvNhwcDirectF32(const float* x, const std::vector<PackedF32B>& packed, const ConvGeometry& g,
                       const GemmEpilogue<float>& epi, float* y, const FloatRowFinish* finish, bool finite_weights) {
  const SlidingWindow& w = g.window;
  const int64_t H = w.input[0], W = w.input[1], OH = w.output[0], OW = w.output[1];
  const int64_t KH = w.kernel[0], KW = w.kernel[1], T = KH * KW;
  const int64_t C = g.in_channels, M = g.out_channels, cg = g.in_channels_per_group(), mg = g.out_channels_per_group();
  const int64_t K = cg * T, P = OH * OW, panels = (mg + kPanel - 1) / kPanel;
  const int threads = ThreadsForWork(g.batch * P * K * M, int64_t{1} << 19);
  // Units of work: (image, block of positions, part of the panels), of equal size and, where they can be, a
  // multiple of the threads in number: each thread takes a contiguous run of them (schedule(static)), so blocks of
  // unequal size or a unit left over kept one thread waiting for the other (ResNet-50's 14 x 14 3 x 3s at batch 1
  // on two threads, in blocks of 96, 96 and 4 positions: 1.2 -> 1.8 ms). An image's positions are split evenly
  // into blocks of at most kChunk. Small weights: at least kUnitsPerThread blocks a thread, all panels. Weights
  // over 256 KiB (ResNet-50's 3 x 3 convolutions of 128 and 256 channels at 28 x 28 and 14 x 14): every unit reads
  // all of its panels' weights, so blocks stay large and threads share the panels instead.
  const bool share_panels = threads > 1 && finish == nullptr && K * M >= (int64_t{1} << 16) && panels > 1;
  int64_t chunks = (P + kChunk - 1) / kChunk, parts = 1;
  if (threads > 1) {
    const int64_t wanted = int64_t{threads} * kUnitsPerThread;
    if (share_panels) {
      parts = std::min(panels, (wanted + g.batch * chunks - 1) / (g.batch * chunks));
      while (g.batch * chunks * parts % threads != 0 && parts < panels) ++parts;
    } else {
      chunks = std::max(chunks, (wanted + g.batch - 1) / g.batch);
      while (g.batch * chunks % threads != 0 && chunks < P) ++chunks;
    }
  }
  // Block b of an image: positions [P * b / chunks, P * (b + 1) / chunks), at most kChunk.
  auto block_begin = [P, chunks](int64_t b) { return P * b / chunks; };
  // Taps of kernel rows (few channels): T_read taps of cg_read values each; else T taps of cg channels.
  const bool kernel_rows = ReadsKernelRows(g);
  const int64_t T_read = kernel_rows ? KH : T, cg_read = kernel_rows ? KW * cg : cg;
  // The taps outside the image, of every group (a tap pointer is shifted by the group's first channel); with
  // finite weights, a tap outside the image at every position of a tile is skipped (DirectTile::zeros).
  const std::vector<float> zeros(static_cast<size_t>(std::max(C, cg_read)), 0.0f);
  const float* const skip = finite_weights ? zeros.data() : nullptr;
  // Kernel rows: tile by tile, every group. Taps: every tile's taps first, then group by group, panel by panel,
  // every tile: a panel of weights is read from L2 once per block instead of once per tile (RegNet's grouped
  // convolutions hold 36 KiB to 441 KiB of weights, more than L1, and a tile of 16 channels per group has 16
  // products per tap to hide each load).
  const int64_t units = g.batch * chunks * parts;
  const bool avx512 = GetCpuFeatures().avx512f;
  // Kernel rows: positions per call, as many as one AVX-512 tile of the weights' panels holds (12 for a stem of 32
  // output channels), for fewer calls and pointer tables per output.
  const int64_t step_rows =
      kernel_rows && avx512 && mg >= kPanel ? std::max(kRows, Rows512(std::min(kMaxPanels512, mg / kPanel))) : kRows;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (int64_t u = 0; u < units; ++u) {
    const int64_t part = u % parts, block = u / parts;
    const int64_t n = block / chunks, o_begin = block_begin(block % chunks), o_end = block_begin(block % chunks + 1);
    if (o_begin == o_end) continue;
    const int64_t j0 = panels * part / parts, j1 = panels * (part + 1) / parts;
    const float* image = x + n * H * W * C;
    if (kernel_rows) {
      const float* taps[2 * kRows * 256];  // kernel row kh of position r: KW * C values, or zeros; KH <= K <= 256
      float edge[2 * kRows * 256];         // kernel rows that cross the image's left or right border, zero outside
      for (int64_t o0 = o_begin; o0 < o_end; o0 += step_rows) {
        const int64_t rows = std::min(step_rows, o_end - o0);
        KernelRowTaps(image, w, C, o0, rows, zeros.data(), edge, taps);
        RunTiles(taps, rows, T_read, cg_read, packed[0], j0, j1, M, mg, 0, (n * P + o0) * M, y, epi, avx512, skip,
                 true);
      }
    } else {
      // taps[p * T + t]: tap t of the block's position p, its pixel (channel 0) or zeros; T <= kMaxTaps.
      const float* taps[kChunk * kMaxTaps];
      for (int64_t p = 0; p < o_end - o_begin; ++p) {
        const int64_t oh = (o_begin + p) / OW, ow = (o_begin + p) % OW;
        for (int64_t kh = 0, t = 0; kh < KH; ++kh) {
          const int64_t ih = oh * w.strides[0] - w.pads_begin[0] + kh * w.dilations[0];
          for (int64_t kw = 0; kw < KW; ++kw, ++t) {
            const int64_t iw = ow * w.strides[1] - w.pads_begin[1] + kw * w.dilations[1];
            taps[p * T + t] = ih >= 0 && ih < H && iw >= 0 && iw < W ? image + (ih * W + iw) * C : zeros.data();
          }
        }
      }
      // Grouped, stride 1: a tap of a group is one or two cache lines of a pixel, too short for the prefetch of
      // each next tap to pay (it cost 10-15% of RegNet's grouped 3 x 3s in cache); the rows of the block this
      // thread takes next, a contiguous range, are prefetched instead, a share after each group. A
      // strided window reads more rows per block, and there the prefetch of each next tap still paid (RegNet's
      // 144 channels at stride 2, batch 8: 5.3 ms with it, 6.6 with the rows').
      const bool by_rows = g.group > 1 && g.window.strides[0] == 1 && g.window.strides[1] == 1;
      const int64_t next = block + 1;  // the thread's units are contiguous (kUnitsPerThread)
      const InputRows rows = by_rows && parts == 1 && next < g.batch * chunks
                                 ? WindowRows(x, g, next / chunks, block_begin(next % chunks),
                                              block_begin(next % chunks + 1))
                                 : InputRows{};
      for (int64_t grp = 0; grp < g.group; ++grp) {  // the same taps, shifted to the group's channels
        RunTiles(taps, o_end - o_begin, T, cg, packed[static_cast<size_t>(grp)], j0, j1, M, mg, grp,
                 (n * P + o_begin) * M + grp * mg, y, epi, avx512, skip, !by_rows);
        if (rows.bytes > 0) PrefetchShare(rows, grp, g.group);
      }
    }
    if (finish != nullptr) (*finish)(y + (n * P + o_begin) * M, (o_end - o_begin) * M);
  }
}

#else  // not x86-64: ConvNhwcDirectApplies is false, so this is never called.

void ConvNhwcDirectF32(const float*, const std::vector<PackedF32B>&, const ConvGeometry&, const GemmEpilogue<float>&,
                       float*, void (*)(float*, int64_t), bool) {
  std::abort();
}

#endif

}  // namespace ptq
