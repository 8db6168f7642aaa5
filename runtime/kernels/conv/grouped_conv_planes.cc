// GroupedConvPlanesF32: blocks of output rows whose input rows are copied into per-group planes by stride phase,
// then tiles of up to 16 output positions x 16 output channels in zmm registers, each tap read at immediate offsets.
#include "runtime/kernels/conv/grouped_conv_planes.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>

#include "runtime/cpu_features.h"
#include "runtime/kernels/conv/conv_store_512.h"
#include "runtime/kernels/aligned_vector.h"
#include "runtime/threading.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define PTQ_AVX512 __attribute__((target("avx512f")))
#endif

namespace ptq {

namespace {

constexpr int64_t kCg = 16;         // input channels a group: one zmm register of a pixel
constexpr int64_t kPanel = 16;      // output channels a panel of the packed weights
constexpr int64_t kTileRows = 16;   // output positions a tile at most (of one output row)
constexpr int64_t kMaxTaps = 16;    // K = 16 taps fits one K block of the GEMM (256)
constexpr int64_t kBlockPositions = 128;  // output positions a block of rows aims at

}  // namespace

bool GroupedConvPlanesApplies(const ConvGeometry& g) {
  if (!g.channels_last || g.window.rank() != 2 || g.group < 2 || !GetCpuFeatures().avx512f) return false;
  const int64_t T = g.window.kernel[0] * g.window.kernel[1];
  return g.in_channels_per_group() == kCg && g.out_channels_per_group() % kPanel == 0 && T <= kMaxTaps &&
         F32GemmKBlock(kCg * T) == kCg * T;
}

#if defined(__x86_64__)
namespace {

// The planes of a block of output rows, per group: for phase (ph, pw) of the strides (SH, SW), plane row a and
// column b hold the group's 16 channels of input pixel ((oh0 + a) * SH + ph - pad_top, b * SW + pw - pad_left),
// zeros outside the image. Output position (oh0 + i, j) reads tap (kh, kw) in phase ((kh * dh) % SH, (kw * dw) %
// SW) at plane row i + kh * dh / SH, column j + kw * dw / SW: at plane index i * Wv + j + a fixed offset of the tap.
struct Planes {
  int64_t SH = 1, SW = 1;
  int64_t Wv = 0;    // columns a plane row: OW + (KW - 1) * dw / SW
  int64_t rows = 0;  // plane rows: the block's output rows + (KH - 1) * dh / SH

  int64_t GroupFloats() const { return SH * SW * rows * Wv * kCg; }
};

Planes PlanesOf(const SlidingWindow& w, int64_t block_rows) {
  Planes p;
  p.SH = w.strides[0];
  p.SW = w.strides[1];
  p.Wv = w.output[1] + (w.kernel[1] - 1) * w.dilations[1] / p.SW;
  p.rows = block_rows + (w.kernel[0] - 1) * w.dilations[0] / p.SH;
  return p;
}

// The planes of groups [g0, g1) of one image ([H, W, C]) for the block of output rows from oh0: group g0 + k's at
// dst + k * p.GroupFloats(). Each input pixel's channels of those groups are read once, one after the other.
PTQ_AVX512 void CopyPlanes(const float* image, const ConvGeometry& g, const Planes& p, int64_t oh0, int64_t g0,
                           int64_t g1, float* dst) {
  const SlidingWindow& w = g.window;
  const int64_t H = w.input[0], W = w.input[1], C = g.in_channels, groups = g1 - g0, gf = p.GroupFloats();
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t a = 0; a < p.rows; ++a) {  // input rows in order, each pixel's channels in order
    for (int64_t ph = 0; ph < p.SH; ++ph) {
      const int64_t ih = (oh0 + a) * p.SH + ph - w.pads_begin[0];
      for (int64_t b = 0; b < p.Wv; ++b) {
        for (int64_t pw = 0; pw < p.SW; ++pw) {
          const int64_t iw = b * p.SW + pw - w.pads_begin[1];
          float* out = dst + (((ph * p.SW + pw) * p.rows + a) * p.Wv + b) * kCg;
          if (ih < 0 || ih >= H || iw < 0 || iw >= W) {
            for (int64_t k = 0; k < groups; ++k) _mm512_storeu_ps(out + k * gf, zero);
          } else {
            const float* in = image + (ih * W + iw) * C + g0 * kCg;
            for (int64_t k = 0; k < groups; ++k) _mm512_storeu_ps(out + k * gf, _mm512_loadu_ps(in + k * kCg));
          }
        }
      }
    }
  }
}

// One tile's arguments: kR consecutive output positions of one output row from a (the group's planes at the first
// one) by one panel of 16 output channels.
struct PlanesTile {
  const float* a;
  const int64_t* offsets;  // tap t's inputs at a + offsets[t]: position r's channel c at a + offsets[t] + 16 r + c
  int64_t T;
  const float* b;          // the panel: b[(t * 16 + c) * 16 + i]
  const float* col_bias;   // the panel's 16 biases, or nullptr
  float* y;                // position r's 16 outputs at y + r * ldy
  int64_t ldy;
  const float* sum;        // position r's 16 residuals at sum + r * ld_sum, or nullptr
  int64_t ld_sum;
  bool clamp;
  float lo, hi;
};

// acc = fma(A(r, k), B(k, n), acc) for k = t * 16 + c increasing from +0, then the GEMM's store of its one K block
// (StoreConv512: + col_bias, + sum, clamp). The same operations on every output as the GEMM over
// Im2RowNhwc's rows, so the same bits.
template <int kR>
PTQ_AVX512 void Tile(const PlanesTile& d) {
  __m512 acc[kR];
#pragma GCC unroll 16
  for (int r = 0; r < kR; ++r) acc[r] = _mm512_setzero_ps();
  const float* b = d.b;
  for (int64_t t = 0; t < d.T; ++t, b += kCg * kPanel) {
    const float* a = d.a + d.offsets[t];
#pragma GCC unroll 16
    for (int c = 0; c < kCg; ++c) {
      const __m512 bv = _mm512_loadu_ps(b + c * kPanel);
#pragma GCC unroll 16
      for (int r = 0; r < kR; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * kCg + c]), bv, acc[r]);
    }
  }
  const __m512 lo = _mm512_set1_ps(d.lo), hi = _mm512_set1_ps(d.hi);
#pragma GCC unroll 16
  for (int r = 0; r < kR; ++r) {
    StoreConv512(acc[r], d.col_bias, d.sum != nullptr ? d.sum + r * d.ld_sum : nullptr, d.clamp, lo, hi,
                 d.y + r * d.ldy);
  }
}

using TileFn = void (*)(const PlanesTile&);
constexpr TileFn kTiles[kTileRows] = {Tile<1>, Tile<2>,  Tile<3>,  Tile<4>,  Tile<5>,  Tile<6>,  Tile<7>,  Tile<8>,
                                      Tile<9>, Tile<10>, Tile<11>, Tile<12>, Tile<13>, Tile<14>, Tile<15>, Tile<16>};

}  // namespace

void GroupedConvPlanesF32(const float* x, const std::vector<PackedF32B>& packed, const ConvGeometry& g,
                          const GemmEpilogue<float>& epi, float* y, const FloatRowFinish* finish) {
  const SlidingWindow& w = g.window;
  const int64_t H = w.input[0], W = w.input[1], OH = w.output[0], OW = w.output[1], KH = w.kernel[0];
  const int64_t KW = w.kernel[1], T = KH * KW, C = g.in_channels, M = g.out_channels, G = g.group;
  const int64_t mg = g.out_channels_per_group(), P = OH * OW, panels = mg / kPanel;
  const int threads = ThreadsForWork(g.batch * P * kCg * T * M, int64_t{1} << 19);
  // Units of work: (image, block of output rows, part of the groups). Blocks of about kBlockPositions positions,
  // an image's rows split evenly; on several threads at least kUnitsPerThread blocks a thread and, where they can
  // be, a multiple of the threads in number (each thread takes a contiguous run of units: blocks of unequal size or
  // one left over keep the other waiting, as they did the direct convolution's); the groups split when there are
  // still too few blocks (the 7 x 7 rows of RegNet's last stage at batch 1). With `finish`, a unit does every
  // group of its rows (finish runs on whole rows of outputs).
  int64_t blocks = (OH + (kBlockPositions + OW - 1) / OW - 1) / ((kBlockPositions + OW - 1) / OW);
  if (threads > 1) {
    blocks = std::max(blocks, std::min(OH, (int64_t{threads} * kUnitsPerThread + g.batch - 1) / g.batch));
    while (g.batch * blocks % threads != 0 && blocks < OH) ++blocks;
  }
  const int64_t wanted = threads > 1 ? int64_t{threads} * kUnitsPerThread : 1;
  const int64_t parts =
      finish != nullptr ? 1 : std::min(G, (wanted + g.batch * blocks - 1) / (g.batch * blocks));
  const int64_t units = g.batch * blocks * parts;
  // Block b of an image: output rows [OH * b / blocks, OH * (b + 1) / blocks).
  auto block_begin = [OH, blocks](int64_t b) { return OH * b / blocks; };
  const Planes planes = PlanesOf(w, (OH + blocks - 1) / blocks);
  const int64_t row_tiles = (OW + kTileRows - 1) / kTileRows;  // an output row in tiles of (nearly) equal sizes
  int64_t offsets[kMaxTaps];
  for (int64_t kh = 0, t = 0; kh < KH; ++kh) {
    for (int64_t kw = 0; kw < KW; ++kw, ++t) {
      const int64_t dh = kh * w.dilations[0], dw = kw * w.dilations[1];
      const int64_t phase = dh % planes.SH * planes.SW + dw % planes.SW;
      offsets[t] = ((phase * planes.rows + dh / planes.SH) * planes.Wv + dw / planes.SW) * kCg;
    }
  }
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (int64_t u = 0; u < units; ++u) {
    const int64_t part = u % parts, block = u / parts, n = block / blocks;
    const int64_t oh0 = block_begin(block % blocks), oh1 = block_begin(block % blocks + 1);
    const int64_t g0 = G * part / parts, g1 = G * (part + 1) / parts;
    thread_local AlignedVector<float> buffer;
    const size_t floats = static_cast<size_t>((g1 - g0) * planes.GroupFloats());
    if (buffer.size() < floats) buffer.resize(floats);
    CopyPlanes(x + n * H * W * C, g, planes, oh0, g0, g1, buffer.data());
    PlanesTile d;
    d.offsets = offsets;
    d.T = T;
    d.ldy = M;
    d.ld_sum = epi.ld_sum;
    d.clamp = epi.clamp;
    d.lo = epi.lo;
    d.hi = epi.hi;
    // The input rows of the block this thread takes next (an image's rows are one range of x), fetched into
    // L2 a share after each group's tiles: the copy then reads them from L2 (RegNet's first grouped convolution,
    // 8 x 112 x 112 x 64 inputs at stride 2, waited on memory for a third of its time).
    const int64_t next = u + 1, next_block = next / parts;  // the thread's units are contiguous
    const char* ahead = nullptr;
    int64_t ahead_bytes = 0;
    if (next < units && next_block != block) {
      const int64_t nn = next_block / blocks, nh0 = block_begin(next_block % blocks);
      const int64_t ih0 = std::max<int64_t>(0, nh0 * planes.SH - w.pads_begin[0]);
      const int64_t ih1 = std::min<int64_t>(H, (nh0 + planes.rows) * planes.SH - w.pads_begin[0]);
      if (ih1 > ih0) {
        ahead = reinterpret_cast<const char*>(x + ((nn * H + ih0) * W) * C);
        ahead_bytes = (ih1 - ih0) * W * C * static_cast<int64_t>(sizeof(float));
      }
    }
    const int64_t shares = (g1 - g0) * panels * (oh1 - oh0) * row_tiles;  // one after each tile
    int64_t share = 0;
    for (int64_t grp = g0; grp < g1; ++grp) {
      const float* group_planes = buffer.data() + (grp - g0) * planes.GroupFloats();
      for (int64_t j = 0; j < panels; ++j) {
        const int64_t channel = grp * mg + j * kPanel;
        d.b = PackedF32Panel(packed[static_cast<size_t>(grp)], j, 0);
        d.col_bias = epi.col_bias != nullptr ? epi.col_bias + channel : nullptr;
        for (int64_t oh = oh0; oh < oh1; ++oh) {
          for (int64_t k = 0, ow = 0; k < row_tiles; ++k) {
            const int64_t rows = OW / row_tiles + (k < OW % row_tiles ? 1 : 0);
            const int64_t position = (n * OH + oh) * OW + ow;
            d.a = group_planes + ((oh - oh0) * planes.Wv + ow) * kCg;
            d.y = y + position * M + channel;
            d.sum = epi.sum != nullptr ? epi.sum + position * epi.ld_sum + channel : nullptr;
            kTiles[rows - 1](d);
            ow += rows;
            for (int64_t byte = ahead_bytes * share / shares / 64 * 64; byte < ahead_bytes * (share + 1) / shares;
                 byte += 64) {
              _mm_prefetch(ahead + byte, _MM_HINT_T1);
            }
            ++share;
          }
        }
      }
    }
    if (finish != nullptr) (*finish)(y + (n * P + oh0 * OW) * M, (oh1 - oh0) * OW * M);
  }
}

#else  // not x86-64: GroupedConvPlanesApplies is false (no AVX-512F), so this is never called.

void GroupedConvPlanesF32(const float*, const std::vector<PackedF32B>&, const ConvGeometry&,
                          const GemmEpilogue<float>&, float*, const FloatRowFinish*) {
  std::abort();
}

#endif

}  // namespace ptq
