// im2row for the int8 convolution: the input planes padded with the zero point, then one row of
// kernel taps per output position, channel-major ([c][k], NCHW order) or channels-last ([k][c]).
#pragma once

#include <cstdint>

#include "runtime/kernels/conv/conv_geometry.h"

namespace ptq {

// A window of up to 3 spatial axes, with leading axes of size 1 added for lower ranks.
struct Window3 {
  int64_t in[3], kernel[3], stride[3], dilation[3], pad[3], out[3];
};
Window3 ToWindow3(const SlidingWindow& w);

// The padded planes' sizes: in[i] + pad_begin[i] + pad_end[i] (pad_end grown where the last window
// reaches further), so that every tap of every output position is in bounds.
struct PaddedGeometry {
  int64_t dims[3];
  int64_t plane;
};
PaddedGeometry PadGeometry(const Window3& w);

// Bytes the rows and padded buffers keep beyond their end: the copies below move whole 8-, 16- or 32-byte words.
constexpr int64_t kIm2RowSlack = 32;

// Channel-major. dst (channels planes of p.plane) = x (channels planes of w.in) at offset pad, pad_value
// elsewhere; then rows[o][c * taps + k] = padded[c][o * stride + k * dilation].
void PadPlanes(const uint8_t* x, int64_t channels, const Window3& w, const PaddedGeometry& p, uint8_t pad_value,
               uint8_t* dst);
// Only the output lines (od, oh) numbered [line_begin, line_end) when given (line = od * out[1] + oh;
// each holds out[2] positions), their rows written from `rows` on; line_end < 0 means the last line.
void Im2Row(const uint8_t* padded, int64_t channels, const Window3& w, const PaddedGeometry& p, uint8_t* rows,
            int64_t line_begin = 0, int64_t line_end = -1);

// Channels-last. x_hwc holds the input positions in order, `channels` bytes each (the transpose of
// the channel planes); dst is the padded grid of positions, `channels` bytes each; then
// rows[o][k * channels + c] = padded[o * stride + k * dilation][c].
void PadPositions(const uint8_t* x_hwc, int64_t channels, const Window3& w, const PaddedGeometry& p, uint8_t pad_value,
                  uint8_t* dst);
// PadPositions of `channels` of x's channels, its positions x_stride bytes apart (from the first channel taken), each
// byte copied as x ^ flip (0x80 makes int8 values the uint8 values + 128); only the padded grid's lines (d, h)
// numbered [line_begin, line_end), line_begin's first at dst.
void PadChannelsLines(const uint8_t* x_hwc, int64_t channels, int64_t x_stride, const Window3& w,
                      const PaddedGeometry& p, uint8_t pad_value, uint8_t flip, int64_t line_begin, int64_t line_end,
                      uint8_t* dst);
// Lines as Im2Row.
void Im2RowChannelsLast(const uint8_t* padded, int64_t channels, const Window3& w, const PaddedGeometry& p,
                        uint8_t* rows, int64_t line_begin = 0, int64_t line_end = -1);

}  // namespace ptq
