// Int8 convolution by taps: the padded channels-last image is the GEMM's A, read tap by tap (int8_conv_taps.h).
#include "runtime/kernels/conv/int8_conv_taps.h"

#include <omp.h>

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

void Int8ConvTaps(const Tensor& x, int32_t x_zero_point, const ConvGeometry& geometry,
                  const PackedInt8ConvWeights& packed, const int32_t* bias, Int8Output out, const float* multiplier,
                  int32_t y_zero_point, Tensor& y, const float* float_bias, const FloatRowFinish* finish) {
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
  // Tap (kh, kw) of output position (oh, ow) is padded position (oh * sh + kh * dh, ow * sw + kw * dw).
  Int8GemmTaps taps;
  for (int64_t kh = 0; kh < win.kernel[1]; ++kh) {
    for (int64_t kw = 0; kw < win.kernel[2]; ++kw) {
      taps.offsets.push_back((kh * win.dilation[1] * padded.dims[2] + kw * win.dilation[2]) * C);
    }
  }
  taps.line_rows = win.out[2];
  taps.line_stride = win.stride[1] * padded.dims[2] * C;
  const auto* x_bytes = static_cast<const uint8_t*>(x.raw());
  auto* y_bytes = static_cast<uint8_t*>(y.raw());
  // Groups [g0, g1) of the image padded at `image` into image b of y.
  auto run_groups = [&](const uint8_t* image, int64_t b, int64_t g0, int64_t g1) {
    for (int64_t g = g0; g < g1; ++g) {
      const Int8GemmA a{out_plane, image + g * cg, false, win.stride[2] * C, &a_zero_point, false, &taps};
      const Int8GemmOut o{out, y_bytes + (b * out_plane * M + g * mg) * elem, M,
                          bias != nullptr ? bias + g * mg : nullptr, multiplier != nullptr ? multiplier + g * mg : nullptr,
                          y_zero_point, float_bias != nullptr ? float_bias + g * mg : nullptr, finish};
      Int8Gemm(a, packed.groups[static_cast<size_t>(g)], o);
    }
  };
  auto pad = [&](int64_t b) {
    thread_local std::vector<uint8_t> image;
    uint8_t* dst = GrowTo(image, C * padded.plane);
    PadPositions(x_bytes + b * in_plane * C, C, win, padded, pad_value, dst, flip);
    return dst;
  };
  // Threads as Int8Conv shares them: whole images each, or the groups of an image, or the rows of each GEMM.
  const int64_t group = geometry.group;
  const int64_t work = Int8GemmWork(out_plane, M, cg * win.kernel[1] * win.kernel[2], finish != nullptr);
  const int threads = InParallelRegion() ? 1 : omp_get_max_threads();
  if (threads > 1 && geometry.batch > 1 && geometry.batch * work >= kInt8ParallelWork &&
      (work < kInt8ParallelWork || geometry.batch % threads == 0)) {
    const int64_t per_thread = (geometry.batch + threads - 1) / threads;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int t = 0; t < threads; ++t) {
      for (int64_t b = t * per_thread; b < std::min(geometry.batch, (t + 1) * per_thread); ++b) {
        run_groups(pad(b), b, 0, group);
      }
    }
    return;
  }
  for (int64_t b = 0; b < geometry.batch; ++b) {
    const uint8_t* image = pad(b);
    if (threads > 1 && work >= kInt8ParallelWork && group >= 2 * threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int t = 0; t < threads; ++t) run_groups(image, b, group * t / threads, group * (t + 1) / threads);
    } else {
      run_groups(image, b, 0, group);
    }
  }
}

}  // namespace ptq
