// Int8 convolution by taps: the padded channels-last image is the GEMM's A, read tap by tap (int8_conv_taps.h).
#include "runtime/kernels/conv/int8_conv_taps.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "runtime/kernels/conv/int8_im2row.h"
#include "runtime/kernels/grow_only.h"
#include "runtime/threading.h"

namespace ptq {

bool Int8ConvTakesTaps(const ConvGeometry& geometry, const PackedInt8ConvWeights& packed) {
  if (!geometry.channels_last || !packed.channels_last || packed.groups.empty()) return false;
  const Window3 win = ToWindow3(geometry.window);
  const int64_t taps = win.kernel[0] * win.kernel[1] * win.kernel[2];
  return win.in[0] == 1 && win.kernel[0] == 1 && geometry.in_channels_per_group() % 4 == 0 &&
         Int8GemmTakesTaps(packed.groups[0], false, taps);
}

namespace {

// The taps of a padded image of `channels` bytes a position: tap (kh, kw) of output position (oh, ow) is padded position
// (oh * sh + kh * dh, ow * sw + kw * dw).
Int8GemmTaps TapsOf(const Window3& win, const PaddedGeometry& padded, int64_t channels) {
  Int8GemmTaps taps;
  for (int64_t kh = 0; kh < win.kernel[1]; ++kh) {
    for (int64_t kw = 0; kw < win.kernel[2]; ++kw) {
      taps.offsets.push_back((kh * win.dilation[1] * padded.dims[2] + kw * win.dilation[2]) * channels);
    }
  }
  taps.line_rows = win.out[2];
  taps.line_stride = win.stride[1] * padded.dims[2] * channels;
  return taps;
}

}  // namespace

void Int8ConvTaps(const Tensor& x, int32_t x_zero_point, const ConvGeometry& geometry,
                  const PackedInt8ConvWeights& packed, const int32_t* bias, Int8Output out, const float* multiplier,
                  int32_t y_zero_point, Tensor& y, const float* float_bias, const FloatRowFinish* finish,
                  const FloatRowSink* sink) {
  const Window3 win = ToWindow3(geometry.window);
  const PaddedGeometry padded = PadGeometry(win);
  const int64_t C = geometry.in_channels, M = geometry.out_channels;
  const int64_t cg = geometry.in_channels_per_group(), mg = geometry.out_channels_per_group();
  const int64_t in_plane = win.in[1] * win.in[2], out_plane = win.out[1] * win.out[2];
  const int64_t elem = out == Int8Output::kInt32 || out == Int8Output::kFloat ? 4 : 1;
  // int8 x is padded as uint8 (x + 128, the sign bit flipped), its zero point with it.
  const bool x_signed = x.dtype() == DataType::kInt8;
  const uint8_t flip = x_signed ? 0x80 : 0;
  const int32_t a_zero_point = x_zero_point + (x_signed ? 128 : 0);
  const uint8_t pad_value = static_cast<uint8_t>(static_cast<uint8_t>(x_zero_point) ^ flip);
  const auto* x_bytes = static_cast<const uint8_t*>(x.raw());
  auto* y_bytes = static_cast<uint8_t*>(y.raw());
  const Int8GemmTaps all = TapsOf(win, padded, C);
  // Rows [r0, r1) of image b (output positions, all groups), by this thread alone: it pads the lines they read into
  // its own buffer (no line of it written by another core), and writes whole positions of y. (Where the two
  // vCPUs sat on two L3 caches, RegNet-Y-800MF int8 at batch 1 took 7.6-7.8 ms on two threads with one thread padding
  // for both, 7.0 with im2row, and ran no faster on two threads than on one with its groups shared out: both threads
  // then wrote each 64-byte position of the output.)
  auto run_rows = [&](int64_t b, int64_t r0, int64_t r1) {
    if (r0 >= r1) return;
    const int64_t oh0 = r0 / win.out[2], oh1 = (r1 - 1) / win.out[2] + 1;  // the output lines they are in
    const int64_t l0 = oh0 * win.stride[1], l1 = (oh1 - 1) * win.stride[1] + (win.kernel[1] - 1) * win.dilation[1] + 1;
    thread_local std::vector<uint8_t> buffer;
    uint8_t* image = GrowTo(buffer, (l1 - l0) * padded.dims[2] * C);
    PadChannelsLines(x_bytes + b * in_plane * C, C, C, win, padded, pad_value, flip, l0, l1, image);
    Int8GemmTaps taps = all;
    taps.first_row = r0 - oh0 * win.out[2];
    for (int64_t g = 0; g < geometry.group; ++g) {
      const Int8GemmA a{r1 - r0, image + g * cg, false, win.stride[2] * C, &a_zero_point, false, &taps};
      const Int8GemmOut o{out, y_bytes + ((b * out_plane + r0) * M + g * mg) * elem, M,
                          bias != nullptr ? bias + g * mg : nullptr, multiplier != nullptr ? multiplier + g * mg : nullptr,
                          y_zero_point, float_bias != nullptr ? float_bias + g * mg : nullptr, finish, sink};
      Int8Gemm(a, packed.groups[static_cast<size_t>(g)], o);
    }
  };
  // Threads take whole images (as Int8Conv shares them), or even shares of each image's rows.
  const int64_t work =
      Int8GemmWork(out_plane, M, cg * win.kernel[1] * win.kernel[2], finish != nullptr || sink != nullptr);
  const int threads = InParallelRegion() ? 1 : omp_get_max_threads();
  if (Int8ConvSharesImages(geometry.batch, work, threads)) {
    const int64_t per_thread = (geometry.batch + threads - 1) / threads;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int t = 0; t < threads; ++t) {
      for (int64_t b = t * per_thread; b < std::min(geometry.batch, (t + 1) * per_thread); ++b) run_rows(b, 0, out_plane);
    }
    return;
  }
  for (int64_t b = 0; b < geometry.batch; ++b) {
    if (threads > 1 && work >= kInt8ParallelWork) {
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int t = 0; t < threads; ++t) run_rows(b, out_plane * t / threads, out_plane * (t + 1) / threads);
    } else {
      run_rows(b, 0, out_plane);
    }
  }
}

}  // namespace ptq
