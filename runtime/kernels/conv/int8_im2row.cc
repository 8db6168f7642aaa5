// im2row for the int8 convolution: padding with the zero point, channel-major and channels-last rows.
#include "runtime/kernels/conv/int8_im2row.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace ptq {
namespace {

// rows[o][c * taps + k] = padded[c][o * stride + k * dilation] (o and k row-major multi-indices).
// kKw > 0 fixes the kernel width (at most 8, with dilation 1 along it) at compile time; then each
// kernel line is moved as one 8-byte copy, so both buffers need kIm2RowSlack bytes past their end.
template <int kKw>
void Im2RowFixed(const uint8_t* padded, int64_t channels, const Window3& w, const PaddedGeometry& p, int64_t line_begin,
                 int64_t line_end, uint8_t* rows) {
  const int64_t kw_n = kKw > 0 ? kKw : w.kernel[2];
  const int64_t kw_step = kKw > 0 ? 1 : w.dilation[2];
  const int64_t lines = w.kernel[0] * w.kernel[1];  // (kd, kh) pairs; each takes kw_n taps
  std::vector<int64_t> line(static_cast<size_t>(lines));
  for (int64_t kd = 0, i = 0; kd < w.kernel[0]; ++kd) {
    for (int64_t kh = 0; kh < w.kernel[1]; ++kh, ++i) {
      line[static_cast<size_t>(i)] = (kd * w.dilation[0] * p.dims[1] + kh * w.dilation[1]) * p.dims[2];
    }
  }
  for (int64_t ol = line_begin; ol < line_end; ++ol) {
    const int64_t od = ol / w.out[1], oh = ol % w.out[1];
    for (int64_t ow = 0; ow < w.out[2]; ++ow) {
      const int64_t base = (od * w.stride[0] * p.dims[1] + oh * w.stride[1]) * p.dims[2] + ow * w.stride[2];
      for (int64_t c = 0; c < channels; ++c) {
        const uint8_t* src = padded + c * p.plane + base;
        for (int64_t i = 0; i < lines; ++i) {
          const uint8_t* from = src + line[static_cast<size_t>(i)];
          if (kKw > 1) {  // 8 bytes copied, kKw kept: the next line overwrites the rest (needs kIm2RowSlack)
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

}  // namespace

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

PaddedGeometry PadGeometry(const Window3& w) {
  PaddedGeometry p;
  for (int i = 0; i < 3; ++i) {
    const int64_t reach = (w.out[i] - 1) * w.stride[i] + (w.kernel[i] - 1) * w.dilation[i] + 1;
    p.dims[i] = std::max(reach, w.pad[i] + w.in[i]);
  }
  p.plane = p.dims[0] * p.dims[1] * p.dims[2];
  return p;
}

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

void Im2Row(const uint8_t* padded, int64_t channels, const Window3& w, const PaddedGeometry& p, uint8_t* rows,
            int64_t line_begin, int64_t line_end) {
  if (line_end < 0) line_end = w.out[0] * w.out[1];
  const bool unit = w.dilation[2] == 1;
  if (unit && w.kernel[2] == 1) return Im2RowFixed<1>(padded, channels, w, p, line_begin, line_end, rows);
  if (unit && w.kernel[2] == 3) return Im2RowFixed<3>(padded, channels, w, p, line_begin, line_end, rows);
  if (unit && w.kernel[2] == 4) return Im2RowFixed<4>(padded, channels, w, p, line_begin, line_end, rows);
  if (unit && w.kernel[2] == 5) return Im2RowFixed<5>(padded, channels, w, p, line_begin, line_end, rows);
  if (unit && w.kernel[2] == 7) return Im2RowFixed<7>(padded, channels, w, p, line_begin, line_end, rows);
  Im2RowFixed<0>(padded, channels, w, p, line_begin, line_end, rows);
}

void PadChannelsLines(const uint8_t* x_hwc, int64_t channels, int64_t x_stride, const Window3& w,
                      const PaddedGeometry& p, uint8_t pad_value, uint8_t flip, int64_t line_begin, int64_t line_end,
                      uint8_t* dst) {
  // Line by line of the padded grid: a line outside the input all pad_value; else its left padding, the input line,
  // its right padding (filling the whole grid first, then copying the input over it, wrote every byte twice).
  const int64_t row = p.dims[2] * channels, left = w.pad[2] * channels, run = w.in[2] * channels;
  const uint32_t flips = 0x01010101u * flip;
  for (int64_t line = line_begin; line < line_end; ++line) {
    uint8_t* out = dst + (line - line_begin) * row;
    const int64_t id = line / p.dims[1] - w.pad[0], ih = line % p.dims[1] - w.pad[1];
    if (id < 0 || id >= w.in[0] || ih < 0 || ih >= w.in[1]) {
      std::fill(out, out + row, pad_value);
      continue;
    }
    std::fill(out, out + left, pad_value);
    const uint8_t* src = x_hwc + (id * w.in[1] + ih) * w.in[2] * x_stride;
    if (x_stride == channels && flip == 0) {
      std::memcpy(out + left, src, static_cast<size_t>(run));
    } else {  // 4 bytes at a time (fixed-size copies, no call per position)
      for (int64_t i = 0; i < w.in[2]; ++i) {
        const uint8_t* from = src + i * x_stride;
        uint8_t* to = out + left + i * channels;
        int64_t c = 0;
        for (; c + 4 <= channels; c += 4) {
          uint32_t v;
          std::memcpy(&v, from + c, 4);
          v ^= flips;
          std::memcpy(to + c, &v, 4);
        }
        for (; c < channels; ++c) to[c] = static_cast<uint8_t>(from[c] ^ flip);
      }
    }
    std::fill(out + left + run, out + row, pad_value);
  }
}

void PadPositions(const uint8_t* x_hwc, int64_t channels, const Window3& w, const PaddedGeometry& p, uint8_t pad_value,
                  uint8_t* dst) {
  PadChannelsLines(x_hwc, channels, channels, w, p, pad_value, 0, 0, p.dims[0] * p.dims[1], dst);
}

namespace {

// Im2RowChannelsLast. kCopy > 0: dilation 1 along the width, and each kernel line (kernel width * channels
// bytes, at most kCopy) is moved as one kCopy-byte copy, the next line overwriting the rest (kIm2RowSlack bytes
// past both buffers' ends). A 3 x 3 window of 3 channels (the stems of the mobile networks) has lines of 9 bytes:
// a memcpy call each took as long as the GEMM's products.
template <int kCopy>
void Im2RowChannelsLastLines(const uint8_t* padded, int64_t channels, const Window3& w, const PaddedGeometry& p,
                             uint8_t* rows, int64_t line_begin, int64_t line_end) {
  // With dilation 1 along the width, a kernel line's taps are one run of kernel width * channels bytes.
  const bool whole_lines = w.dilation[2] == 1;
  const int64_t line_bytes = w.kernel[2] * channels;
  for (int64_t ol = line_begin; ol < line_end; ++ol) {
    const int64_t od = ol / w.out[1], oh = ol % w.out[1];
    for (int64_t ow = 0; ow < w.out[2]; ++ow) {
      for (int64_t kd = 0; kd < w.kernel[0]; ++kd) {
        for (int64_t kh = 0; kh < w.kernel[1]; ++kh) {
          const int64_t d = od * w.stride[0] + kd * w.dilation[0];
          const int64_t h = oh * w.stride[1] + kh * w.dilation[1];
          const uint8_t* line = padded + ((d * p.dims[1] + h) * p.dims[2] + ow * w.stride[2]) * channels;
          if (kCopy > 0) {
            std::memcpy(rows, line, kCopy);
            rows += line_bytes;
          } else if (whole_lines) {
            std::memcpy(rows, line, static_cast<size_t>(line_bytes));
            rows += line_bytes;
          } else {
            for (int64_t kw = 0; kw < w.kernel[2]; ++kw, rows += channels) {
              std::memcpy(rows, line + kw * w.dilation[2] * channels, static_cast<size_t>(channels));
            }
          }
        }
      }
    }
  }
}

}  // namespace

void Im2RowChannelsLast(const uint8_t* padded, int64_t channels, const Window3& w, const PaddedGeometry& p,
                        uint8_t* rows, int64_t line_begin, int64_t line_end) {
  if (line_end < 0) line_end = w.out[0] * w.out[1];
  static_assert(kIm2RowSlack >= 32, "the 16- and 32-byte line copies write past the rows");
  const int64_t line_bytes = w.kernel[2] * channels;
  if (w.dilation[2] == 1 && line_bytes <= 16) {
    return Im2RowChannelsLastLines<16>(padded, channels, w, p, rows, line_begin, line_end);
  }
  if (w.dilation[2] == 1 && line_bytes <= 32) {
    return Im2RowChannelsLastLines<32>(padded, channels, w, p, rows, line_begin, line_end);
  }
  Im2RowChannelsLastLines<0>(padded, channels, w, p, rows, line_begin, line_end);
}

}  // namespace ptq
