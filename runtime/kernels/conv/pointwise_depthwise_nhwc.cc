// PointwiseDepthwiseNhwcF32: per block of output rows, the expanded rows its windows reach are computed a
// step at a time into a ring of rows (one GEMM per run of rows), then the depthwise rows read them there.
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
  int64_t H, W, C, E, OH, OW;
  int64_t step;   // output rows per step
  int64_t slots;  // rows the ring holds: every row one step reads
};

// Output rows [oh0, oh1) of image n, with `ring` (slots x W x E floats) as the expanded rows.
void RunBlock(const float* x, const PointwiseStage& pw, const DepthwiseNhwcRows<float>& dw, const RingLayout& l,
              int64_t n, int64_t oh0, int64_t oh1, float* ring, float* y) {
  const int64_t KH = dw.kernel_rows(), row_values = l.W * l.E;
  std::vector<const float*> in_rows(static_cast<size_t>(KH));
  int64_t next = 0;  // the first expanded row not in the ring yet (rows before a step's first are skipped)
  // Expanded rows [r0, r1) into their slots (row r in slot r % slots), one GEMM per run of consecutive slots.
  auto expand = [&](int64_t r0, int64_t r1) {
    while (r0 < r1) {
      const int64_t slot = r0 % l.slots, count = std::min(r1 - r0, l.slots - slot);
      float* out = ring + slot * row_values;
      GemmF32Avx2Packed(count * l.W, 1.0f, x + ((n * l.H + r0) * l.W) * l.C, l.C, *pw.w, 0.0f, out, l.E,
                        BestF32Kernels(), pw.epilogue);
      if (pw.finish != nullptr) pw.finish(out, count * row_values);
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
      dw.Run(in_rows.data(), y + ((n * l.OH + oh) * l.OW) * l.E);
    }
  }
}

}  // namespace

void PointwiseDepthwiseNhwcF32(const float* x, int64_t C, const PointwiseStage& pw,
                               const DepthwiseNhwcRows<float>& dw, const ConvGeometry& g, float* y) {
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
  const int64_t macs = l.H * l.W * l.C * l.E;
  const int threads = omp_in_parallel() || macs < kParallelMacs ? 1 : omp_get_max_threads();
  // Whole images when there are enough for every thread; else each image in `blocks` blocks of output rows.
  const int64_t blocks = g.batch >= threads ? 1 : std::min<int64_t>(l.OH, (threads + g.batch - 1) / g.batch);
  const int64_t units = g.batch * blocks;
  const size_t ring_floats = static_cast<size_t>(l.slots * l.W * l.E);
  auto run = [&](int64_t u, float* ring) {
    const int64_t n = u / blocks, b = u % blocks;
    RunBlock(x, pw, dw, l, n, l.OH * b / blocks, l.OH * (b + 1) / blocks, ring, y);
  };
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && units > 1)
  for (int64_t u = 0; u < units; ++u) {
    thread_local std::vector<float> ring;  // kept from run to run
    if (ring.size() < ring_floats) ring.resize(ring_floats);
    run(u, ring.data());
  }
}

}  // namespace ptq
