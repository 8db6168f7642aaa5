// Sweeps of random window configurations (rank 1-3, groups, depthwise, strides, dilations, asymmetric
// pads, ceil_mode, count_include_pad, output_padding) comparing the fast Conv, ConvTranspose, MaxPool
// and AveragePool kernels with plain tap-by-tap references written here from the ONNX definitions.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>

#include "runtime/cpu_features.h"
#include "runtime/kernels/conv/conv_nhwc_direct.h"
#include "runtime/kernels/conv/im2row_nhwc.h"
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"
#include "tests/runtime/ops/nn_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::IntsAttr;
using V = std::vector<int64_t>;

// Calls f(index) for every multi-index of `shape` in row-major order.
template <class F>
void ForEachIndex(const V& shape, F f) {
  if (ShapeSize(shape) == 0) return;
  V idx(shape.size(), 0);
  for (;;) {
    f(idx);
    size_t d = shape.size();
    while (d-- > 0) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) return;
  }
}

int64_t Flat(const V& shape, const V& idx) {
  int64_t f = 0;
  for (size_t i = 0; i < shape.size(); ++i) f = f * shape[i] + idx[i];
  return f;
}

// A random window over `rank` spatial dims: kernel, strides, dilations, pads [begin..., end...].
struct Window {
  V kernel, strides, dilations, pads, input;
};

Window RandomWindow(std::mt19937& rng, size_t rank, int64_t max_stride) {
  const auto pick = [&rng](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Window w;
  w.pads.assign(2 * rank, 0);
  for (size_t i = 0; i < rank; ++i) {
    w.kernel.push_back(pick(1, 3));
    w.strides.push_back(pick(1, max_stride));
    w.dilations.push_back(pick(1, 2));
    w.pads[i] = pick(0, 2);
    w.pads[rank + i] = pick(0, 2);
    const int64_t dk = (w.kernel[i] - 1) * w.dilations[i] + 1;
    w.input.push_back(std::max<int64_t>(1, dk - w.pads[i] - w.pads[rank + i]) + pick(0, 5));
  }
  return w;
}

Attributes WindowAttrs(const Window& w) {
  Attributes a;
  a.Set("kernel_shape", IntsAttr(w.kernel));
  a.Set("strides", IntsAttr(w.strides));
  a.Set("dilations", IntsAttr(w.dilations));
  a.Set("pads", IntsAttr(w.pads));
  return a;
}

Tensor RandomTensor(std::mt19937& rng, const Shape& shape) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(ShapeSize(shape)));
  for (float& x : v) x = dist(rng);
  return Tensor::FromVector<float>(shape, v);
}

void ExpectClose(const Tensor& actual, const Shape& shape, const std::vector<double>& expected) {
  ASSERT_EQ(actual.shape(), shape);
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_NEAR(actual.data<float>()[i], expected[i], 1e-5 * std::max(1.0, std::fabs(expected[i]))) << "element " << i;
  }
}

// y[n, m, o] = b[m] + sum_{c, k} w[m, c, k] * x[n, grp(m) * C/G + c, o * s - pb + k * d] (taps inside x).
std::vector<double> ReferenceConv(const Tensor& x, const Tensor& w, const Tensor* b, int64_t group, const Window& win,
                                  Shape& y_shape) {
  const size_t r = win.kernel.size();
  const int64_t N = x.dim(0), C = x.dim(1), M = w.dim(0), cg = C / group, mg = M / group;
  V out;
  for (size_t i = 0; i < r; ++i) {
    const int64_t dk = (win.kernel[i] - 1) * win.dilations[i] + 1;
    out.push_back((win.input[i] + win.pads[i] + win.pads[r + i] - dk) / win.strides[i] + 1);
  }
  y_shape = {N, M};
  y_shape.insert(y_shape.end(), out.begin(), out.end());
  std::vector<double> y(static_cast<size_t>(ShapeSize(y_shape)));
  ForEachIndex(y_shape, [&](const V& yi) {
    const int64_t n = yi[0], m = yi[1];
    double s = b ? b->data<float>()[m] : 0.0;
    for (int64_t c = 0; c < cg; ++c) {
      ForEachIndex(win.kernel, [&](const V& k) {
        V xi{n, (m / mg) * cg + c};
        for (size_t i = 0; i < r; ++i) {
          const int64_t p = yi[2 + i] * win.strides[i] - win.pads[i] + k[i] * win.dilations[i];
          if (p < 0 || p >= win.input[i]) return;
          xi.push_back(p);
        }
        V wi{m, c};
        wi.insert(wi.end(), k.begin(), k.end());
        s += static_cast<double>(x.data<float>()[Flat(x.shape(), xi)]) * w.data<float>()[Flat(w.shape(), wi)];
      });
    }
    y[static_cast<size_t>(Flat(y_shape, yi))] = s;
  });
  return y;
}

// v [N, C, H, W] (row-major) as [N, H, W, C].
template <class T>
std::vector<T> ToNhwc(const std::vector<T>& v, const Shape& s) {
  std::vector<T> out(v.size());
  const int64_t N = s[0], C = s[1], HW = s[2] * s[3];
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < C; ++c) {
      for (int64_t p = 0; p < HW; ++p) out[static_cast<size_t>((n * HW + p) * C + c)] = v[static_cast<size_t>((n * C + c) * HW + p)];
    }
  }
  return out;
}

TEST(ConvSweepTest, MatchesTheTapByTapReference) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t rank = 1 + static_cast<size_t>(trial % 3);
    const Window win = RandomWindow(rng, rank, trial % 2 == 0 ? 1 : 3);  // half stride 1 (wide im2col)
    const int64_t kind = (trial / 2) % 4;                                // 0, 1: dense, 2: groups, 3: depthwise
    const int64_t group = kind == 2 ? 2 : kind == 3 ? 3 : 1;
    const int64_t C = kind == 3 ? 3 : 2 * (1 + trial % 2), M = kind == 3 ? 3 * (1 + trial % 2) : 2 * (1 + trial % 3);
    Shape xs{1 + trial % 2, C}, ws{M, C / group};
    xs.insert(xs.end(), win.input.begin(), win.input.end());
    ws.insert(ws.end(), win.kernel.begin(), win.kernel.end());
    const Tensor x = RandomTensor(rng, xs), w = RandomTensor(rng, ws), b = RandomTensor(rng, {M});
    Attributes a = WindowAttrs(win);
    a.Set("group", IntAttr(group));
    Shape ys;
    const std::vector<double> expected = ReferenceConv(x, w, &b, group, win, ys);
    SCOPED_TRACE(StrCat("trial ", trial, " x ", ShapeToString(xs), " w ", ShapeToString(ws), " strides ",
                        ShapeToString(win.strides), " dilations ", ShapeToString(win.dilations), " pads ",
                        ShapeToString(win.pads), " group ", group));
    ExpectClose(testing::RunOp("Conv", 11, a, {x, w, b}, 1, trial % 3 == 0)[0], ys, expected);
    if (rank == 2) {  // the session's channels-last form (runtime/channels_last_layout.h)
      a.Set("channels_last", IntAttr(1));
      const std::vector<float> xv(x.data<float>(), x.data<float>() + x.size());
      const Tensor x_nhwc = Tensor::FromVector<float>({xs[0], xs[2], xs[3], xs[1]}, ToNhwc(xv, xs));
      const Tensor y = testing::RunOp("FusedConv", 1, a, {x_nhwc, w, b}, 1, trial % 3 == 0, "ptq.fused")[0];
      ExpectClose(y, {ys[0], ys[2], ys[3], ys[1]}, ToNhwc(expected, ys));
    }
  }
}

// A channels-last convolution large enough to share its output lines between threads, with groups and a
// residual input, gives the same bits on one thread and on three (more threads than cores: the shares
// fall differently), and the bits of the convolution followed by the residual's addition.
TEST(ConvSweepTest, ChannelsLastConvGivesTheSameBitsOnAnyThreadCount) {
  std::mt19937 rng(19);
  Window win{{3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, {45, 38}};
  const Tensor x = RandomTensor(rng, {1, 45, 38, 24}), w = RandomTensor(rng, {40, 12, 3, 3}), b = RandomTensor(rng, {40});
  const Tensor z = RandomTensor(rng, {1, 45, 38, 40});
  Attributes a = WindowAttrs(win);
  a.Set("group", IntAttr(2));
  a.Set("channels_last", IntAttr(1));
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const Tensor plain = testing::RunOp("FusedConv", 1, a, {x, w, b}, 1, true, "ptq.fused")[0];
  const Tensor one = testing::RunOp("FusedConv", 1, a, {x, w, b, z}, 1, true, "ptq.fused")[0];
  omp_set_num_threads(3);
  const Tensor three = testing::RunOp("FusedConv", 1, a, {x, w, b, z}, 1, true, "ptq.fused")[0];
  omp_set_num_threads(saved);
  ASSERT_EQ(one.shape(), (Shape{1, 45, 38, 40}));
  EXPECT_EQ(0, std::memcmp(one.raw(), three.raw(), one.nbytes()));
  for (int64_t i = 0; i < one.size(); ++i) {
    ASSERT_EQ(one.data<float>()[i], plain.data<float>()[i] + z.data<float>()[i]) << i;
  }
}

// Every channels-last path shares its work between threads in units taken in turn (small images: the GEMM
// splits each product instead); any thread count gives the bits of one thread. The cases: im2row units
// over lines and, on a 5 x 6 output, one block with the GEMM split by columns (strided windows); the direct
// kernel in chunks of positions on a 7 x 7 image, over several K blocks on a 30 x 20 image, and over output
// channels shared by the threads on a 5 x 6 image; a pointwise layer with SiLU in small row blocks; depthwise
// rows of 14 x 14.
TEST(ConvSweepTest, EveryChannelsLastPathGivesTheSameBitsOnAnyThreadCount) {
  struct Case {
    const char* name;
    Shape x, w;
    int64_t group, kernel, stride;
    bool silu;
  };
  const Case cases[] = {
      {"im2row lines", {2, 30, 20, 32}, {48, 32, 3, 3}, 1, 3, 2, false},
      {"im2row small image", {1, 9, 11, 64}, {128, 64, 3, 3}, 1, 3, 2, false},
      {"direct 7x7", {1, 7, 7, 64}, {128, 16, 3, 3}, 4, 3, 1, true},
      {"direct K blocks", {2, 30, 20, 32}, {48, 32, 3, 3}, 1, 3, 1, false},
      {"direct panels shared", {1, 5, 6, 64}, {128, 64, 3, 3}, 1, 3, 1, false},
      {"pointwise silu 7x7", {1, 7, 7, 320}, {1280, 320, 1, 1}, 1, 1, 1, true},
      {"pointwise silu 56x56", {1, 56, 56, 24}, {144, 24, 1, 1}, 1, 1, 1, true},
      {"depthwise 14x14", {1, 14, 14, 96}, {96, 1, 3, 3}, 96, 3, 1, false},
  };
  std::mt19937 rng(41);
  const int saved = omp_get_max_threads();
  for (const Case& c : cases) {
    const Tensor x = RandomTensor(rng, c.x), w = RandomTensor(rng, c.w), b = RandomTensor(rng, {c.w[0]});
    const int64_t pad = c.kernel / 2;
    Attributes a = WindowAttrs(
        Window{{c.kernel, c.kernel}, {c.stride, c.stride}, {1, 1}, {pad, pad, pad, pad}, {c.x[1], c.x[2]}});
    a.Set("group", IntAttr(c.group));
    a.Set("channels_last", IntAttr(1));
    if (c.silu) a.Set("activation_silu", IntAttr(1));
    omp_set_num_threads(1);
    const Tensor one = testing::RunOp("FusedConv", 1, a, {x, w, b}, 1, true, "ptq.fused")[0];
    const int64_t oh = (c.x[1] + 2 * pad - c.kernel) / c.stride + 1, ow = (c.x[2] + 2 * pad - c.kernel) / c.stride + 1;
    ASSERT_EQ(one.shape(), (Shape{c.x[0], oh, ow, c.w[0]})) << c.name;
    for (int threads : {2, 3}) {
      omp_set_num_threads(threads);
      const Tensor more = testing::RunOp("FusedConv", 1, a, {x, w, b}, 1, true, "ptq.fused")[0];
      EXPECT_EQ(0, std::memcmp(one.raw(), more.raw(), one.nbytes())) << c.name << ", " << threads << " threads";
    }
  }
  omp_set_num_threads(saved);
}

// A weight of +infinity: its products with the zeros of the padding are NaN (0 * inf), so the direct kernel must
// not skip the taps outside the image then. A 3 x 3 window with padding 1 over rows of 30 (whole tiles of positions
// in the top row), the infinity at kernel row 0 of output channel 3 (and a finite rest): channel 3 is NaN along the
// top output row, where that tap reads the padding, and +-infinity below it; the same in the channels-first layout.
TEST(ConvSweepTest, InfiniteWeightsTimesThePaddingGiveNaN) {
  std::mt19937 rng(43);
  const Tensor x = RandomTensor(rng, {1, 16, 4, 30}), b = RandomTensor(rng, {24});
  Tensor w = RandomTensor(rng, {24, 16, 3, 3});
  w.data<float>()[((3 * 16 + 2) * 3 + 0) * 3 + 1] = std::numeric_limits<float>::infinity();
  Attributes a = WindowAttrs(Window{{3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, {4, 30}});
  const Tensor first = testing::RunOp("FusedConv", 1, a, {x, w, b}, 1, true, "ptq.fused")[0];
  a.Set("channels_last", IntAttr(1));
  std::vector<float> xl(static_cast<size_t>(x.size()));  // x as [1, 4, 30, 16]
  for (int64_t c = 0; c < 16; ++c)
    for (int64_t p = 0; p < 120; ++p) xl[static_cast<size_t>(p * 16 + c)] = x.data<float>()[c * 120 + p];
  const Tensor last =
      testing::RunOp("FusedConv", 1, a, {Tensor::FromVector<float>({1, 4, 30, 16}, xl), w, b}, 1, true, "ptq.fused")[0];
  ASSERT_EQ(last.shape(), (Shape{1, 4, 30, 24}));
  for (int64_t oh = 0; oh < 4; ++oh) {
    for (int64_t ow = 0; ow < 30; ++ow) {
      const float l = last.data<float>()[(oh * 30 + ow) * 24 + 3], f = first.data<float>()[3 * 120 + oh * 30 + ow];
      if (oh == 0) {
        EXPECT_TRUE(std::isnan(l) && std::isnan(f)) << "row 0, column " << ow << ": " << l << ", " << f;
      } else {
        EXPECT_TRUE(std::isinf(l) && l == f) << "row " << oh << ", column " << ow << ": " << l << ", " << f;
      }
    }
  }
}

// The channels-last depthwise kernel gives the bits of the channels-first one, with an activation.
TEST(ConvSweepTest, ChannelsLastDepthwiseHasTheBitsOfChannelsFirst) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 40; ++trial) {
    const Window win = RandomWindow(rng, 2, 1 + trial % 3);
    const int64_t C = 5 + trial % 40, M = C * (1 + trial % 2);  // up to 44 channels: vector blocks and tails
    Shape xs{1 + trial % 2, C}, ws{M, 1};
    xs.insert(xs.end(), win.input.begin(), win.input.end());
    ws.insert(ws.end(), win.kernel.begin(), win.kernel.end());
    const Tensor x = RandomTensor(rng, xs), w = RandomTensor(rng, ws), b = RandomTensor(rng, {M});
    Attributes a = WindowAttrs(win);
    a.Set("group", IntAttr(C));
    AttributeValue lo, hi;
    lo.kind = hi.kind = AttributeValue::Kind::kFloat;
    lo.f = -0.5f;
    hi.f = 0.75f;
    a.Set("activation_min", lo);
    a.Set("activation_max", hi);
    const Tensor first = testing::RunOp("FusedConv", 1, a, {x, w, b}, 1, false, "ptq.fused")[0];
    a.Set("channels_last", IntAttr(1));
    const std::vector<float> xv(x.data<float>(), x.data<float>() + x.size());
    const Tensor x_nhwc = Tensor::FromVector<float>({xs[0], xs[2], xs[3], xs[1]}, ToNhwc(xv, xs));
    const Tensor last = testing::RunOp("FusedConv", 1, a, {x_nhwc, w, b}, 1, trial % 2 == 0, "ptq.fused")[0];
    const std::vector<float> want = ToNhwc(std::vector<float>(first.data<float>(), first.data<float>() + first.size()),
                                           first.shape());
    ASSERT_EQ(last.size(), static_cast<int64_t>(want.size())) << "trial " << trial;
    EXPECT_EQ(0, std::memcmp(last.raw(), want.data(), want.size() * sizeof(float))) << "trial " << trial;
  }
}

// A convolution whose packed weights exceed the cache (512 -> 512 channels, 3x3, dilated as FCN's: 9.4 MB; of
// stride 2, which the direct kernel leaves to im2row and the GEMM at this depth) over more lines than one im2row
// block holds runs as K slices of im2row columns; its output has the bits of one GEMM over the whole im2row
// matrix, on 1 and 3 threads.
TEST(ConvSweepTest, LargeWeightsInKSlicesHaveTheBitsOfOneProduct) {
  if (!GetCpuFeatures().avx2_fma) GTEST_SKIP() << "the packed float GEMM needs AVX2 and FMA";
  std::mt19937 rng(29);
  constexpr int64_t C = 512, M = 512, H = 28, W = 20, OH = 14, OW = 10;
  const Tensor x = RandomTensor(rng, {1, H, W, C}), w = RandomTensor(rng, {M, C, 3, 3}), b = RandomTensor(rng, {M});
  Attributes a;
  a.Set("kernel_shape", IntsAttr(V{3, 3}));
  a.Set("strides", IntsAttr(V{2, 2}));
  a.Set("dilations", IntsAttr(V{2, 2}));
  a.Set("pads", IntsAttr(V{2, 2, 2, 2}));
  a.Set("channels_last", IntAttr(1));
  AttributeValue lo, hi;
  lo.kind = hi.kind = AttributeValue::Kind::kFloat;
  lo.f = 0.0f;
  hi.f = 8.0f;
  a.Set("activation_min", lo);
  a.Set("activation_max", hi);
  // The reference: the whole im2row matrix times the packed weights in one call.
  SlidingWindow win;
  win.input = {H, W};
  win.output = {OH, OW};
  win.kernel = {3, 3};
  win.strides = {2, 2};
  win.dilations = {2, 2};
  win.pads_begin = win.pads_end = {2, 2};
  const int64_t K = 9 * C;
  std::vector<float> rows(static_cast<size_t>(OH * OW * K)), wt(static_cast<size_t>(K * M));
  Im2RowNhwc(x.data<float>(), C, 1, win, 0, OH, rows.data());
  PackConvWeightsNhwc(w.data<float>(), M, C, 9, 1, wt.data());
  GemmEpilogue<float> epi;
  epi.col_bias = b.data<float>();
  epi.clamp = true;
  epi.lo = 0.0f;
  epi.hi = 8.0f;
  std::vector<float> want(static_cast<size_t>(OH * OW * M));
  GemmF32Avx2Packed(OH * OW, 1.0f, rows.data(), K, PackF32B(false, K, M, wt.data(), M), 0.0f, want.data(), M,
                    BestF32Kernels(), epi);
  const int saved = omp_get_max_threads();
  for (int threads : {1, 3}) {
    omp_set_num_threads(threads);
    const Tensor y = testing::RunOp("FusedConv", 1, a, {x, w, b}, 1, true, "ptq.fused")[0];
    ASSERT_EQ(y.shape(), (Shape{1, OH, OW, M}));
    EXPECT_EQ(0, std::memcmp(y.raw(), want.data(), want.size() * sizeof(float))) << threads << " threads";
  }
  omp_set_num_threads(saved);
}

// Convolutions of one GEMM K block (RegNet's grouped 3x3s; grouped and strided, dilated, padded windows of 8 to
// 16 input and 8 to 40 output channels per group; a residual and a clamp) computed without an im2row matrix
// have the bits of Im2RowNhwc rows times each group's packed weights, on 1 and 3 threads. So do those of 1 to 7
// channels in one group (stems: the taps are kernel rows, copied with zeros where they cross the image's left or
// right border), with windows dilated only vertically, and a 7 x 7 stride-2 stem of 3 channels padded by 3. And rows
// of 13 to 24 positions, so that the last tile of 12 positions in zmm registers (AVX-512) holds 1 to 12. And 48 to
// 512 output channels per group, one or several K blocks, so that AVX-512 tiles span 2, 3 and 4 panels, with an N
// block of PackF32B's layout ending inside a run of panels (272 channels: 16 panels, then one) and a half panel
// last (264), over images of 6 to 117 positions (last tiles of fewer rows).
TEST(ConvSweepTest, DirectChannelsLastConvHasTheBitsOfIm2RowTimesPackedWeights) {
  if (!GetCpuFeatures().avx2_fma) GTEST_SKIP() << "the direct kernel needs AVX2 and FMA";
  std::mt19937 rng(31);
  const auto pick = [&rng](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const int saved = omp_get_max_threads();
  for (int trial = 0; trial < 84; ++trial) {
    Window win = RandomWindow(rng, 2, 2);
    win.input = {pick(5, 30), pick(5, 30)};
    const bool stem = trial >= 24 && trial < 40;  // few channels, one group
    const bool row = trial >= 40 && trial < 52;  // one row of 13 to 24 positions: every count of the last zmm tile
    // Depths of several K blocks (up to 4.8 K, 3 x 3, 2 x 3 and 5 x 5 windows of stride 1, dilated up to 4 with up
    // to 4 of padding: whole tiles and tile rows read only the padding for some taps).
    const bool deep = trial >= 52 && trial < 68;
    if (deep) {
      win.kernel = trial % 3 == 0 ? Shape{5, 5} : trial % 3 == 1 ? Shape{3, 3} : Shape{2, 3};
      win.strides = {1, 1};
      win.dilations = {pick(1, 4), pick(1, 4)};
      win.pads = {pick(0, 4), pick(0, 4), pick(0, 4), pick(0, 4)};
      for (size_t i = 0; i < 2; ++i) {
        const int64_t dk = (win.kernel[i] - 1) * win.dilations[i] + 1;
        win.input[i] = std::max<int64_t>(1, dk - win.pads[i] - win.pads[2 + i]) + pick(0, 12);
      }
    }
    if (row) {
      win.kernel = {3, 3};
      win.strides = {1, 1};
      win.dilations = {1, 1};
      win.pads = {1, 1, 1, 1};
      win.input = {1, trial - 27};
    }
    const bool wide = trial >= 68;
    if (wide) {
      win.kernel = {3, 3};
      win.strides = {1, 1};
      win.dilations = {1, 1};
      win.pads = {1, 1, 1, 1};
      win.input = {pick(2, 9), pick(3, 13)};
    }
    if (stem) win.dilations[1] = 1;
    if (trial >= 38 && stem) {
      win.kernel = {7, 7};
      win.strides = {2, 2};
      win.dilations = {1, 1};
      win.pads = {3, 3, 3, 3};
      win.input = {pick(4, 30), pick(4, 30)};
    }
    constexpr int64_t kWideChannels[8] = {48, 64, 80, 96, 128, 264, 272, 512};
    const int64_t group = stem ? 1 : deep || wide ? 1 + trial % 2 : row ? 2 : 1 + trial % 4;
    const int64_t cg = stem   ? (trial >= 38 ? 3 : 1 + trial % 7)
                       : row  ? 16
                       : deep ? pick(45, 190)
                       : wide ? (trial % 4 < 2 ? pick(30, 60) : pick(8, 28))
                              : 8 + trial % 9;
    const int64_t mg = row ? 16 : deep ? 8 * pick(1, 6) : wide ? kWideChannels[trial / 2 % 8] : 8 * pick(1, 5);
    const int64_t C = group * cg, M = group * mg, N = 1 + trial % 2, T = win.kernel[0] * win.kernel[1];
    ConvAttributes attrs;
    attrs.kernel_shape = win.kernel;
    attrs.strides = win.strides;
    attrs.dilations = win.dilations;
    attrs.pads = win.pads;
    attrs.group = group;
    const Shape xs{N, win.input[0], win.input[1], C}, ws{M, cg, win.kernel[0], win.kernel[1]};
    const ConvGeometry g = ResolveConvGeometryChannelsLast(attrs, xs, ws);
    ASSERT_TRUE(ConvNhwcDirectApplies(g)) << "trial " << trial;
    const int64_t P = g.window.output[0] * g.window.output[1], K = cg * T;
    const Tensor x = RandomTensor(rng, xs), w = RandomTensor(rng, ws);
    const Tensor bias = RandomTensor(rng, {M}), z = RandomTensor(rng, {N * P * M});
    std::vector<float> wt(static_cast<size_t>(w.size()));
    PackConvWeightsNhwc(w.data<float>(), M, cg, T, group, wt.data());
    std::vector<PackedF32B> packed;
    for (int64_t grp = 0; grp < group; ++grp) packed.push_back(PackF32B(false, K, mg, wt.data() + grp * K * mg, mg));
    GemmEpilogue<float> epi;
    epi.col_bias = bias.data<float>();
    epi.sum = trial % 2 == 0 ? z.data<float>() : nullptr;
    epi.ld_sum = M;
    epi.clamp = trial % 3 != 2;
    epi.lo = -0.5f;
    epi.hi = 1.0f;
    // The reference: each image's rows of every group, each group's GEMM into its columns.
    std::vector<float> want(static_cast<size_t>(N * P * M)), rows(static_cast<size_t>(P * group * K));
    for (int64_t n = 0; n < N; ++n) {
      Im2RowNhwc(x.data<float>() + n * win.input[0] * win.input[1] * C, C, group, g.window, 0, g.window.output[0],
                 rows.data());
      for (int64_t grp = 0; grp < group; ++grp) {
        GemmEpilogue<float> e = epi;
        e.col_bias = epi.col_bias + grp * mg;
        e.sum = epi.sum != nullptr ? epi.sum + n * P * M + grp * mg : nullptr;
        GemmF32Avx2Packed(P, 1.0f, rows.data() + grp * K, group * K, packed[static_cast<size_t>(grp)], 0.0f,
                          want.data() + n * P * M + grp * mg, M, BestF32Kernels(), e);
      }
    }
    if (deep) {
      ASSERT_GT(K, 256) << "trial " << trial;
    }
    for (int threads : {1, 3}) {
      for (bool finite : {false, true}) {  // finite: the taps outside the image skipped
        omp_set_num_threads(threads);
        std::vector<float> got(want.size());
        ConvNhwcDirectF32(x.data<float>(), packed, g, epi, got.data(), nullptr, finite);
        EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float)))
            << "trial " << trial << ", " << threads << " threads, finite " << finite;
      }
    }
  }
  omp_set_num_threads(saved);
}

// Mobile-network depthwise layers (3x3 and 5x5, stride 1 and 2, images wide enough for runs of interior
// positions, with and without bias and activation): the channels-last interior kernel gives the bits of the
// channels-first convolution.
TEST(ConvSweepTest, ChannelsLastDepthwiseInteriorRunsHaveTheBitsOfChannelsFirst) {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 16; ++trial) {
    const int64_t k = trial % 2 == 0 ? 3 : 5, s = 1 + trial / 2 % 2, C = 8 * (1 + trial % 4) + trial / 8 * 3;
    const int64_t H = 9 + trial % 5, W = 17 + trial % 7, pad = k / 2;
    Window win;
    win.kernel = {k, k};
    win.strides = {s, s};
    win.dilations = {1, 1 + trial / 4 % 2};
    win.pads = {pad, pad, pad, pad};
    win.input = {H, W};
    const Tensor x = RandomTensor(rng, {1, C, H, W}), w = RandomTensor(rng, {C, 1, k, k}), b = RandomTensor(rng, {C});
    Attributes a = WindowAttrs(win);
    a.Set("group", IntAttr(C));
    if (trial % 3 != 0) {
      AttributeValue lo, hi;
      lo.kind = hi.kind = AttributeValue::Kind::kFloat;
      lo.f = 0.0f;
      hi.f = 6.0f * 0.1f;
      a.Set("activation_min", lo);
      a.Set("activation_max", hi);
    }
    const std::vector<Tensor> inputs = trial % 4 == 3 ? std::vector<Tensor>{x, w} : std::vector<Tensor>{x, w, b};
    const Tensor first = testing::RunOp("FusedConv", 1, a, inputs, 1, false, "ptq.fused")[0];
    a.Set("channels_last", IntAttr(1));
    const Shape xs = x.shape();
    const std::vector<float> xv(x.data<float>(), x.data<float>() + x.size());
    std::vector<Tensor> last_inputs = inputs;
    last_inputs[0] = Tensor::FromVector<float>({xs[0], xs[2], xs[3], xs[1]}, ToNhwc(xv, xs));
    const Tensor last = testing::RunOp("FusedConv", 1, a, last_inputs, 1, trial % 2 == 1, "ptq.fused")[0];
    const std::vector<float> want = ToNhwc(std::vector<float>(first.data<float>(), first.data<float>() + first.size()),
                                           first.shape());
    ASSERT_EQ(last.size(), static_cast<int64_t>(want.size())) << "trial " << trial;
    EXPECT_EQ(0, std::memcmp(last.raw(), want.data(), want.size() * sizeof(float))) << "trial " << trial;
  }
}

// A ConvTranspose large enough for threads (PP-OCR's detector head: 2 x 2 of stride 2, and a 3 x 3 of stride 2 whose
// windows overlap): the same bits on one, two and three threads.
TEST(ConvSweepTest, ConvTransposeGivesTheSameBitsOnAnyThreadCount) {
  std::mt19937 rng(47);
  const int saved = omp_get_max_threads();
  for (int64_t k : {2, 3}) {
    const Tensor x = RandomTensor(rng, {1, 24, 40, 36}), w = RandomTensor(rng, {24, 16, k, k});
    const Tensor b = RandomTensor(rng, {16});
    Attributes a;
    a.Set("kernel_shape", IntsAttr({k, k}));
    a.Set("strides", IntsAttr({2, 2}));
    omp_set_num_threads(1);
    const Tensor one = testing::RunOp("ConvTranspose", 11, a, {x, w, b})[0];
    const int64_t oh = 2 * 39 + k, ow = 2 * 35 + k;
    ASSERT_EQ(one.shape(), (Shape{1, 16, oh, ow}));
    for (int threads : {2, 3}) {
      omp_set_num_threads(threads);
      const Tensor more = testing::RunOp("ConvTranspose", 11, a, {x, w, b})[0];
      EXPECT_EQ(0, std::memcmp(one.raw(), more.raw(), one.nbytes())) << "kernel " << k << ", " << threads << " threads";
    }
  }
  omp_set_num_threads(saved);
}

// y[n, grp * M/G + m, i * s - pb + k * d] += x[n, grp * C/G + c, i] * w[grp * C/G + c, m, k], starting at b.
TEST(ConvSweepTest, ConvTransposeMatchesTheScatterReference) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 150; ++trial) {
    const size_t r = 1 + static_cast<size_t>(trial % 3);
    Window win = RandomWindow(rng, r, 3);
    V out_pad, out;
    for (size_t i = 0; i < r; ++i) {
      out_pad.push_back(std::uniform_int_distribution<int64_t>(0, std::max(win.strides[i], win.dilations[i]) - 1)(rng));
      const int64_t dk = (win.kernel[i] - 1) * win.dilations[i] + 1;
      win.input[i] = 1 + trial % 4;
      const int64_t full = win.strides[i] * (win.input[i] - 1) + out_pad[i] + dk;
      while (win.pads[i] + win.pads[r + i] >= full) win.pads[i] = win.pads[r + i] = 0;
      out.push_back(full - win.pads[i] - win.pads[r + i]);
    }
    const int64_t group = trial % 2 == 0 ? 1 : 2, C = 2 * group, mg = 1 + trial % 3, N = 1 + trial % 2;
    Shape xs{N, C}, ws{C, mg}, ys{N, mg * group};
    xs.insert(xs.end(), win.input.begin(), win.input.end());
    ws.insert(ws.end(), win.kernel.begin(), win.kernel.end());
    ys.insert(ys.end(), out.begin(), out.end());
    const Tensor x = RandomTensor(rng, xs), w = RandomTensor(rng, ws), b = RandomTensor(rng, {mg * group});
    std::vector<double> y(static_cast<size_t>(ShapeSize(ys)));
    ForEachIndex(ys, [&](const V& yi) { y[static_cast<size_t>(Flat(ys, yi))] = b.data<float>()[yi[1]]; });
    ForEachIndex(xs, [&](const V& xi) {
      const int64_t g = xi[1] / (C / group);
      for (int64_t m = 0; m < mg; ++m) {
        ForEachIndex(win.kernel, [&](const V& k) {
          V yi{xi[0], g * mg + m};
          for (size_t i = 0; i < r; ++i) {
            const int64_t p = xi[2 + i] * win.strides[i] - win.pads[i] + k[i] * win.dilations[i];
            if (p < 0 || p >= out[i]) return;
            yi.push_back(p);
          }
          V wi{xi[1], m};
          wi.insert(wi.end(), k.begin(), k.end());
          y[static_cast<size_t>(Flat(ys, yi))] +=
              static_cast<double>(x.data<float>()[Flat(xs, xi)]) * w.data<float>()[Flat(ws, wi)];
        });
      }
    });
    Attributes a = WindowAttrs(win);
    a.Set("group", IntAttr(group));
    a.Set("output_padding", IntsAttr(out_pad));
    SCOPED_TRACE(StrCat("trial ", trial, " x ", ShapeToString(xs), " w ", ShapeToString(ws), " strides ",
                        ShapeToString(win.strides), " dilations ", ShapeToString(win.dilations), " pads ",
                        ShapeToString(win.pads), " output_padding ", ShapeToString(out_pad)));
    ExpectClose(testing::RunOp("ConvTranspose", 11, a, {x, w, b})[0], ys, y);
  }
}

// Pool outputs per axis (ceil_mode drops a last window that starts past input + pad_begin).
V PoolOutput(const Window& w, bool ceil_mode) {
  const size_t r = w.kernel.size();
  V out;
  for (size_t i = 0; i < r; ++i) {
    const int64_t dk = (w.kernel[i] - 1) * w.dilations[i] + 1;
    const int64_t span = w.input[i] + w.pads[i] + w.pads[r + i] - dk;
    int64_t o = (ceil_mode ? (span + w.strides[i] - 1) / w.strides[i] : span / w.strides[i]) + 1;
    if (ceil_mode && (o - 1) * w.strides[i] >= w.input[i] + w.pads[i]) --o;
    out.push_back(o);
  }
  return out;
}

TEST(ConvSweepTest, PoolsMatchTheTapByTapReference) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t r = 1 + static_cast<size_t>(trial % 3);
    Window win = RandomWindow(rng, r, 3);
    for (size_t i = 0; i < r; ++i) {  // pads smaller than the kernel, as the spec requires
      win.pads[i] = std::min(win.pads[i], win.kernel[i] - 1);
      win.pads[r + i] = std::min(win.pads[r + i], win.kernel[i] - 1);
      win.input[i] = std::max(win.input[i], (win.kernel[i] - 1) * win.dilations[i] + 1);
    }
    const bool ceil_mode = trial % 4 >= 2, include_pad = trial % 2 == 1;
    const V out = PoolOutput(win, ceil_mode);
    Shape xs{1 + trial % 2, 2}, ys{xs[0], 2};
    xs.insert(xs.end(), win.input.begin(), win.input.end());
    ys.insert(ys.end(), out.begin(), out.end());
    const Tensor x = RandomTensor(rng, xs);
    std::vector<double> max_y, avg_y;
    std::vector<int64_t> max_index;
    ForEachIndex(ys, [&](const V& yi) {
      double best = -std::numeric_limits<double>::infinity(), sum = 0.0;
      int64_t best_at = -1, inside = 0, padded = 0;
      ForEachIndex(win.kernel, [&](const V& k) {
        V xi{yi[0], yi[1]};
        bool in_x = true, in_pads = true;
        for (size_t i = 0; i < r; ++i) {
          const int64_t p = yi[2 + i] * win.strides[i] - win.pads[i] + k[i] * win.dilations[i];
          in_x = in_x && p >= 0 && p < win.input[i];
          in_pads = in_pads && p >= -win.pads[i] && p < win.input[i] + win.pads[r + i];
          xi.push_back(p);
        }
        padded += in_pads ? 1 : 0;
        if (!in_x) return;
        const double v = x.data<float>()[Flat(xs, xi)];
        ++inside;
        sum += v;
        if (v > best) best = v, best_at = Flat(xs, xi);
      });
      max_y.push_back(best);
      max_index.push_back(best_at);
      avg_y.push_back(sum / static_cast<double>(include_pad ? padded : inside));
    });
    Attributes a = WindowAttrs(win);
    a.Set("ceil_mode", IntAttr(ceil_mode ? 1 : 0));
    a.Set("count_include_pad", IntAttr(include_pad ? 1 : 0));
    SCOPED_TRACE(StrCat("trial ", trial, " x ", ShapeToString(xs), " kernel ", ShapeToString(win.kernel), " strides ",
                        ShapeToString(win.strides), " dilations ", ShapeToString(win.dilations), " pads ",
                        ShapeToString(win.pads), " ceil_mode ", ceil_mode, " count_include_pad ", include_pad));
    ExpectClose(testing::RunOp("MaxPool", 12, a, {x})[0], ys, max_y);
    const auto with_indices = testing::RunOp("MaxPool", 12, a, {x}, 2);
    ExpectClose(with_indices[0], ys, max_y);
    EXPECT_EQ(testing::ToVector<int64_t>(with_indices[1]), max_index);
    ExpectClose(testing::RunOp("AveragePool", 19, a, {x})[0], ys, avg_y);
  }
}

}  // namespace
}  // namespace ptq
