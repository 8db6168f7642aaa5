// Resolves convolution/pooling attributes and input shapes into pads and output sizes.
#include "runtime/kernels/conv/conv_geometry.h"

#include <algorithm>

namespace ptq {
namespace {

std::string VecToString(const std::vector<int64_t>& v) { return ShapeToString(v); }

// Returns `values`, or n copies of `def` when empty; checks the length and that every value >= min.
std::vector<int64_t> PerAxis(const std::vector<int64_t>& values, size_t n, int64_t def, int64_t min, const char* name) {
  if (values.empty()) return std::vector<int64_t>(n, def);
  PTQ_ENFORCE(values.size() == n, "attribute '", name, "' ", VecToString(values), " must have ", n,
              " values (one per spatial dimension)");
  for (int64_t v : values) {
    PTQ_ENFORCE(v >= min, "attribute '", name, "' ", VecToString(values), " must have values >= ", min);
  }
  return values;
}

// Checks the spatial sizes and kernel, fills input/kernel/strides/dilations and returns n.
size_t InitWindow(const ConvAttributes& attrs, const std::vector<int64_t>& input_spatial,
                  const std::vector<int64_t>& kernel, SlidingWindow& w) {
  const size_t n = input_spatial.size();
  PTQ_ENFORCE(n >= 1, "the input must have at least one spatial dimension");
  PTQ_ENFORCE(kernel.size() == n, "kernel_shape ", VecToString(kernel), " must have ", n,
              " values (one per spatial dimension)");
  for (int64_t k : kernel) PTQ_ENFORCE(k >= 1, "kernel_shape ", VecToString(kernel), " must have values >= 1");
  w.input = input_spatial;
  w.kernel = kernel;
  w.strides = PerAxis(attrs.strides, n, 1, 1, "strides");
  w.dilations = PerAxis(attrs.dilations, n, 1, 1, "dilations");
  w.pads_begin.assign(n, 0);
  w.pads_end.assign(n, 0);
  w.output.assign(n, 0);
  return n;
}

// floor(a / b) for b > 0 (a may be negative).
int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

AutoPad ParseAutoPad(const std::string& value) {
  if (value.empty() || value == "NOTSET") return AutoPad::kNotSet;
  if (value == "SAME_UPPER") return AutoPad::kSameUpper;
  if (value == "SAME_LOWER") return AutoPad::kSameLower;
  if (value == "VALID") return AutoPad::kValid;
  ThrowInputError("attribute 'auto_pad' is '", value, "'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID");
}

ConvAttributes ReadConvAttributes(const Attributes& attrs) {
  ConvAttributes a;
  a.auto_pad = ParseAutoPad(attrs.GetString("auto_pad", "NOTSET"));
  a.kernel_shape = attrs.GetInts("kernel_shape");
  a.strides = attrs.GetInts("strides");
  a.dilations = attrs.GetInts("dilations");
  a.pads = attrs.GetInts("pads");
  a.group = attrs.GetInt("group", 1);
  a.ceil_mode = attrs.GetInt("ceil_mode", 0) != 0;
  PTQ_ENFORCE(a.group >= 1, "attribute 'group' is ", a.group, "; expected >= 1");
  return a;
}

SlidingWindow ResolveWindow(const ConvAttributes& attrs, const std::vector<int64_t>& input_spatial,
                            const std::vector<int64_t>& kernel) {
  SlidingWindow w;
  const size_t n = InitWindow(attrs, input_spatial, kernel, w);
  if (attrs.auto_pad == AutoPad::kNotSet) {
    const std::vector<int64_t> pads = PerAxis(attrs.pads, 2 * n, 0, 0, "pads");
    for (size_t i = 0; i < n; ++i) {
      w.pads_begin[i] = pads[i];
      w.pads_end[i] = pads[n + i];
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = w.input[i];
    const int64_t stride = w.strides[i];
    const int64_t dk = (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t out = 0;
    switch (attrs.auto_pad) {
      case AutoPad::kNotSet: {
        const int64_t span = in + w.pads_begin[i] + w.pads_end[i] - dk;
        if (span < 0) {
          out = 0;
        } else if (attrs.ceil_mode) {
          out = (span + stride - 1) / stride + 1;
          // A window must start inside the input or the leading padding.
          if ((out - 1) * stride >= in + w.pads_begin[i]) --out;
        } else {
          out = span / stride + 1;
        }
        break;
      }
      case AutoPad::kValid:
        out = FloorDiv(in - dk, stride) + 1;
        break;
      case AutoPad::kSameUpper:
      case AutoPad::kSameLower: {
        out = (in + stride - 1) / stride;
        const int64_t total = std::max<int64_t>(0, (out - 1) * stride + dk - in);
        const int64_t smaller = total / 2;
        w.pads_begin[i] = attrs.auto_pad == AutoPad::kSameUpper ? smaller : total - smaller;
        w.pads_end[i] = total - w.pads_begin[i];
        break;
      }
    }
    PTQ_ENFORCE(out >= 1, "spatial dimension ", i, " of size ", in, " (pads ", w.pads_begin[i], "+", w.pads_end[i],
                ") is smaller than the dilated kernel size ", dk);
    w.output[i] = out;
  }
  return w;
}

SlidingWindow ResolveTransposeWindow(const ConvAttributes& attrs, const std::vector<int64_t>& input_spatial,
                                     const std::vector<int64_t>& kernel, const std::vector<int64_t>& output_padding,
                                     const std::vector<int64_t>& output_shape) {
  SlidingWindow w;
  const size_t n = InitWindow(attrs, input_spatial, kernel, w);
  const std::vector<int64_t> out_pad = PerAxis(output_padding, n, 0, 0, "output_padding");
  PTQ_ENFORCE(output_shape.empty() || output_shape.size() >= n, "attribute 'output_shape' ", VecToString(output_shape),
              " must have at least ", n, " values");
  const bool derive_pads =
      !output_shape.empty() || attrs.auto_pad == AutoPad::kSameUpper || attrs.auto_pad == AutoPad::kSameLower;
  std::vector<int64_t> pads(2 * n, 0);
  if (!derive_pads && attrs.auto_pad == AutoPad::kNotSet) pads = PerAxis(attrs.pads, 2 * n, 0, 0, "pads");
  for (size_t i = 0; i < n; ++i) {
    const int64_t dk = (w.kernel[i] - 1) * w.dilations[i] + 1;
    const int64_t full = w.strides[i] * (w.input[i] - 1) + out_pad[i] + dk;
    if (derive_pads) {
      const int64_t out = !output_shape.empty() ? output_shape[output_shape.size() - n + i] : w.input[i] * w.strides[i];
      const int64_t total = std::max<int64_t>(0, full - out);  // an output beyond `full` gets no input
      const int64_t smaller = total / 2;
      w.pads_begin[i] = attrs.auto_pad == AutoPad::kSameUpper ? smaller : total - smaller;
      w.pads_end[i] = total - w.pads_begin[i];
      w.output[i] = out;
    } else {
      w.pads_begin[i] = pads[i];
      w.pads_end[i] = pads[n + i];
      w.output[i] = full - w.pads_begin[i] - w.pads_end[i];
    }
    PTQ_ENFORCE(w.output[i] >= 1, "output spatial dimension ", i, " would be ", w.output[i], "; expected >= 1");
  }
  return w;
}

Shape ConvGeometry::output_shape() const {
  Shape s{batch, out_channels};
  s.insert(s.end(), window.output.begin(), window.output.end());
  return channels_last ? PermuteChannels(s, true) : s;
}

Shape PermuteChannels(const Shape& shape, bool to_channels_last) {
  if (shape.size() < 3) return shape;
  Shape s = shape;
  if (to_channels_last) {
    std::rotate(s.begin() + 1, s.begin() + 2, s.end());  // [N, C, D..] -> [N, D.., C]
  } else {
    std::rotate(s.begin() + 1, s.end() - 1, s.end());  // [N, D.., C] -> [N, C, D..]
  }
  return s;
}

ConvGeometry ResolveConvGeometryChannelsLast(const ConvAttributes& attrs, const Shape& x_shape, const Shape& w_shape) {
  ConvGeometry g = ResolveConvGeometry(attrs, PermuteChannels(x_shape, false), w_shape);
  g.channels_last = true;
  return g;
}

ConvGeometry ResolveConvGeometry(const ConvAttributes& attrs, const Shape& x_shape, const Shape& w_shape) {
  PTQ_ENFORCE(x_shape.size() >= 3, "input 'x' has shape ", ShapeToString(x_shape),
              "; expected [N, C, D1, ...] with at least one spatial dimension");
  PTQ_ENFORCE(w_shape.size() == x_shape.size(), "input 'w' has shape ", ShapeToString(w_shape), "; expected rank ",
              x_shape.size(), " like input 'x' ", ShapeToString(x_shape));
  PTQ_ENFORCE(attrs.group >= 1, "attribute 'group' is ", attrs.group, "; expected >= 1");
  ConvGeometry g;
  g.batch = x_shape[0];
  g.in_channels = x_shape[1];
  g.out_channels = w_shape[0];
  g.group = attrs.group;
  PTQ_ENFORCE(g.in_channels == g.group * w_shape[1], "input 'x' has ", g.in_channels, " channels but input 'w' ",
              ShapeToString(w_shape), " with group ", g.group, " expects ", g.group * w_shape[1],
              " (C must equal group * w.shape[1])");
  PTQ_ENFORCE(g.out_channels % g.group == 0, "input 'w' has ", g.out_channels,
              " output channels, which is not divisible by group ", g.group);
  const std::vector<int64_t> kernel(w_shape.begin() + 2, w_shape.end());
  if (!attrs.kernel_shape.empty()) {
    PTQ_ENFORCE(attrs.kernel_shape == kernel, "attribute 'kernel_shape' ", VecToString(attrs.kernel_shape),
                " does not match the spatial dimensions of input 'w' ", ShapeToString(w_shape));
  }
  const std::vector<int64_t> input_spatial(x_shape.begin() + 2, x_shape.end());
  g.window = ResolveWindow(attrs, input_spatial, kernel);
  return g;
}

}  // namespace ptq
