// Interpolation for Resize and Upsample: per-axis index tables, then a nearest gather or one
// linear or cubic pass per resized axis (both are separable).
#include "runtime/ops/nn/interpolate.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/ops/tensor/copy_util.h"
#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

// The input coordinate of output coordinate x (formulas in interpolate.h).
float OriginalCoordinate(CoordMode mode, float x, float scale, float out, float in, float start, float end) {
  switch (mode) {
    case CoordMode::kHalfPixel:
      return (x + 0.5f) / scale - 0.5f;
    case CoordMode::kHalfPixelSymmetric: {
      const float adjustment = out / (scale * in);
      const float offset = in / 2 * (1 - adjustment);
      return offset + (x + 0.5f) / scale - 0.5f;
    }
    case CoordMode::kPytorchHalfPixel:
      return out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case CoordMode::kAlignCorners:
      return out == 1 ? 0.0f : x * (in - 1) / (out - 1);
    case CoordMode::kAsymmetric:
      return x / scale;
    case CoordMode::kTfHalfPixelForNn:
      return (x + 0.5f) / scale;
    case CoordMode::kTfCropAndResize:
      return out > 1 ? start * (in - 1) + x * (end - start) * (in - 1) / (out - 1) : 0.5f * (start + end) * (in - 1);
  }
  return x;
}

int64_t NearestIndex(NearestMode mode, float v, bool downsample) {
  switch (mode) {
    case NearestMode::kRoundPreferFloor:
      return static_cast<int64_t>(v == std::floor(v) + 0.5f ? std::floor(v) : std::round(v));
    case NearestMode::kRoundPreferCeil:
      return static_cast<int64_t>(v == std::floor(v) + 0.5f ? std::ceil(v) : std::round(v));
    case NearestMode::kFloor:
      return static_cast<int64_t>(std::floor(v));
    case NearestMode::kCeil:
      return static_cast<int64_t>(std::ceil(v));
    case NearestMode::kSimple:
      return downsample ? static_cast<int64_t>(std::ceil(v)) : static_cast<int64_t>(v);
  }
  return 0;
}

// Per output position j of one axis: the input indices i0 <= i1, the weight w1 of i1 (w0 = 1 - w1;
// nearest uses i0 only), the four cubic taps and weights (cubic only), and whether the position
// lies outside the input (extrapolation).
struct AxisTable {
  bool identity = false;
  std::vector<int64_t> i0, i1;
  std::vector<float> w1;
  std::vector<int64_t> taps;   // cubic: 4 per position
  std::vector<float> tap_w;    // cubic: 4 per position
  std::vector<char> outside;
};

// The cubic weights of taps i-1 .. i+2 for fraction s (formula in interpolate.h).
void CubicCoefficients(float s, float a, float w[4]) {
  const float d0 = s + 1, d1 = s, d2 = 1 - s, d3 = 2 - s;
  w[0] = ((a * d0 - 5 * a) * d0 + 8 * a) * d0 - 4 * a;
  w[1] = ((a + 2) * d1 - (a + 3)) * d1 * d1 + 1;
  w[2] = ((a + 2) * d2 - (a + 3)) * d2 * d2 + 1;
  w[3] = ((a * d3 - 5 * a) * d3 + 8 * a) * d3 - 4 * a;
}

AxisTable MakeAxisTable(const InterpSpec& spec, int64_t in, int64_t out, float scale, float start, float end) {
  AxisTable t;
  t.identity = scale == 1.0f && in == out && spec.coord != CoordMode::kTfCropAndResize;
  if (t.identity) return t;
  const size_t n = static_cast<size_t>(out);
  t.i0.resize(n);
  t.i1.resize(n);
  t.w1.resize(n);
  t.outside.resize(n);
  const float last = static_cast<float>(in - 1);
  for (size_t j = 0; j < n; ++j) {
    const float v = OriginalCoordinate(spec.coord, static_cast<float>(j), scale, static_cast<float>(out),
                                       static_cast<float>(in), start, end);
    t.outside[j] = spec.coord == CoordMode::kTfCropAndResize && (v < 0 || v > last);
    if (spec.mode == InterpMode::kNearest) {
      const int64_t i = NearestIndex(spec.nearest, v, scale < 1.0f);
      t.i0[j] = t.i1[j] = i < 0 ? 0 : (i > in - 1 ? in - 1 : i);
      t.w1[j] = 0;
    } else if (spec.mode == InterpMode::kCubic) {
      // Coordinates far outside only read the clamped edge; keep floor() within int64.
      const float lim = static_cast<float>(in) + 4.0f;
      const float c = v != v ? 0.0f : (v < -lim ? -lim : (v > lim ? lim : v));
      const float f = std::floor(c);
      const int64_t i = static_cast<int64_t>(f);
      float w[4];
      CubicCoefficients(c - f, spec.cubic_coeff_a, w);
      float sum = 0;
      for (int k = 0; k < 4; ++k) {
        const int64_t idx = i - 1 + k;
        if (spec.exclude_outside && (idx < 0 || idx >= in)) w[k] = 0;
        sum += w[k];
        t.taps.push_back(idx < 0 ? 0 : (idx >= in ? in - 1 : idx));
      }
      for (int k = 0; k < 4; ++k) t.tap_w.push_back(spec.exclude_outside && sum != 0 ? w[k] / sum : w[k]);
    } else {
      const float c = v < 0 ? 0.0f : (v > last ? last : v);
      const int64_t i = static_cast<int64_t>(c) < in - 1 ? static_cast<int64_t>(c) : in - 1;
      t.i0[j] = i;
      t.i1[j] = i + 1 < in ? i + 1 : in - 1;
      t.w1[j] = t.i1[j] == i ? 0.0f : c - static_cast<float>(i);
    }
  }
  return t;
}

constexpr int64_t kParallelValues = int64_t{1} << 16;  // outputs of a pass worth a team of threads

// out[o * run + i] = in[sum_a offsets[a][o_a] + i] for i < run, over the odometer of out_shape (the outer axes;
// run: the product of the trailing axes that are not resized, copied as they are); a negative sum (some axis
// outside the input) gives `fill`. Offsets of outside positions are -(input size), so any sum including one
// stays negative. Threads share the rows of the last outer axis, each starting its odometer at its first row.
template <class S>
void GatherNearest(const S* in, S* out, const Shape& out_shape, const std::vector<std::vector<int64_t>>& offsets,
                   int64_t run, S fill) {
  const size_t rank = out_shape.size();
  const int64_t width = out_shape[rank - 1];
  const int64_t rows = width == 0 ? 0 : ShapeSize(out_shape) / width;
  if (rows == 0) return;
  const int64_t* __restrict last = offsets[rank - 1].data();
  const int threads = ThreadsForWork(rows * width * run, kParallelValues);
  const int64_t per_unit = ItemsPerUnit(rows, threads);
  const int64_t units = (rows + per_unit - 1) / per_unit;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (int64_t u = 0; u < units; ++u) {
    const int64_t r0 = u * per_unit, r1 = std::min(rows, r0 + per_unit);
    std::vector<int64_t> index(rank - 1, 0);
    int64_t base = 0;
    for (size_t a = rank - 1, rest = static_cast<size_t>(r0); a-- > 0;) {
      const size_t extent = static_cast<size_t>(out_shape[a]);
      index[a] = static_cast<int64_t>(rest % extent);
      rest /= extent;
      base += offsets[a][static_cast<size_t>(index[a])];
    }
    for (int64_t r = r0; r < r1; ++r) {
      S* __restrict y = out + r * width * run;
      if (run == 1) {
        for (int64_t j = 0; j < width; ++j) {
          const int64_t off = base + last[j];
          y[j] = off < 0 ? fill : in[off];
        }
      } else {
        for (int64_t j = 0; j < width; ++j, y += run) {
          const int64_t off = base + last[j];
          if (off < 0) std::fill(y, y + run, fill);
          else std::memcpy(y, in + off, static_cast<size_t>(run) * sizeof(S));
        }
      }
      for (size_t a = rank - 1; a-- > 0;) {
        base -= offsets[a][static_cast<size_t>(index[a])];
        if (++index[a] < out_shape[a]) {
          base += offsets[a][static_cast<size_t>(index[a])];
          break;
        }
        index[a] = 0;
        base += offsets[a][0];
      }
    }
  }
}

Tensor InterpolateNearest(const Tensor& x, const Shape& out_shape, const std::vector<AxisTable>& tables,
                          float extrapolation_value) {
  // Trailing axes left as they are (the channels of a channels-last image) are copied as runs.
  size_t outer_rank = out_shape.size();
  int64_t run = 1;
  while (outer_rank > 1 && tables[outer_rank - 1].identity) run *= out_shape[--outer_rank];
  const Shape outer_shape(out_shape.begin(), out_shape.begin() + static_cast<std::ptrdiff_t>(outer_rank));
  const std::vector<int64_t> strides = Strides(x.shape());
  std::vector<std::vector<int64_t>> offsets(outer_rank);
  for (size_t a = 0; a < outer_rank; ++a) {
    offsets[a].resize(static_cast<size_t>(out_shape[a]));
    for (size_t j = 0; j < offsets[a].size(); ++j) {
      if (tables[a].identity) offsets[a][j] = static_cast<int64_t>(j) * strides[a];
      else offsets[a][j] = tables[a].outside[j] ? -x.size() : tables[a].i0[j] * strides[a];
    }
  }
  Tensor y(x.dtype(), out_shape);
  unsigned char fill[8] = {};
  StoreScalar(x.dtype(), extrapolation_value, fill);
  auto gather = [&](auto zero) {
    using S = decltype(zero);
    S f;
    std::memcpy(&f, fill, sizeof(S));
    GatherNearest(static_cast<const S*>(x.raw()), static_cast<S*>(y.raw()), outer_shape, offsets, run, f);
  };
  switch (ElementSize(x.dtype())) {
    case 1: gather(uint8_t{}); break;
    case 2: gather(uint16_t{}); break;
    case 4: gather(uint32_t{}); break;
    case 8: gather(uint64_t{}); break;
    default: ThrowInputError("Resize: element type ", DataTypeName(x.dtype()), " is not supported");
  }
  return y;
}

// One linear pass along the middle axis of [outer, in, inner] -> [outer, out, inner]:
// y[o, j, :] = (1 - w1[j]) * x[o, i0[j], :] + w1[j] * x[o, i1[j], :], or `fill` outside. Threads share the
// rows (o, j), or the o when inner is 1.
template <class C>
void LinearPass(const C* x, C* y, int64_t outer, int64_t in, int64_t out, int64_t inner, const AxisTable& t, C fill) {
  const int threads = ThreadsForWork(outer * out * inner, kParallelValues);
  if (inner == 1) {
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int64_t o = 0; o < outer; ++o) {
      const C* xo = x + o * in;
      C* yo = y + o * out;
      for (int64_t j = 0; j < out; ++j) {
        const C w1 = static_cast<C>(t.w1[static_cast<size_t>(j)]);
        const C v = (C(1) - w1) * xo[t.i0[static_cast<size_t>(j)]] + w1 * xo[t.i1[static_cast<size_t>(j)]];
        yo[j] = t.outside[static_cast<size_t>(j)] ? fill : v;
      }
    }
    return;
  }
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (int64_t row = 0; row < outer * out; ++row) {
    const int64_t o = row / out, j = row % out;
    C* __restrict yr = y + row * inner;
    if (t.outside[static_cast<size_t>(j)]) {
      for (int64_t i = 0; i < inner; ++i) yr[i] = fill;
      continue;
    }
    const C w1 = static_cast<C>(t.w1[static_cast<size_t>(j)]), w0 = C(1) - w1;
    const C* __restrict x0 = x + (o * in + t.i0[static_cast<size_t>(j)]) * inner;
    const C* __restrict x1 = x + (o * in + t.i1[static_cast<size_t>(j)]) * inner;
    for (int64_t i = 0; i < inner; ++i) yr[i] = w0 * x0[i] + w1 * x1[i];
  }
}

// One cubic pass along the middle axis: y[o, j, :] = sum_k tap_w[j][k] * x[o, taps[j][k], :], or `fill`.
template <class C>
void CubicPass(const C* x, C* y, int64_t outer, int64_t in, int64_t out, int64_t inner, const AxisTable& t, C fill) {
  for (int64_t o = 0; o < outer; ++o) {
    const C* xo = x + o * in * inner;
    C* yo = y + o * out * inner;
    for (int64_t j = 0; j < out; ++j) {
      C* __restrict yr = yo + j * inner;
      const size_t b = 4 * static_cast<size_t>(j);
      if (t.outside[static_cast<size_t>(j)]) {
        for (int64_t i = 0; i < inner; ++i) yr[i] = fill;
        continue;
      }
      const C w0 = static_cast<C>(t.tap_w[b]), w1 = static_cast<C>(t.tap_w[b + 1]);
      const C w2 = static_cast<C>(t.tap_w[b + 2]), w3 = static_cast<C>(t.tap_w[b + 3]);
      const C* x0 = xo + t.taps[b] * inner;
      const C* x1 = xo + t.taps[b + 1] * inner;
      const C* x2 = xo + t.taps[b + 2] * inner;
      const C* x3 = xo + t.taps[b + 3] * inner;
      for (int64_t i = 0; i < inner; ++i) yr[i] = w0 * x0[i] + w1 * x1[i] + w2 * x2[i] + w3 * x3[i];
    }
  }
}

// Linear or cubic interpolation, one pass per resized axis.
Tensor InterpolateSeparable(const Tensor& x, const Shape& out_shape, const std::vector<AxisTable>& tables,
                            const InterpSpec& spec, const std::string& op) {
  const float extrapolation_value = spec.extrapolation_value;
  const bool cubic = spec.mode == InterpMode::kCubic;
  Tensor result;
  DispatchType<kFloatTypes>(x.dtype(), op + (cubic ? " (mode cubic)" : " (mode linear)"), "X", [&](auto e) {
    using E = decltype(e);
    using C = typename E::Compute;
    ComputeView<E> in(x);
    ComputeOutput<E> out(out_shape);
    const int64_t rank = x.rank();
    int64_t outermost = rank;  // the outermost resized axis: its pass runs last
    for (int64_t a = rank; a-- > 0;) {
      if (!tables[static_cast<size_t>(a)].identity) outermost = a;
    }
    Shape shape = x.shape();
    const C* cur = in.data();
    std::vector<C> buffers[2];
    int which = 0;
    // Passes run from the innermost resized axis outwards; the last one writes the output.
    for (int64_t a = rank; a-- > 0;) {
      const AxisTable& t = tables[static_cast<size_t>(a)];
      if (t.identity) continue;
      const int64_t outer = SizeOfRange(shape, 0, a);
      const int64_t inner = SizeOfRange(shape, a + 1, rank);
      const int64_t n_in = shape[static_cast<size_t>(a)];
      shape[static_cast<size_t>(a)] = out_shape[static_cast<size_t>(a)];
      C* dst;
      if (a == outermost) {
        dst = out.data();
      } else {
        buffers[which].resize(static_cast<size_t>(ShapeSize(shape)));
        dst = buffers[which].data();
      }
      if (cubic) {
        CubicPass(cur, dst, outer, n_in, shape[static_cast<size_t>(a)], inner, t, static_cast<C>(extrapolation_value));
      } else {
        LinearPass(cur, dst, outer, n_in, shape[static_cast<size_t>(a)], inner, t, static_cast<C>(extrapolation_value));
      }
      cur = dst;
      which ^= 1;
    }
    result = out.Finish();
  });
  return result;
}

}  // namespace

InterpMode ParseInterpMode(const std::string& mode, const std::string& op) {
  if (mode == "nearest") return InterpMode::kNearest;
  if (mode == "linear" || mode == "bilinear") return InterpMode::kLinear;
  if (mode == "cubic") return InterpMode::kCubic;
  ThrowInputError(op, ": attribute 'mode' is '", mode, "'; expected 'nearest', 'linear' or 'cubic'");
}

CoordMode ParseCoordMode(const std::string& mode, const std::string& op) {
  if (mode == "half_pixel") return CoordMode::kHalfPixel;
  if (mode == "half_pixel_symmetric") return CoordMode::kHalfPixelSymmetric;
  if (mode == "pytorch_half_pixel") return CoordMode::kPytorchHalfPixel;
  if (mode == "align_corners") return CoordMode::kAlignCorners;
  if (mode == "asymmetric") return CoordMode::kAsymmetric;
  if (mode == "tf_half_pixel_for_nn") return CoordMode::kTfHalfPixelForNn;
  if (mode == "tf_crop_and_resize") return CoordMode::kTfCropAndResize;
  ThrowInputError(op, ": attribute 'coordinate_transformation_mode' is '", mode,
                  "'; expected half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, "
                  "tf_half_pixel_for_nn or tf_crop_and_resize");
}

NearestMode ParseNearestMode(const std::string& mode, const std::string& op) {
  if (mode == "round_prefer_floor") return NearestMode::kRoundPreferFloor;
  if (mode == "round_prefer_ceil") return NearestMode::kRoundPreferCeil;
  if (mode == "floor") return NearestMode::kFloor;
  if (mode == "ceil") return NearestMode::kCeil;
  ThrowInputError(op, ": attribute 'nearest_mode' is '", mode,
                  "'; expected round_prefer_floor, round_prefer_ceil, floor or ceil");
}

Tensor Interpolate(const Tensor& x, const Shape& out_shape, const std::vector<float>& scales,
                   const std::vector<float>& roi, const InterpSpec& spec, const std::string& op) {
  const size_t rank = out_shape.size();
  PTQ_ENFORCE(rank >= 1, op, ": input 'X' must have rank >= 1, got a scalar");
  std::vector<AxisTable> tables(rank);
  bool all_identity = true;
  for (size_t a = 0; a < rank; ++a) {
    const int64_t in = x.dim(static_cast<int64_t>(a));
    PTQ_ENFORCE(in > 0 || out_shape[a] == 0, op, ": axis ", a, " of input 'X' (shape ", ShapeToString(x.shape()),
                ") is empty but the output size is ", out_shape[a]);
    tables[a] = MakeAxisTable(spec, in, out_shape[a], scales[a], roi[a], roi[rank + a]);
    all_identity = all_identity && tables[a].identity;
  }
  if (all_identity) return x;
  if (spec.mode == InterpMode::kNearest) return InterpolateNearest(x, out_shape, tables, spec.extrapolation_value);
  return InterpolateSeparable(x, out_shape, tables, spec, op);
}

}  // namespace ptq
