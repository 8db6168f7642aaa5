// ConvTransposeTiling: per (image, group, block of input rows), col = W_g^T * X rows by GEMM into a per-thread
// buffer, then each output row written once, interleaving the kernel columns' values.
#include "runtime/kernels/conv/conv_transpose_tiling.h"

#include <omp.h>

#include <algorithm>
#include <memory>

#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"
#include "runtime/threading.h"

namespace ptq {

bool ConvTransposeTiles(const SlidingWindow& win) {
  if (win.rank() != 2) return false;
  for (size_t d = 0; d < 2; ++d) {
    if (win.kernel[d] != win.strides[d] || win.dilations[d] != 1 || win.pads_begin[d] != 0 || win.pads_end[d] != 0 ||
        win.output[d] != win.input[d] * win.strides[d]) {
      return false;
    }
  }
  return true;
}

void ConvTransposeTiling(const float* x, const float* w, const float* bias, int64_t batch, int64_t group, int64_t cg,
                         int64_t mg, const SlidingWindow& win, float* y) {
  const int64_t h = win.input[0], wd = win.input[1], s0 = win.strides[0], s1 = win.strides[1];
  const int64_t taps = s0 * s1, rows_out = mg * taps, in_size = h * wd, out_w = wd * s1, out_size = in_size * taps;
  // Input rows a block: their products (rows_out x rows * W floats) about 256 KiB, so that they stay in L2.
  const int64_t rows = std::max<int64_t>(1, std::min(h, (int64_t{64} << 10) / std::max<int64_t>(1, rows_out * wd)));
  const int64_t blocks = (h + rows - 1) / rows, units = batch * group * blocks;
  const int threads = units < 2 ? 1 : ThreadsForWork(batch * group * mg * out_size, int64_t{1} << 16);
  // One block's products a thread (not zero-filled: the GEMM writes every value read).
  const int64_t per_thread = rows_out * rows * wd;
  const std::unique_ptr<float[]> col_buffer(new float[static_cast<size_t>(per_thread * threads)]);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (int64_t u = 0; u < units; ++u) {
    const int64_t block = u % blocks, grp = (u / blocks) % group, n = u / (blocks * group);
    const int64_t i0 = block * rows, i1 = std::min(h, i0 + rows), cols = (i1 - i0) * wd;
    float* col = col_buffer.get() + per_thread * (threads > 1 ? omp_get_thread_num() : 0);
    const float* xg = x + (n * group + grp) * cg * in_size + i0 * wd;
    // col [mg * taps, cols] = W_g^T (W_g stored [cg, mg * taps]) * X_g's rows i0 .. i1 - 1.
    GemmF32Avx2(true, false, rows_out, cols, cg, 1.0f, w + grp * cg * rows_out, rows_out, xg, in_size, 0.0f, col,
                cols);
    for (int64_t m = 0; m < mg; ++m) {
      const int64_t channel = grp * mg + m;
      const float b = bias != nullptr ? bias[channel] : 0.0f;
      float* yc = y + (n * group * mg + channel) * out_size;
      for (int64_t i = i0; i < i1; ++i) {
        for (int64_t a = 0; a < s0; ++a) {
          float* out = yc + (i * s0 + a) * out_w;
          for (int64_t t = 0; t < s1; ++t) {  // tap (a, t): every s1-th value of the output row from t
            const float* c = col + (m * taps + a * s1 + t) * cols + (i - i0) * wd;
            for (int64_t j = 0; j < wd; ++j) out[j * s1 + t] = b + c[j];
          }
        }
      }
    }
  }
}

}  // namespace ptq
