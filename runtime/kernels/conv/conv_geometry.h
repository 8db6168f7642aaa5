// Sliding-window geometry shared by the convolution and pooling kernels: attributes, padding, output sizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/attributes.h"
#include "runtime/tensor.h"

namespace ptq {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// "NOTSET" (or ""), "SAME_UPPER", "SAME_LOWER", "VALID"; anything else is an input error naming auto_pad.
AutoPad ParseAutoPad(const std::string& value);

// The window attributes of Conv, ConvInteger, QLinearConv, ConvTranspose and the pooling ops, as
// written in the node. An empty vector means "not given" (defaults are applied when resolving,
// once the number of spatial dimensions is known).
struct ConvAttributes {
  AutoPad auto_pad = AutoPad::kNotSet;
  std::vector<int64_t> kernel_shape;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;  // [x1_begin, x2_begin, ..., x1_end, x2_end, ...]
  int64_t group = 1;
  bool ceil_mode = false;  // pooling only
};

// Reads auto_pad, kernel_shape, strides, dilations, pads, group and ceil_mode (all optional).
ConvAttributes ReadConvAttributes(const Attributes& attrs);

// A resolved window over n spatial dimensions; every vector has n entries.
struct SlidingWindow {
  std::vector<int64_t> input;   // input spatial sizes
  std::vector<int64_t> kernel;  // kernel spatial sizes (undilated)
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads_begin;
  std::vector<int64_t> pads_end;
  std::vector<int64_t> output;  // output spatial sizes

  size_t rank() const { return input.size(); }
};

// Forward window (Conv, pooling). Per axis, with dk = (kernel - 1) * dilation + 1:
//   NOTSET:     output = floor((input + pad_begin + pad_end - dk) / stride) + 1
//               (ceil instead of floor when ceil_mode; a last window starting past
//               input + pad_begin is then dropped)
//   VALID:      pads 0; output = floor((input - dk) / stride) + 1
//   SAME_UPPER: output = ceil(input / stride); total = max(0, (output - 1) * stride + dk - input);
//               pad_begin = total / 2, pad_end = total - pad_begin (the odd one at the end)
//   SAME_LOWER: the same, with the odd one at the beginning.
// Explicit pads are ignored when auto_pad is not NOTSET. Throws an input error naming the
// attribute when strides/dilations/pads have the wrong length or values, and when an output
// size would be < 1.
SlidingWindow ResolveWindow(const ConvAttributes& attrs, const std::vector<int64_t>& input_spatial,
                            const std::vector<int64_t>& kernel);

// ConvTranspose window: `input` is the transposed op's input, `output` its output. Per axis:
//   output = stride * (input - 1) + output_padding + dk - pad_begin - pad_end
// When output_shape is given (its last n entries are used), or auto_pad is SAME_*
// (output = input * stride), the pads are derived from total = max(0, stride * (input - 1) +
// output_padding + dk - output): SAME_UPPER puts total / 2 at the beginning and the rest at the
// end; otherwise the rest goes at the beginning (the spec's wording). output_padding defaults to 0.
SlidingWindow ResolveTransposeWindow(const ConvAttributes& attrs, const std::vector<int64_t>& input_spatial,
                                     const std::vector<int64_t>& kernel, const std::vector<int64_t>& output_padding,
                                     const std::vector<int64_t>& output_shape);

// Everything a convolution kernel needs: X is [N, C, D1..Dn], W is [M, C / group, k1..kn],
// Y is [N, M, O1..On]; or, when channels_last, X is [N, D1..Dn, C] and Y [N, O1..On, M] (W as before).
struct ConvGeometry {
  int64_t batch = 0;         // N
  int64_t in_channels = 0;   // C
  int64_t out_channels = 0;  // M
  int64_t group = 1;
  SlidingWindow window;
  bool channels_last = false;

  int64_t in_channels_per_group() const { return in_channels / group; }
  int64_t out_channels_per_group() const { return out_channels / group; }
  Shape output_shape() const;  // [N, M, O1..On], or [N, O1..On, M] when channels_last
};

// Validates X and W against each other and the attributes and resolves the window: X rank >= 3,
// W rank == X rank, kernel_shape (when given) equal to W's spatial dims, group >= 1,
// C == group * W.shape[1], M % group == 0. Errors name the input or attribute.
ConvGeometry ResolveConvGeometry(const ConvAttributes& attrs, const Shape& x_shape, const Shape& w_shape);
// The same for X given channels last ([N, D1..Dn, C]); the result has channels_last set.
ConvGeometry ResolveConvGeometryChannelsLast(const ConvAttributes& attrs, const Shape& x_shape, const Shape& w_shape);

// [N, C, D1..Dn] as [N, D1..Dn, C] (to_channels_last) or back.
Shape PermuteChannels(const Shape& shape, bool to_channels_last);

}  // namespace ptq
