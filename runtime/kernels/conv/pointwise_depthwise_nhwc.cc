// PointwiseDepthwiseNhwcF32: per block of output rows (or of channels), the expanded rows its windows reach
// are computed a step at a time into a ring of rows (one GEMM per run of rows), then the depthwise rows read
// them there.
#include "runtime/kernels/conv/pointwise_depthwise_nhwc.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "runtime/threading.h"

namespace ptq {
namespace {

// Expanded positions per GEMM call at least (a step takes enough output rows for this many).
constexpr int64_t kStepPositions = 256;
// Blocks of output rows are shared between threads from this many multiply-adds per image.
constexpr int64_t kParallelMacs = int64_t{1} << 19;

struct RingLayout {
  int64_t H, W, C, E, OH, OW;  // E: the channels of the ring (a block's, or all)
  int64_t step;   // output rows per step
  int64_t slots;  // rows the ring holds: every row one step reads
};

// Where a block's outputs go: y (already at the block's first channel) with `channels` values per position;
// when the block is not all of them, each output row is computed into `row` (OW x l.E) and copied there.
struct Output {
  float* y;
  int64_t channels;
  float* row;
};

// Output rows [oh0, oh1) of image n, with `ring` (slots x W x E floats) as the expanded rows, w the packed
// columns and pw's epilogue the biases of the ring's channels.
void RunBlock(const float* x, const PackedF32B& w, const PointwiseStage& pw, const DepthwiseNhwcRows<float>& dw,
              const RingLayout& l, int64_t n, int64_t oh0, int64_t oh1, float* ring, const Output& out) {
  const int64_t KH = dw.kernel_rows(), row_values = l.W * l.E;
  std::vector<const float*> in_rows(static_cast<size_t>(KH));
  int64_t next = 0;  // the first expanded row not in the ring yet (rows before a step's first are skipped)
  // Expanded rows [r0, r1) into their slots (row r in slot r % slots), one GEMM per run of consecutive slots.
  auto expand = [&](int64_t r0, int64_t r1) {
    while (r0 < r1) {
      const int64_t slot = r0 % l.slots, count = std::min(r1 - r0, l.slots - slot);
      float* e = ring + slot * row_values;
      GemmF32Avx2Packed(count * l.W, 1.0f, x + ((n * l.H + r0) * l.W) * l.C, l.C, w, 0.0f, e, l.E, BestF32Kernels(),
                        pw.epilogue);
      if (pw.finish != nullptr) (*pw.finish)(e, count * row_values);
      r0 += count;
    }
  };
  for (int64_t s0 = oh0; s0 < oh1; s0 += l.step) {
    const int64_t s1 = std::min(oh1, s0 + l.step);
    const int64_t first = std::max<int64_t>(0, dw.InputRow(s0, 0));
    const int64_t last = std::min(l.H, dw.InputRow(s1 - 1, KH - 1) + 1);  // rows [first, last) are read
    next = std::max(next, first);
    if (last > next) {
      expand(next, last);
      next = last;
    }
    for (int64_t oh = s0; oh < s1; ++oh) {
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t ih = dw.InputRow(oh, kh);
        in_rows[static_cast<size_t>(kh)] = ih >= 0 && ih < l.H ? ring + ih % l.slots * row_values : nullptr;
      }
      float* yrow = out.y + ((n * l.OH + oh) * l.OW) * out.channels;
      if (out.row == nullptr) {
        dw.Run(in_rows.data(), yrow);
        continue;
      }
      dw.Run(in_rows.data(), out.row);
      for (int64_t ow = 0; ow < l.OW; ++ow) {
        std::copy(out.row + ow * l.E, out.row + (ow + 1) * l.E, yrow + ow * out.channels);
      }
    }
  }
}

// The threads that share an image's work: one below kParallelMacs multiply-adds per image.
int SharingThreads(const ConvGeometry& g, int64_t C) {
  const int64_t macs = g.window.input[0] * g.window.input[1] * C * g.out_channels;
  return ThreadsForWork(macs, kParallelMacs);
}

}  // namespace

std::vector<int64_t> PointwiseDepthwiseChannelBlocks(const ConvGeometry& g, int64_t C) {
  const int threads = SharingThreads(g, C);
  const int64_t E = g.out_channels;
  if (threads == 1 || g.batch >= threads || g.window.output[0] >= kChannelSplitRows) return {};
  // About kUnitsPerThread blocks per thread over the images.
  const int64_t per_image = (int64_t{threads} * kUnitsPerThread + g.batch - 1) / g.batch;
  const int64_t width = std::max<int64_t>(32, ((E + per_image - 1) / per_image + 15) / 16 * 16);
  if (width >= E) return {};
  std::vector<int64_t> blocks;
  for (int64_t c0 = 0; c0 < E; c0 += width) blocks.push_back(std::min(width, E - c0));
  return blocks;
}

void PointwiseDepthwiseNhwcF32(const float* x, int64_t C, const PointwiseStage& pw, const DepthwiseStage& dws,
                               const ConvGeometry& g, const std::vector<int64_t>& blocks,
                               const std::vector<PackedF32B>& blocks_w, float* y) {
  RingLayout l;
  l.H = g.window.input[0];
  l.W = g.window.input[1];
  l.C = C;
  l.E = g.out_channels;
  l.OH = g.window.output[0];
  l.OW = g.window.output[1];
  const int64_t stride = g.window.strides[0];
  l.step = std::min(l.OH, std::max<int64_t>(1, kStepPositions / std::max<int64_t>(1, stride * l.W)));
  // One step reads (step - 1) * stride + the window's height rows.
  l.slots = (l.step - 1) * stride + (g.window.kernel[0] - 1) * g.window.dilations[0] + 1;
  const int threads = SharingThreads(g, C);
  if (!blocks.empty()) {  // units (image, block of channels), each a whole image
    // Per block: its first channel, its depthwise convolution and its pointwise biases.
    const int64_t taps = g.window.kernel[0] * g.window.kernel[1], count = static_cast<int64_t>(blocks.size());
    std::vector<int64_t> first(blocks.size());
    std::vector<DepthwiseNhwcRows<float>> dw;
    std::vector<PointwiseStage> pb(blocks.size(), pw);
    for (size_t i = 0; i < blocks.size(); ++i) {
      if (i > 0) first[i] = first[i - 1] + blocks[i - 1];
      ConvGeometry gb = g;
      gb.in_channels = gb.out_channels = gb.group = blocks[i];
      dw.emplace_back(dws.w + first[i] * taps, dws.bias != nullptr ? dws.bias + first[i] : nullptr, gb, dws.clamp,
                      dws.finish_row);
      if (pb[i].epilogue.col_bias != nullptr) pb[i].epilogue.col_bias += first[i];
    }
    const int64_t units = g.batch * count;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t u = 0; u < units; ++u) {
      const int64_t n = u / count;
      const size_t b = static_cast<size_t>(u % count);
      RingLayout lb = l;
      lb.E = blocks[b];
      thread_local std::vector<float> ring, row;  // kept from run to run
      ring.resize(std::max(ring.size(), static_cast<size_t>(lb.slots * lb.W * lb.E)));
      row.resize(std::max(row.size(), static_cast<size_t>(lb.OW * lb.E)));
      const Output out{y + first[b], l.E, row.data()};
      RunBlock(x, blocks_w[b], pb[b], dw[b], lb, n, 0, l.OH, ring.data(), out);
    }
    return;
  }
  const DepthwiseNhwcRows<float> dw(dws.w, dws.bias, g, dws.clamp, dws.finish_row);
  // Whole images when there are enough for every thread; else each image in `row_blocks` blocks of output rows.
  const int64_t row_blocks = g.batch >= threads ? 1 : std::min<int64_t>(l.OH, (threads + g.batch - 1) / g.batch);
  const int64_t units = g.batch * row_blocks;
  const size_t ring_floats = static_cast<size_t>(l.slots * l.W * l.E);
  auto run = [&](int64_t u, float* ring) {
    const int64_t n = u / row_blocks, b = u % row_blocks;
    const Output out{y, l.E, nullptr};
    RunBlock(x, *pw.w, pw, dw, l, n, l.OH * b / row_blocks, l.OH * (b + 1) / row_blocks, ring, out);
  };
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && units > 1)
  for (int64_t u = 0; u < units; ++u) {
    thread_local std::vector<float> ring;  // kept from run to run
    if (ring.size() < ring_floats) ring.resize(ring_floats);
    run(u, ring.data());
  }
}

}  // namespace ptq
