// Int8 convolution as GEMMs: im2row of each image and group, Int8Gemm, then a transpose into NCHW order.
#include "runtime/kernels/conv/int8_conv.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "runtime/kernels/conv/depthwise_conv.h"
#include "runtime/kernels/conv/depthwise_nhwc.h"
#include "runtime/kernels/conv/int8_conv_taps.h"
#include "runtime/kernels/conv/int8_im2row.h"
#include "runtime/kernels/conv/transpose_bytes.h"
#include "runtime/kernels/grow_only.h"
#include "runtime/kernels/vector/transpose_2d.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

// Images are shared out between threads when they hold at least this much work in all (Int8GemmWork),
// and none alone reaches kSplitGemmMacs (then each image's output lines are shared out instead).
// The same bar as a GEMM split: below it, waking a second thread costs more than it saves, and on a
// busy machine the wake-up can wait for a whole scheduler slice (measured: 16 ms for a 0.03 ms CNN).
constexpr int64_t kParallelImagesMacs = kInt8ParallelWork;
constexpr int64_t kSplitGemmMacs = kInt8ParallelWork;

// Channels-last im2row (whole runs of taps x channels bytes) from this many channels per group on;
// with fewer, channel-major rows copy longer runs.
bool UseChannelsLast(int64_t channels_per_group) { return channels_per_group >= 4; }

struct ConvScratch {
  std::vector<uint8_t> positions;  // channels-last copy of one image's planes
  std::vector<uint8_t> padded;
  std::vector<uint8_t> rows;
  std::vector<uint8_t> out;
};

}  // namespace

bool Int8ConvSharesImages(int64_t batch, int64_t work_per_image, int threads) {
  return threads > 1 && batch > 1 && batch * work_per_image >= kParallelImagesMacs &&
         (work_per_image < kSplitGemmMacs || batch % threads == 0);
}

PackedInt8ConvWeights PackInt8ConvWeights(const Tensor& w, const std::vector<int32_t>& w_zero_points, int64_t group,
                                          bool channels_last_input) {
  PackedInt8ConvWeights packed;
  packed.w_shape = w.shape();
  packed.dtype = w.dtype();
  packed.group = group;
  const int64_t M = w.shape()[0];
  const int64_t per_group = M / group;
  const int64_t K = M == 0 ? 0 : w.size() / M;  // C/group * kernel points
  const int64_t channels = w.shape()[1];
  const int64_t taps = channels == 0 ? 0 : K / channels;
  packed.channels_last = channels_last_input || UseChannelsLast(channels);
  std::vector<uint8_t> reordered(packed.channels_last ? static_cast<size_t>(per_group * K) : 0);
  std::vector<int32_t> zp(static_cast<size_t>(per_group));
  const auto* bytes = static_cast<const uint8_t*>(w.raw());
  packed.groups.resize(static_cast<size_t>(group));
  for (int64_t g = 0; g < group; ++g) {
    for (int64_t m = 0; m < per_group; ++m) {
      zp[static_cast<size_t>(m)] = w_zero_points.size() == 1 ? w_zero_points[0]
                                                             : w_zero_points[static_cast<size_t>(g * per_group + m)];
    }
    // B[k][m] = w[g * per_group + m][k]: the weight rows are B's columns, their k in im2row's order.
    const uint8_t* rows = bytes + g * per_group * K;
    if (packed.channels_last) {  // k = c * taps + t becomes t * channels + c
      for (int64_t m = 0; m < per_group; ++m) {
        for (int64_t c = 0; c < channels; ++c) {
          for (int64_t t = 0; t < taps; ++t) reordered[m * K + t * channels + c] = rows[m * K + c * taps + t];
        }
      }
      rows = reordered.data();
    }
    packed.groups[static_cast<size_t>(g)].Pack(rows, w.dtype() == DataType::kInt8, K, per_group, K, true, zp.data(),
                                               BestInt8Isa());
  }
  if (channels == 1 && group > 1 && taps <= kMaxExactDepthwiseTaps) {
    std::vector<int32_t> all(static_cast<size_t>(M));
    for (size_t m = 0; m < all.size(); ++m) all[m] = w_zero_points[w_zero_points.size() == 1 ? 0 : m];
    packed.depthwise = CenteredDepthwiseWeights(bytes, w.dtype() == DataType::kInt8, all.data(), M, taps);
  }
  return packed;
}

void Int8Conv(const Tensor& x, int32_t x_zero_point, const Tensor& w, const std::vector<int32_t>& w_zero_points,
              const ConvGeometry& geometry, const PackedInt8ConvWeights* packed, const int32_t* bias, Int8Output out,
              const float* multiplier, int32_t y_zero_point, Tensor& y, const float* float_bias,
              const FloatRowFinish* finish, const FloatRowSink* sink) {
  if (out != Int8Output::kFloat) {
    finish = nullptr;
    sink = nullptr;
  }
  if ((finish != nullptr || sink != nullptr) && !geometry.channels_last) {  // channel-major planes: one pass at the end
    Int8Conv(x, x_zero_point, w, w_zero_points, geometry, packed, bias, out, multiplier, y_zero_point, y, float_bias);
    if (finish != nullptr) (*finish)(y.data<float>(), y.size());
    if (sink != nullptr) (*sink)(y.data<float>(), y.size(), y.data<float>());
    return;
  }
  if (geometry.group > 1 && IsDepthwise(geometry) &&
      ShapeSize(geometry.window.kernel) <= kMaxExactDepthwiseTaps) {
    // Stored in y: each block finished, then handed to the sink from there.
    FloatRowFinish finish_then_sink;
    if (sink != nullptr) {
      finish_then_sink = [finish, sink](float* p, int64_t n) {
        if (finish != nullptr) (*finish)(p, n);
        (*sink)(p, n, p);
      };
      finish = &finish_then_sink;
    }
    std::vector<int32_t> zp(static_cast<size_t>(geometry.out_channels));
    for (size_t m = 0; m < zp.size(); ++m) zp[m] = w_zero_points.size() == 1 ? w_zero_points[0] : w_zero_points[m];
    if (geometry.channels_last) {
      const bool centered = packed != nullptr && !packed->depthwise.empty() && packed->w_shape == w.shape();
      Int8DepthwiseConvNhwc(static_cast<const uint8_t*>(x.raw()), x.dtype() == DataType::kInt8, x_zero_point,
                            static_cast<const uint8_t*>(w.raw()), w.dtype() == DataType::kInt8, zp.data(), geometry,
                            bias, out, multiplier, y_zero_point, y.raw(), float_bias, finish,
                            centered ? packed->depthwise.data() : nullptr);
    } else {
      Int8DepthwiseConv(static_cast<const uint8_t*>(x.raw()), x.dtype() == DataType::kInt8, x_zero_point,
                        static_cast<const uint8_t*>(w.raw()), w.dtype() == DataType::kInt8, zp.data(), geometry, bias,
                        out, multiplier, y_zero_point, y.raw(), float_bias);
    }
    return;
  }
  const bool nhwc = geometry.channels_last;
  PackedInt8ConvWeights local;
  if (packed == nullptr || (nhwc && !packed->channels_last)) {
    local = PackInt8ConvWeights(w, w_zero_points, geometry.group, nhwc);
    packed = &local;
  }
  const Window3 win = ToWindow3(geometry.window);
  const int64_t in_plane = win.in[0] * win.in[1] * win.in[2];
  const int64_t out_plane = win.out[0] * win.out[1] * win.out[2];
  const int64_t C = geometry.in_channels;
  const int64_t cg = geometry.in_channels_per_group();
  const int64_t mg = geometry.out_channels_per_group();
  const int64_t M = geometry.out_channels;
  const int64_t K = cg * win.kernel[0] * win.kernel[1] * win.kernel[2];
  const int64_t elem = out == Int8Output::kInt32 || out == Int8Output::kFloat ? 4 : 1;
  const bool x_signed = x.dtype() == DataType::kInt8;
  // The byte that stands for x_zero_point in x's type: padding contributes (x_zero_point - x_zero_point) = 0.
  const uint8_t pad_value = static_cast<uint8_t>(x_zero_point);
  const auto* x_bytes = static_cast<const uint8_t*>(x.raw());
  auto* y_bytes = static_cast<uint8_t*>(y.raw());
  const PaddedGeometry padded = PadGeometry(win);
  auto gemm_out = [&](int64_t g, void* data, int64_t ldc) {
    return Int8GemmOut{out, data, ldc, bias != nullptr ? bias + g * mg : nullptr,
                       multiplier != nullptr ? multiplier + g * mg : nullptr, y_zero_point,
                       float_bias != nullptr ? float_bias + g * mg : nullptr, finish, sink};
  };
  // Channels last, one group, a 1x1 window with stride 1 and no padding: x itself is the GEMM's A and
  // the GEMM writes y; nothing is copied.
  bool pointwise = nhwc && geometry.group == 1;
  for (int i = 0; i < 3; ++i) pointwise = pointwise && win.kernel[i] == 1 && win.stride[i] == 1 && win.pad[i] == 0;
  if (pointwise && padded.plane == in_plane) {
    const Int8GemmA a{geometry.batch * in_plane, x_bytes, x_signed, C, &x_zero_point, false};
    Int8Gemm(a, packed->groups[0], gemm_out(0, y_bytes, M));
    return;
  }
  // Channels last with whole 4-byte runs of channels per group: the GEMM reads the padded image tap by tap. The
  // im2row rows of PP-OCRv4's detector's 3 x 3 convolutions of 96 to 24 channels took 22 MB per image at batch 8 and
  // a third of their time; RegNet's grouped ones first copied each group's channels out of every position.
  if (Int8ConvTakesTaps(geometry, *packed)) {
    Int8ConvTaps(x, x_zero_point, geometry, *packed, bias, out, multiplier, y_zero_point, y, float_bias, finish, sink);
    return;
  }
  // The channels-last positions of group g of image b: x itself (NHWC, one group), a copy of its
  // channels (NHWC, groups) or the transpose of its planes (NCHW) in `scratch`.
  auto positions = [&](int64_t b, int64_t g, std::vector<uint8_t>& scratch) -> const uint8_t* {
    if (nhwc) {
      const uint8_t* image = x_bytes + b * in_plane * C;
      if (geometry.group == 1) return image;
      uint8_t* copy = GrowTo(scratch, cg * in_plane);
      for (int64_t i = 0; i < in_plane; ++i) std::memcpy(copy + i * cg, image + i * C + g * cg, cg);
      return copy;
    }
    uint8_t* planes = GrowTo(scratch, cg * in_plane);
    TransposeBytes(x_bytes + (b * C + g * cg) * in_plane, cg, in_plane, planes);
    return planes;
  };
  // Image b, group g into the padded buffer `pad` (channels-last or channel-major, as the packing).
  auto pad_image = [&](int64_t b, int64_t g, std::vector<uint8_t>& scratch, uint8_t* pad) {
    if (packed->channels_last) {
      PadPositions(positions(b, g, scratch), cg, win, padded, pad_value, pad);
    } else {
      PadPlanes(x_bytes + (b * C + g * cg) * in_plane, cg, win, padded, pad_value, pad);
    }
  };
  auto im2row = [&](const uint8_t* pad, uint8_t* rows, int64_t l0, int64_t l1) {
    if (packed->channels_last) {
      Im2RowChannelsLast(pad, cg, win, padded, rows, l0, l1);
    } else {
      Im2Row(pad, cg, win, padded, rows, l0, l1);
    }
  };
  // `count` rows of GEMM output for group g (positions [p0, p0 + count) of image b, or of consecutive
  // images from b on), from src [count, mg] to y.
  auto store = [&](int64_t b, int64_t p0, int64_t count, int64_t g, const uint8_t* src) {
    for (int64_t done = 0; done < count;) {  // one image at a time
      const int64_t bi = b + (p0 + done) / out_plane, pi = (p0 + done) % out_plane;
      const int64_t n = std::min(count - done, out_plane - pi);
      uint8_t* dst = y_bytes + ((bi * M + g * mg) * out_plane + pi) * elem;
      const uint8_t* from = src + done * mg * elem;
      if (elem == 1) {
        TransposeBytes(from, n, mg, dst, out_plane);
      } else {
        Transpose2D(from, n, mg, 4, dst, out_plane);
      }
      done += n;
    }
  };
  const int64_t lines = win.out[0] * win.out[1];
  // Images go through the GEMM together, as many as keep the im2row buffer near kRowsBudget.
  constexpr int64_t kRowsBudget = int64_t{4} << 20;
  const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(geometry.batch, kRowsBudget / std::max<int64_t>(1, out_plane * K)));
  // Images [b0, b0 + images) through im2row, one GEMM per group of [g0, g1) (all by default), and the store
  // into y.
  auto run_images = [&](int64_t b0, int64_t images, int64_t g0 = 0, int64_t g1 = -1) {
    thread_local ConvScratch s;
    GrowTo(s.rows, images * out_plane * K + kIm2RowSlack);
    GrowTo(s.padded, cg * padded.plane + kIm2RowSlack);
    if (!nhwc) GrowTo(s.out, images * out_plane * mg * elem);
    for (int64_t g = g0; g < (g1 < 0 ? geometry.group : g1); ++g) {
      for (int64_t i = 0; i < images; ++i) {
        pad_image(b0 + i, g, s.positions, s.padded.data());
        im2row(s.padded.data(), s.rows.data() + i * out_plane * K, 0, lines);
      }
      const Int8GemmA a{images * out_plane, s.rows.data(), x_signed, K, &x_zero_point, false};
      if (nhwc) {
        Int8Gemm(a, packed->groups[static_cast<size_t>(g)], gemm_out(g, y_bytes + (b0 * out_plane * M + g * mg) * elem, M));
      } else {
        Int8Gemm(a, packed->groups[static_cast<size_t>(g)], gemm_out(g, s.out.data(), mg));
        store(b0, 0, images * out_plane, g, s.out.data());
      }
    }
  };
  // Image b with its output lines (od, oh) shared between threads: the padded input is made once per
  // group, then each thread builds the rows of its lines, multiplies them alone and stores its part of
  // every output plane.
  auto run_lines = [&](int64_t b, int threads) {
    std::vector<uint8_t> scratch;
    std::vector<uint8_t> padded_x(static_cast<size_t>(cg * padded.plane + kIm2RowSlack));
    for (int64_t g = 0; g < geometry.group; ++g) {
      pad_image(b, g, scratch, padded_x.data());
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int t = 0; t < threads; ++t) {
        const int64_t l0 = lines * t / threads, l1 = lines * (t + 1) / threads;
        if (l0 == l1) continue;
        const int64_t p0 = l0 * win.out[2], count = (l1 - l0) * win.out[2];  // output positions of these lines
        thread_local ConvScratch s;
        GrowTo(s.rows, count * K + kIm2RowSlack);
        im2row(padded_x.data(), s.rows.data(), l0, l1);
        const Int8GemmA a{count, s.rows.data(), x_signed, K, &x_zero_point, false};
        if (nhwc) {
          uint8_t* dst = y_bytes + ((b * out_plane + p0) * M + g * mg) * elem;
          Int8Gemm(a, packed->groups[static_cast<size_t>(g)], gemm_out(g, dst, M));
        } else {
          GrowTo(s.out, count * mg * elem);
          Int8Gemm(a, packed->groups[static_cast<size_t>(g)], gemm_out(g, s.out.data(), mg));
          store(b, p0, count, g, s.out.data());
        }
      }
    }
  };
  // Image b with its groups shared between threads, each thread a run of consecutive groups (so that
  // threads write apart in a channels-last y): pad, im2row, GEMM and store of a group by one thread. One
  // parallel region for all groups, where sharing each group's lines (run_lines) woke the threads once per
  // group for a few microseconds of work each: RegNet's 3x3 convolutions of 16-channel groups ran no
  // faster on two threads than on one.
  auto run_groups = [&](int64_t b, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int t = 0; t < threads; ++t) {
      run_images(b, 1, geometry.group * t / threads, geometry.group * (t + 1) / threads);
    }
  };
  // Several images and threads: each thread takes whole images (im2row and stores included), unless one
  // image is big enough to be shared out by its output lines or groups and the images do not divide evenly
  // between the threads. Sharing each image of a batch of 8 by lines or groups instead kept one thread's
  // padding per image serial and woke the threads once per image: RegNet-Y-800MF int8 at batch 8 ran 1.1x
  // faster on two threads than on one (its 3-channel stem 1.0x, its grouped 3 x 3s 1.0-1.6x).
  // As the GEMM weighs it.
  const int64_t macs_per_image = Int8GemmWork(out_plane, M, K, finish != nullptr || sink != nullptr);
  const int threads = InParallelRegion() ? 1 : omp_get_max_threads();
  if (Int8ConvSharesImages(geometry.batch, macs_per_image, threads)) {
    const int64_t per_thread = (geometry.batch + threads - 1) / threads;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int t = 0; t < threads; ++t) {
      const int64_t b0 = t * per_thread, b1 = std::min(geometry.batch, b0 + per_thread);
      for (int64_t b = b0; b < b1; b += chunk) run_images(b, std::min(chunk, b1 - b));
    }
    return;
  }
  if (threads > 1 && macs_per_image >= kSplitGemmMacs && geometry.group >= 2 * threads) {
    for (int64_t b = 0; b < geometry.batch; ++b) run_groups(b, threads);
    return;
  }
  if (threads > 1 && macs_per_image >= kSplitGemmMacs && lines >= threads) {
    for (int64_t b = 0; b < geometry.batch; ++b) run_lines(b, threads);
    return;
  }
  for (int64_t b0 = 0; b0 < geometry.batch; b0 += chunk) run_images(b0, std::min(chunk, geometry.batch - b0));
}

}  // namespace ptq
