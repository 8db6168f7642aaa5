// The reference integer convolution: direct N-D loops over output points, channels and kernel taps.
#include "runtime/kernels/conv/int_conv_reference.h"

namespace ptq {
namespace {

// The elements of a uint8 or int8 tensor as int32.
std::vector<int32_t> WidenInt8(const Tensor& t, const char* name) {
  std::vector<int32_t> out(static_cast<size_t>(t.size()));
  if (t.dtype() == DataType::kUint8) {
    const uint8_t* p = t.data<uint8_t>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else if (t.dtype() == DataType::kInt8) {
    const int8_t* p = t.data<int8_t>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else {
    ThrowInputError("input '", name, "' has type ", DataTypeName(t.dtype()), "; expected uint8 or int8");
  }
  return out;
}

}  // namespace

Tensor IntConvReference(const Tensor& x, int32_t x_zero_point, const Tensor& w,
                        const std::vector<int32_t>& w_zero_points, const ConvGeometry& geometry) {
  const SlidingWindow& win = geometry.window;
  const size_t rank = win.rank();
  const int64_t channels_in = geometry.in_channels_per_group();
  const int64_t channels_out = geometry.out_channels_per_group();
  const int64_t in_size = ShapeSize(win.input);
  const int64_t out_size = ShapeSize(win.output);
  const int64_t kernel_size = ShapeSize(win.kernel);

  // x - x_zero_point and w - w_zero_point[m], so that the loops below only multiply and add.
  std::vector<int32_t> xs = WidenInt8(x, "x");
  for (int32_t& v : xs) v -= x_zero_point;
  std::vector<int32_t> ws = WidenInt8(w, "w");
  const int64_t w_per_m = channels_in * kernel_size;
  for (int64_t m = 0; m < geometry.out_channels; ++m) {
    const int32_t zp = w_zero_points.size() == 1 ? w_zero_points[0] : w_zero_points[static_cast<size_t>(m)];
    for (int64_t i = 0; i < w_per_m; ++i) ws[static_cast<size_t>(m * w_per_m + i)] -= zp;
  }

  // Per-axis offsets of every kernel point (k_i * dilation_i), kernel points in row-major order.
  std::vector<int64_t> kernel_offsets(static_cast<size_t>(kernel_size) * rank);
  std::vector<int64_t> idx(rank, 0);
  for (int64_t k = 0; k < kernel_size; ++k) {
    for (size_t i = 0; i < rank; ++i) kernel_offsets[static_cast<size_t>(k) * rank + i] = idx[i] * win.dilations[i];
    for (size_t i = rank; i-- > 0;) {
      if (++idx[i] < win.kernel[i]) break;
      idx[i] = 0;
    }
  }

  Tensor y(DataType::kInt32, geometry.output_shape());
  int32_t* out = y.data<int32_t>();
  std::vector<int64_t> tap_kernel;  // kernel point of each tap that lands inside the input
  std::vector<int64_t> tap_input;   // its flat spatial index in the input
  std::vector<int64_t> o(rank, 0);  // output multi-index
  for (int64_t p = 0; p < out_size; ++p) {
    tap_kernel.clear();
    tap_input.clear();
    for (int64_t k = 0; k < kernel_size; ++k) {
      int64_t flat = 0;
      bool inside = true;
      for (size_t i = 0; i < rank && inside; ++i) {
        const int64_t pos =
            o[i] * win.strides[i] - win.pads_begin[i] + kernel_offsets[static_cast<size_t>(k) * rank + i];
        inside = pos >= 0 && pos < win.input[i];
        flat = flat * win.input[i] + pos;
      }
      if (!inside) continue;
      tap_kernel.push_back(k);
      tap_input.push_back(flat);
    }
    const size_t taps = tap_kernel.size();
    for (int64_t b = 0; b < geometry.batch; ++b) {
      for (int64_t m = 0; m < geometry.out_channels; ++m) {
        const int64_t g = m / channels_out;
        uint32_t acc = 0;  // unsigned so that overflow wraps modulo 2^32 without undefined behaviour
        for (int64_t c = 0; c < channels_in; ++c) {
          const int32_t* xc = xs.data() + (b * geometry.in_channels + g * channels_in + c) * in_size;
          const int32_t* wc = ws.data() + (m * channels_in + c) * kernel_size;
          for (size_t t = 0; t < taps; ++t) {
            acc += static_cast<uint32_t>(xc[tap_input[t]] * wc[tap_kernel[t]]);
          }
        }
        out[(b * geometry.out_channels + m) * out_size + p] = static_cast<int32_t>(acc);
      }
    }
    for (size_t i = rank; i-- > 0;) {
      if (++o[i] < win.output[i]) break;
      o[i] = 0;
    }
  }
  return y;
}

int32_t ReadScalarZeroPoint(const Tensor* t, DataType type, const char* name) {
  if (t == nullptr) return 0;
  PTQ_ENFORCE(t->dtype() == type, "input '", name, "' has type ", DataTypeName(t->dtype()), "; expected ",
              DataTypeName(type));
  PTQ_ENFORCE(t->rank() <= 1 && t->size() == 1, "input '", name, "' has shape ", ShapeToString(t->shape()),
              "; expected a scalar");
  return static_cast<int32_t>(t->GetAsDouble(0));
}

std::vector<int32_t> ReadChannelZeroPoints(const Tensor* t, DataType type, int64_t channels, const char* name) {
  if (t == nullptr) return {0};
  PTQ_ENFORCE(t->dtype() == type, "input '", name, "' has type ", DataTypeName(t->dtype()), "; expected ",
              DataTypeName(type));
  PTQ_ENFORCE(t->rank() <= 1 && (t->size() == 1 || t->size() == channels), "input '", name, "' has shape ",
              ShapeToString(t->shape()), "; expected a scalar or a 1-D tensor of ", channels,
              " values (one per output channel)");
  std::vector<int32_t> values(static_cast<size_t>(t->size()));
  for (int64_t i = 0; i < t->size(); ++i) values[static_cast<size_t>(i)] = static_cast<int32_t>(t->GetAsDouble(i));
  return values;
}

}  // namespace ptq
