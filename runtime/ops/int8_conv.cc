// Int8 convolution as GEMMs: im2row of each image and group, Int8Gemm, then a transpose into NCHW order.
#include "runtime/ops/int8_conv.h"

#include <algorithm>

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

// rows[o][c * K + k] = x[c, o * stride - pad + k * dilation], or pad_value outside the input
// (x holds `channels` planes; o and k are row-major multi-indices; K = kernel points).
void Im2Row(const uint8_t* x, int64_t channels, const Window3& w, uint8_t pad_value, uint8_t* rows) {
  const int64_t plane = w.in[0] * w.in[1] * w.in[2];
  const int64_t taps = w.kernel[0] * w.kernel[1] * w.kernel[2];
  const int64_t row_len = channels * taps;
  int64_t o = 0;
  for (int64_t od = 0; od < w.out[0]; ++od) {
    for (int64_t oh = 0; oh < w.out[1]; ++oh) {
      for (int64_t ow = 0; ow < w.out[2]; ++ow, ++o) {
        uint8_t* dst = rows + o * row_len;
        for (int64_t c = 0; c < channels; ++c) {
          const uint8_t* xc = x + c * plane;
          for (int64_t kd = 0; kd < w.kernel[0]; ++kd) {
            const int64_t id = od * w.stride[0] - w.pad[0] + kd * w.dilation[0];
            const bool d_in = id >= 0 && id < w.in[0];
            for (int64_t kh = 0; kh < w.kernel[1]; ++kh) {
              const int64_t ih = oh * w.stride[1] - w.pad[1] + kh * w.dilation[1];
              const bool dh_in = d_in && ih >= 0 && ih < w.in[1];
              const int64_t row = (id * w.in[1] + ih) * w.in[2];
              for (int64_t kw = 0; kw < w.kernel[2]; ++kw) {
                const int64_t iw = ow * w.stride[2] - w.pad[2] + kw * w.dilation[2];
                *dst++ = dh_in && iw >= 0 && iw < w.in[2] ? xc[row + iw] : pad_value;
              }
            }
          }
        }
      }
    }
  }
}

// dst[c][r] = src[r][c] for a rows x cols matrix.
template <class T>
void Transpose(const T* src, int64_t rows, int64_t cols, T* dst) {
  for (int64_t c = 0; c < cols; ++c) {
    for (int64_t r = 0; r < rows; ++r) dst[c * rows + r] = src[r * cols + c];
  }
}

struct ConvScratch {
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
  thread_local ConvScratch s;
  s.rows.resize(static_cast<size_t>(out_plane * K));
  s.out.resize(static_cast<size_t>(out_plane * mg * elem));
  for (int64_t b = 0; b < geometry.batch; ++b) {
    for (int64_t g = 0; g < geometry.group; ++g) {
      Im2Row(x_bytes + (b * geometry.in_channels + g * cg) * in_plane, cg, win, pad_value, s.rows.data());
      const Int8GemmA a{out_plane, s.rows.data(), x_signed, K, &x_zero_point, false};
      const Int8GemmOut o{out, s.out.data(), mg, bias != nullptr ? bias + g * mg : nullptr,
                          multiplier != nullptr ? multiplier + g * mg : nullptr, y_zero_point};
      Int8Gemm(a, packed->groups[static_cast<size_t>(g)], o);
      // s.out is [out_plane, mg]; y wants [mg, out_plane] at channel g * mg of image b.
      uint8_t* dst = y_bytes + (b * M + g * mg) * out_plane * elem;
      if (elem == 1) {
        Transpose(s.out.data(), out_plane, mg, dst);
      } else {
        Transpose(reinterpret_cast<const int32_t*>(s.out.data()), out_plane, mg, reinterpret_cast<int32_t*>(dst));
      }
    }
  }
}

}  // namespace ptq
