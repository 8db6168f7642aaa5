// Int8 convolution as GEMMs: im2row of each image and group, Int8Gemm, then a transpose into NCHW order.
#include "runtime/ops/int8_conv.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "runtime/ops/transpose_bytes.h"

namespace ptq {
namespace {

// A window of up to 3 spatial axes, with leading axes of size 1 added for lower ranks.
struct Window3 {
  int64_t in[3], kernel[3], stride[3], dilation[3], pad[3], out[3];
};

Window3 ToWindow3(const SlidingWindow& w) {
  Window3 r;
  const size_t rank = w.rank();
  for (size_t i = 0; i < 3; ++i) {
    const bool real = i + rank >= 3;
    const size_t j = real ? i + rank - 3 : 0;
    r.in[i] = real ? w.input[j] : 1;
    r.kernel[i] = real ? w.kernel[j] : 1;
    r.stride[i] = real ? w.strides[j] : 1;
    r.dilation[i] = real ? w.dilations[j] : 1;
    r.pad[i] = real ? w.pads_begin[j] : 0;
    r.out[i] = real ? w.output[j] : 1;
  }
  return r;
}

// The input planes copied with their padding filled in, so that every tap of every output position
// is in bounds: plane sizes in[i] + pad_begin[i] + pad_end[i] (pad_end grown where the last window
// reaches further).
struct PaddedGeometry {
  int64_t dims[3];
  int64_t plane;
};

PaddedGeometry PadGeometry(const Window3& w) {
  PaddedGeometry p;
  for (int i = 0; i < 3; ++i) {
    const int64_t reach = (w.out[i] - 1) * w.stride[i] + (w.kernel[i] - 1) * w.dilation[i] + 1;
    p.dims[i] = std::max(reach, w.pad[i] + w.in[i]);
  }
  p.plane = p.dims[0] * p.dims[1] * p.dims[2];
  return p;
}

// dst (channels planes of p) = x (channels planes of w.in) placed at offset pad, pad_value elsewhere.
void PadPlanes(const uint8_t* x, int64_t channels, const Window3& w, const PaddedGeometry& p, uint8_t pad_value,
               uint8_t* dst) {
  std::fill(dst, dst + channels * p.plane, pad_value);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t d = 0; d < w.in[0]; ++d) {
      for (int64_t h = 0; h < w.in[1]; ++h) {
        const uint8_t* src = x + ((c * w.in[0] + d) * w.in[1] + h) * w.in[2];
        uint8_t* out = dst + c * p.plane + ((d + w.pad[0]) * p.dims[1] + h + w.pad[1]) * p.dims[2] + w.pad[2];
        std::copy(src, src + w.in[2], out);
      }
    }
  }
}

// Bytes the im2row and padded buffers keep beyond their end for Im2RowFixed's 8-byte copies.
constexpr int64_t kSlack = 8;

// rows[o][c * taps + k] = padded[c][o * stride + k * dilation] (o and k row-major multi-indices).
// kKw > 0 fixes the kernel width (at most 8, with dilation 1 along it) at compile time; then each
// kernel line is moved as one 8-byte copy, so both buffers need kSlack bytes past their end.
template <int kKw>
void Im2RowFixed(const uint8_t* padded, int64_t channels, const Window3& w, const PaddedGeometry& p, uint8_t* rows) {
  const int64_t kw_n = kKw > 0 ? kKw : w.kernel[2];
  const int64_t kw_step = kKw > 0 ? 1 : w.dilation[2];
  const int64_t lines = w.kernel[0] * w.kernel[1];  // (kd, kh) pairs; each takes kw_n taps
  std::vector<int64_t> line(static_cast<size_t>(lines));
  for (int64_t kd = 0, i = 0; kd < w.kernel[0]; ++kd) {
    for (int64_t kh = 0; kh < w.kernel[1]; ++kh, ++i) {
      line[static_cast<size_t>(i)] = (kd * w.dilation[0] * p.dims[1] + kh * w.dilation[1]) * p.dims[2];
    }
  }
  for (int64_t od = 0; od < w.out[0]; ++od) {
    for (int64_t oh = 0; oh < w.out[1]; ++oh) {
      for (int64_t ow = 0; ow < w.out[2]; ++ow) {
        const int64_t base = (od * w.stride[0] * p.dims[1] + oh * w.stride[1]) * p.dims[2] + ow * w.stride[2];
        for (int64_t c = 0; c < channels; ++c) {
          const uint8_t* src = padded + c * p.plane + base;
          for (int64_t i = 0; i < lines; ++i) {
            const uint8_t* from = src + line[static_cast<size_t>(i)];
            if (kKw > 1) {  // 8 bytes copied, kKw kept: the next line overwrites the rest (needs kSlack)
              uint64_t eight;
              std::memcpy(&eight, from, sizeof(eight));
              std::memcpy(rows, &eight, sizeof(eight));
            } else {
              for (int64_t j = 0; j < kw_n; ++j) rows[j] = from[j * kw_step];
            }
            rows += kw_n;
          }
        }
      }
    }
  }
}

void Im2Row(const uint8_t* padded, int64_t channels, const Window3& w, const PaddedGeometry& p, uint8_t* rows) {
  const bool unit = w.dilation[2] == 1;
  if (unit && w.kernel[2] == 1) return Im2RowFixed<1>(padded, channels, w, p, rows);
  if (unit && w.kernel[2] == 3) return Im2RowFixed<3>(padded, channels, w, p, rows);
  if (unit && w.kernel[2] == 4) return Im2RowFixed<4>(padded, channels, w, p, rows);
  if (unit && w.kernel[2] == 5) return Im2RowFixed<5>(padded, channels, w, p, rows);
  if (unit && w.kernel[2] == 7) return Im2RowFixed<7>(padded, channels, w, p, rows);
  Im2RowFixed<0>(padded, channels, w, p, rows);
}

// dst[c][r] = src[r][c] for a rows x cols int32 matrix.
void Transpose(const int32_t* src, int64_t rows, int64_t cols, int32_t* dst) {
  for (int64_t c = 0; c < cols; ++c) {
    for (int64_t r = 0; r < rows; ++r) dst[c * rows + r] = src[r * cols + c];
  }
}

// Images are shared out between threads when they hold at least this many multiply-adds in all,
// and none alone reaches kSplitGemmMacs (then Int8Gemm splits each GEMM instead).
constexpr int64_t kParallelImagesMacs = int64_t{1} << 18;
constexpr int64_t kSplitGemmMacs = int64_t{1} << 22;

struct ConvScratch {
  std::vector<uint8_t> padded;
  std::vector<uint8_t> rows;
  std::vector<uint8_t> out;
};

}  // namespace

PackedInt8ConvWeights PackInt8ConvWeights(const Tensor& w, const std::vector<int32_t>& w_zero_points, int64_t group) {
  PackedInt8ConvWeights packed;
  packed.w_shape = w.shape();
  packed.dtype = w.dtype();
  packed.group = group;
  const int64_t M = w.shape()[0];
  const int64_t per_group = M / group;
  const int64_t K = M == 0 ? 0 : w.size() / M;  // C/group * kernel points
  std::vector<int32_t> zp(static_cast<size_t>(per_group));
  const auto* bytes = static_cast<const uint8_t*>(w.raw());
  packed.groups.resize(static_cast<size_t>(group));
  for (int64_t g = 0; g < group; ++g) {
    for (int64_t m = 0; m < per_group; ++m) {
      zp[static_cast<size_t>(m)] = w_zero_points.size() == 1 ? w_zero_points[0]
                                                             : w_zero_points[static_cast<size_t>(g * per_group + m)];
    }
    // B[k][m] = w[g * per_group + m][k]: the weight rows are B's columns.
    packed.groups[static_cast<size_t>(g)].Pack(bytes + g * per_group * K, w.dtype() == DataType::kInt8, K, per_group,
                                               K, true, zp.data(), BestInt8Isa());
  }
  return packed;
}

void Int8Conv(const Tensor& x, int32_t x_zero_point, const Tensor& w, const std::vector<int32_t>& w_zero_points,
              const ConvGeometry& geometry, const PackedInt8ConvWeights* packed, const int32_t* bias, Int8Output out,
              const float* multiplier, int32_t y_zero_point, Tensor& y) {
  PackedInt8ConvWeights local;
  if (packed == nullptr) {
    local = PackInt8ConvWeights(w, w_zero_points, geometry.group);
    packed = &local;
  }
  const Window3 win = ToWindow3(geometry.window);
  const int64_t in_plane = win.in[0] * win.in[1] * win.in[2];
  const int64_t out_plane = win.out[0] * win.out[1] * win.out[2];
  const int64_t cg = geometry.in_channels_per_group();
  const int64_t mg = geometry.out_channels_per_group();
  const int64_t M = geometry.out_channels;
  const int64_t K = cg * win.kernel[0] * win.kernel[1] * win.kernel[2];
  const int64_t elem = out == Int8Output::kInt32 ? 4 : 1;
  const bool x_signed = x.dtype() == DataType::kInt8;
  // The byte that stands for x_zero_point in x's type: padding contributes (x_zero_point - x_zero_point) = 0.
  const uint8_t pad_value = static_cast<uint8_t>(x_zero_point);
  const auto* x_bytes = static_cast<const uint8_t*>(x.raw());
  auto* y_bytes = static_cast<uint8_t*>(y.raw());
  const PaddedGeometry padded = PadGeometry(win);
  // Images go through the GEMM together, as many as keep the im2row buffer near kRowsBudget.
  constexpr int64_t kRowsBudget = int64_t{4} << 20;
  const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(geometry.batch, kRowsBudget / std::max<int64_t>(1, out_plane * K)));
  // Images [b0, b0 + images) through im2row, one GEMM per group, and the transpose into y.
  auto run_images = [&](int64_t b0, int64_t images) {
    thread_local ConvScratch s;
    s.rows.resize(static_cast<size_t>(images * out_plane * K + kSlack));
    s.padded.resize(static_cast<size_t>(cg * padded.plane + kSlack));
    s.out.resize(static_cast<size_t>(images * out_plane * mg * elem));
    for (int64_t g = 0; g < geometry.group; ++g) {
      for (int64_t i = 0; i < images; ++i) {
        PadPlanes(x_bytes + ((b0 + i) * geometry.in_channels + g * cg) * in_plane, cg, win, padded, pad_value,
                  s.padded.data());
        Im2Row(s.padded.data(), cg, win, padded, s.rows.data() + i * out_plane * K);
      }
      const Int8GemmA a{images * out_plane, s.rows.data(), x_signed, K, &x_zero_point, false};
      const Int8GemmOut o{out, s.out.data(), mg, bias != nullptr ? bias + g * mg : nullptr,
                          multiplier != nullptr ? multiplier + g * mg : nullptr, y_zero_point};
      Int8Gemm(a, packed->groups[static_cast<size_t>(g)], o);
      // s.out holds [out_plane, mg] per image; y wants [mg, out_plane] at channel g * mg of each image.
      for (int64_t i = 0; i < images; ++i) {
        uint8_t* dst = y_bytes + ((b0 + i) * M + g * mg) * out_plane * elem;
        const uint8_t* src = s.out.data() + i * out_plane * mg * elem;
        if (elem == 1) {
          TransposeBytes(src, out_plane, mg, dst);
        } else {
          Transpose(reinterpret_cast<const int32_t*>(src), out_plane, mg, reinterpret_cast<int32_t*>(dst));
        }
      }
    }
  };
  // Several images and threads: each thread takes whole images (im2row and transposes included),
  // unless one GEMM is big enough to be split by Int8Gemm itself.
  const int64_t macs_per_image = out_plane * K * M;
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  if (threads > 1 && geometry.batch > 1 && macs_per_image < kSplitGemmMacs &&
      geometry.batch * macs_per_image >= kParallelImagesMacs) {
    const int64_t per_thread = (geometry.batch + threads - 1) / threads;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int t = 0; t < threads; ++t) {
      const int64_t b0 = t * per_thread;
      if (b0 < geometry.batch) run_images(b0, std::min(per_thread, geometry.batch - b0));
    }
    return;
  }
  for (int64_t b0 = 0; b0 < geometry.batch; b0 += chunk) run_images(b0, std::min(chunk, geometry.batch - b0));
}

}  // namespace ptq
