// QLinearConv, ConvInteger, QLinearMatMul and MatMulInteger on the int8 GEMM kernels, with weights packed
// at creation (constant inputs) and per run, bit for bit against IntConvReference / IntMatMulReference plus
// RequantizeValue over random shapes: groups, depthwise, 1-D to 3-D windows, padding, strides, dilations,
// all signedness mixes, per-channel zero points, batch broadcasting.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/conv/int_conv_reference.h"
#include "runtime/kernels/int8_gemm/int_matmul_reference.h"
#include "runtime/quant_math.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::IntsAttr;

Tensor RandomInt8(std::mt19937& rng, DataType t, Shape shape) {
  Tensor x(t, std::move(shape));
  std::uniform_int_distribution<int> byte(0, 255);
  auto* p = static_cast<uint8_t*>(x.raw());
  for (int64_t i = 0; i < x.size(); ++i) p[i] = static_cast<uint8_t>(byte(rng));
  return x;
}

Tensor ZeroPoints(std::mt19937& rng, DataType t, Shape shape) { return RandomInt8(rng, t, std::move(shape)); }

Tensor Scales(std::mt19937& rng, Shape shape, float lo, float hi) {
  Tensor s(DataType::kFloat, std::move(shape));
  std::uniform_real_distribution<float> d(lo, hi);
  for (int64_t i = 0; i < s.size(); ++i) s.data<float>()[i] = d(rng);
  return s;
}

void ExpectSame(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  int bad = 0;
  for (int64_t i = 0; i < want.size() && bad < 5; ++i) {
    if (got.GetAsDouble(i) != want.GetAsDouble(i)) {
      ++bad;
      ADD_FAILURE() << what << ": element " << i << " got " << got.GetAsDouble(i) << " want " << want.GetAsDouble(i);
    }
  }
}

// [N, C, H, W] as [N, H, W, C], any element type.
Tensor ToNhwc(const Tensor& t) {
  const int64_t N = t.dim(0), C = t.dim(1), HW = t.dim(2) * t.dim(3);
  Tensor out(t.dtype(), {N, t.dim(2), t.dim(3), C});
  const size_t e = ElementSize(t.dtype());
  const auto* src = static_cast<const uint8_t*>(t.raw());
  auto* dst = static_cast<uint8_t*>(out.raw());
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < C; ++c) {
      for (int64_t p = 0; p < HW; ++p) {
        std::memcpy(dst + ((n * HW + p) * C + c) * e, src + ((n * C + c) * HW + p) * e, e);
      }
    }
  }
  return out;
}

struct ConvCase {
  Shape x_spatial, kernel;
  int64_t batch, channels, out_channels, group;
  std::vector<int64_t> strides, dilations, pads;
};

TEST(Int8OpsFastPath, QLinearConvAndConvIntegerMatchTheReferenceConv) {
  std::mt19937 rng(21);
  const std::vector<ConvCase> cases = {
      {{9, 10}, {3, 3}, 2, 5, 7, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{8, 8}, {4, 4}, 3, 3, 16, 1, {4, 4}, {1, 1}, {0, 0, 0, 0}},     // patch embedding
      {{7, 9}, {3, 2}, 1, 6, 4, 2, {2, 1}, {1, 2}, {2, 0, 1, 1}},      // groups, asymmetric pads
      {{6, 6}, {3, 3}, 2, 8, 8, 8, {1, 1}, {1, 1}, {1, 1, 1, 1}},      // depthwise
      {{13}, {5}, 2, 3, 19, 1, {2}, {2}, {3, 1}},                      // 1-D
      {{4, 5, 6}, {2, 3, 2}, 1, 2, 5, 1, {1, 2, 1}, {1, 1, 2}, {1, 0, 1, 0, 1, 1}},  // 3-D
      {{5, 5}, {1, 1}, 1, 33, 70, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}},    // 1x1, N over several panels
      {{16, 16}, {3, 3}, 8, 16, 32, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}},  // images shared out between threads
      {{6, 11}, {2, 5}, 2, 3, 9, 1, {1, 2}, {1, 1}, {0, 2, 1, 2}},     // kernel width 5
      {{4, 9}, {1, 7}, 1, 2, 5, 1, {1, 1}, {1, 1}, {0, 3, 0, 3}},      // kernel width 7
      {{9, 11}, {3, 3}, 2, 8, 6, 2, {2, 1}, {1, 2}, {1, 2, 0, 1}},     // channels-last, groups, dilated width
      {{3, 4, 5}, {2, 2, 2}, 1, 4, 3, 1, {1, 2, 1}, {2, 1, 1}, {1, 0, 1, 1, 1, 0}},  // channels-last 3-D
      // Channels-last kernel lines of 24 and 21 bytes (moved as 32-byte words; lines of up to 16 bytes, as in
      // the cases above, as 16-byte ones): 3 x 3 of 8 channels, and ResNet's 7 x 7 / 2 stem of 3 channels.
      {{10, 12}, {3, 3}, 1, 8, 12, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{20, 19}, {7, 7}, 1, 3, 8, 1, {2, 2}, {1, 1}, {3, 3, 3, 3}},
      // The direct depthwise kernel (Int8DepthwiseConv): strides, widths 3 and 5, channel multipliers,
      // dilations, asymmetric pads, 1-D, rows longer than one register, enough work for threads, and
      // kernels at and past the exactness limit (256 and 289 points; the latter takes the GEMM path).
      {{11, 13}, {3, 3}, 2, 6, 6, 6, {2, 2}, {1, 1}, {1, 1, 1, 1}},
      {{12, 10}, {5, 5}, 1, 4, 4, 4, {1, 1}, {1, 1}, {2, 2, 2, 2}},
      {{15, 17}, {5, 5}, 1, 3, 3, 3, {2, 2}, {1, 1}, {1, 2, 2, 1}},
      {{9, 9}, {3, 3}, 2, 4, 8, 4, {1, 2}, {2, 1}, {2, 0, 1, 2}},     // multiplier 2, dilated height
      {{37}, {3}, 3, 5, 10, 5, {1}, {1}, {1, 1}},                     // 1-D, multiplier 2
      {{5, 70}, {3, 3}, 1, 2, 2, 2, {1, 3}, {1, 1}, {1, 1, 1, 1}},    // stride 3, long rows
      {{24, 24}, {3, 3}, 8, 32, 32, 32, {1, 1}, {1, 1}, {1, 1, 1, 1}},  // channels shared out between threads
      // Few output rows of many channels on two threads (5 x 5 windows: each block of rows converts 4 more), with
      // channel multiplier 2.
      {{7, 7}, {5, 5}, 1, 120, 120, 120, {1, 1}, {1, 1}, {2, 2, 2, 2}},
      {{9, 9}, {5, 5}, 2, 50, 100, 50, {1, 1}, {1, 1}, {2, 2, 2, 2}},
      {{18, 18}, {16, 16}, 1, 2, 2, 2, {1, 1}, {1, 1}, {1, 0, 0, 1}},
      {{18, 18}, {17, 17}, 1, 2, 2, 2, {1, 1}, {1, 1}, {0, 0, 0, 0}},
      // Images large enough to share their output lines between threads (channels-last; and 3 images, which
      // do not divide between 2 threads), and 2 such images, one per thread (channel-major, 2 groups).
      {{30, 33}, {3, 3}, 1, 32, 40, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{30, 33}, {3, 3}, 3, 32, 40, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{61, 67}, {3, 3}, 2, 6, 64, 2, {1, 1}, {1, 1}, {1, 0, 0, 1}},
      // An image large enough to share its groups between threads (7 groups of 16 channels: 3 and 4), and
      // 2 such images, one per thread.
      {{28, 27}, {3, 3}, 1, 112, 112, 7, {1, 2}, {1, 1}, {1, 1, 0, 1}},
      {{28, 27}, {3, 3}, 2, 112, 112, 7, {1, 2}, {1, 1}, {1, 1, 0, 1}},
      // An image whose rows two threads share mid-line (465 positions in lines of 31), with stride and dilation in
      // height and 2 groups: channels last, each thread pads the lines its rows read (Int8ConvTaps).
      {{29, 31}, {3, 3}, 1, 64, 48, 2, {2, 1}, {2, 1}, {2, 1, 2, 1}},
  };
  omp_set_num_threads(2);  // the threaded path runs even on a one-core machine
  int i = 0;
  for (const ConvCase& c : cases) {
    for (int types = 0; types < 4; ++types, ++i) {
      const DataType xt = (types & 1) ? DataType::kInt8 : DataType::kUint8;
      const DataType wt = (types & 2) ? DataType::kUint8 : DataType::kInt8;
      const DataType yt = (i % 3 == 0) ? DataType::kInt8 : DataType::kUint8;
      Shape xs{c.batch, c.channels};
      xs.insert(xs.end(), c.x_spatial.begin(), c.x_spatial.end());
      Shape ws{c.out_channels, c.channels / c.group};
      ws.insert(ws.end(), c.kernel.begin(), c.kernel.end());
      const Tensor x = RandomInt8(rng, xt, xs);
      const Tensor w = RandomInt8(rng, wt, ws);
      const Tensor x_zp = ZeroPoints(rng, xt, {});
      const Tensor w_zp = ZeroPoints(rng, wt, i % 2 ? Shape{c.out_channels} : Shape{});
      const Tensor x_scale = Scales(rng, {}, 0.01f, 0.1f), y_scale = Scales(rng, {}, 0.5f, 4.0f);
      const Tensor w_scale = Scales(rng, {c.out_channels}, 0.001f, 0.05f);
      const Tensor y_zp = ZeroPoints(rng, yt, {});
      Tensor bias(DataType::kInt32, {c.out_channels});
      std::uniform_int_distribution<int32_t> bias_dist(-5000, 5000);
      for (int64_t m = 0; m < c.out_channels; ++m) bias.data<int32_t>()[m] = bias_dist(rng);

      Attributes attrs;
      attrs.Set("kernel_shape", IntsAttr(c.kernel));
      attrs.Set("strides", IntsAttr(c.strides));
      attrs.Set("dilations", IntsAttr(c.dilations));
      attrs.Set("pads", IntsAttr(c.pads));
      attrs.Set("group", IntAttr(c.group));
      const ConvGeometry g = ResolveConvGeometry(ReadConvAttributes(attrs), x.shape(), w.shape());
      const int32_t xz = static_cast<int32_t>(x_zp.GetAsDouble(0));
      std::vector<int32_t> wz(static_cast<size_t>(w_zp.size()));
      for (size_t m = 0; m < wz.size(); ++m) wz[m] = static_cast<int32_t>(w_zp.GetAsDouble(static_cast<int64_t>(m)));
      const Tensor acc = IntConvReference(x, xz, w, wz, g);
      const std::string what = "case " + std::to_string(i);

      // ConvInteger: int32 as the reference.
      for (bool constant : {false, true}) {
        const Tensor got = testing::RunOp("ConvInteger", 10, attrs, {x, w, x_zp, w_zp}, 1, constant)[0];
        ExpectSame(got, acc, what + " ConvInteger" + (constant ? " packed" : ""));
      }
      // QLinearConv: + bias, requantized per output channel.
      Tensor want(yt, acc.shape());
      const int64_t plane = acc.size() / (c.batch * c.out_channels);
      for (int64_t e = 0; e < acc.size(); ++e) {
        const int64_t m = (e / plane) % c.out_channels;
        const uint32_t sum = static_cast<uint32_t>(acc.data<int32_t>()[e]) + static_cast<uint32_t>(bias.data<int32_t>()[m]);
        const float mult = RequantMultiplier(x_scale.data<float>()[0], w_scale.data<float>()[m], y_scale.data<float>()[0]);
        const int32_t q = RequantizeValue(static_cast<int32_t>(sum), mult, static_cast<int32_t>(y_zp.GetAsDouble(0)),
                                          QuantMin(yt), QuantMax(yt));
        if (yt == DataType::kUint8) want.data<uint8_t>()[e] = static_cast<uint8_t>(q);
        if (yt == DataType::kInt8) want.data<int8_t>()[e] = static_cast<int8_t>(q);
      }
      for (bool constant : {false, true}) {
        const Tensor got = testing::RunOp("QLinearConv", 10, attrs,
                                          {x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, bias}, 1, constant)[0];
        ExpectSame(got, want, what + " QLinearConv" + (constant ? " packed" : ""));
      }
      // ConvIntegerToFloat (the session's fused DequantizeLinear -> Conv): float(acc) * (x_scale *
      // w_scale[m]) + float_bias[m], bit for bit.
      const Tensor float_bias = Scales(rng, {c.out_channels}, -2.0f, 2.0f);
      Tensor want_float(DataType::kFloat, acc.shape());
      for (int64_t e = 0; e < acc.size(); ++e) {
        const int64_t m = (e / plane) % c.out_channels;
        want_float.data<float>()[e] = static_cast<float>(acc.data<int32_t>()[e]) *
                                          (x_scale.data<float>()[0] * w_scale.data<float>()[m]) +
                                      float_bias.data<float>()[m];
      }
      for (bool constant : {false, true}) {
        const Tensor got = testing::RunOp("ConvIntegerToFloat", 1, attrs,
                                          {x, w, x_scale, w_scale, x_zp, w_zp, float_bias}, 1, constant, "ptq.fused")[0];
        ExpectSame(got, want_float, what + " ConvIntegerToFloat" + (constant ? " packed" : ""));
      }
      // With y_scale and y_zero_point (the session's fused QuantizeLinear of the output): those floats quantized, bit
      // for bit. The GEMM paths hand the floats over from their own buffer (FloatRowSink), never writing them.
      Tensor want_q(yt, acc.shape());
      for (int64_t e = 0; e < acc.size(); ++e) {
        const int32_t q = QuantizeValue(want_float.data<float>()[e], y_scale.data<float>()[0],
                                        static_cast<int32_t>(y_zp.GetAsDouble(0)), QuantMin(yt), QuantMax(yt));
        if (yt == DataType::kUint8) want_q.data<uint8_t>()[e] = static_cast<uint8_t>(q);
        if (yt == DataType::kInt8) want_q.data<int8_t>()[e] = static_cast<int8_t>(q);
      }
      const Tensor none;
      const Tensor got_q = testing::RunOp("ConvIntegerToFloat", 1, attrs,
                                          {x, w, x_scale, w_scale, x_zp, w_zp, float_bias, none, y_scale, y_zp}, 1,
                                          true, "ptq.fused")[0];
      ExpectSame(got_q, want_q, what + " ConvIntegerToFloat quantized");
      // The channels-last forms of the session's layout (runtime/channels_last_layout.h): x and y
      // [N, H, W, C], the same values.
      if (c.x_spatial.size() == 2) {
        Attributes nhwc = attrs;
        nhwc.Set("channels_last", IntAttr(1));
        const Tensor x_nhwc = ToNhwc(x);
        for (bool constant : {false, true}) {
          const std::string how = std::string(" channels last") + (constant ? " packed" : "");
          Tensor got = testing::RunOp("QLinearConv", 1, nhwc,
                                      {x_nhwc, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, bias}, 1, constant,
                                      "ptq.fused")[0];
          ExpectSame(got, ToNhwc(want), what + " QLinearConv" + how);
          got = testing::RunOp("ConvIntegerToFloat", 1, nhwc, {x_nhwc, w, x_scale, w_scale, x_zp, w_zp, float_bias}, 1,
                               constant, "ptq.fused")[0];
          ExpectSame(got, ToNhwc(want_float), what + " ConvIntegerToFloat" + how);
          got = testing::RunOp("ConvIntegerToFloat", 1, nhwc,
                               {x_nhwc, w, x_scale, w_scale, x_zp, w_zp, float_bias, none, y_scale, y_zp}, 1, constant,
                               "ptq.fused")[0];
          ExpectSame(got, ToNhwc(want_q), what + " ConvIntegerToFloat quantized" + how);
        }
      }
      if (HasFailure()) return;
    }
  }
  omp_set_num_threads(omp_get_num_procs());
}

// A depthwise convolution of two 16 x 16 channels at the float32 exactness limit: x every byte x_value (uint8),
// w - w_zero_point -255 for channel 0 and +255 for channel 1 (int8 -128 with zero point 127, 127 with -128).
struct DepthwiseLimit {
  Attributes attrs;
  Tensor x{DataType::kUint8, {1, 2, 16, 16}}, w{DataType::kInt8, {2, 1, 16, 16}}, w_zp{DataType::kInt8, {2}};
  ConvGeometry g;

  explicit DepthwiseLimit(uint8_t x_value) {
    attrs.Set("kernel_shape", IntsAttr({16, 16}));
    attrs.Set("group", IntAttr(2));
    for (int64_t i = 0; i < x.size(); ++i) x.data<uint8_t>()[i] = x_value;
    for (int64_t i = 0; i < w.size(); ++i) w.data<int8_t>()[i] = i < 256 ? -128 : 127;
    w_zp.data<int8_t>()[0] = 127;
    w_zp.data<int8_t>()[1] = -128;
    g = ResolveConvGeometry(ReadConvAttributes(attrs), x.shape(), w.shape());
  }
};

// Every product at its largest magnitude (255 * 255) over a 16x16 kernel: the float32 sums of the
// depthwise kernel are exact up to 2^24, and this sum (16,646,400) is just below it.
TEST(Int8OpsFastPath, DepthwiseSumsAtTheExactnessLimitMatchTheReference) {
  const DepthwiseLimit c(255);
  const Tensor x_zp = Tensor::Scalar<uint8_t>(0);
  const Tensor want = IntConvReference(c.x, 0, c.w, {127, -128}, c.g);
  ASSERT_EQ(want.data<int32_t>()[0], -256 * 255 * 255);
  ASSERT_EQ(want.data<int32_t>()[1], 256 * 255 * 255);
  for (bool constant : {false, true}) {
    ExpectSame(testing::RunOp("ConvInteger", 10, c.attrs, {c.x, c.w, x_zp, c.w_zp}, 1, constant)[0], want,
               "ConvInteger");
  }
}

// The channels-last kernel sums (x - x_zero_point) * (w - w_zero_point) in float32: at the limit each product is
// 255 * 255 in magnitude (x 0 with x_zero_point 255) and each sum of 256 of them, 16,646,400, is just below 2^24.
TEST(Int8OpsFastPath, ChannelsLastDepthwiseSumsAtTheExactnessLimitMatchTheReference) {
  const DepthwiseLimit c(0);
  const Tensor x_zp = Tensor::Scalar<uint8_t>(255);  // x - x_zp = -255
  const Tensor acc = IntConvReference(c.x, 255, c.w, {127, -128}, c.g);
  ASSERT_EQ(acc.data<int32_t>()[0], 256 * 255 * 255);
  ASSERT_EQ(acc.data<int32_t>()[1], -256 * 255 * 255);
  Tensor want(DataType::kFloat, {1, 1, 1, 2});  // float(acc) * 1 + 0, channels last
  for (int64_t m = 0; m < 2; ++m) want.data<float>()[m] = static_cast<float>(acc.data<int32_t>()[m]);
  Attributes nhwc = c.attrs;
  nhwc.Set("channels_last", IntAttr(1));
  Tensor one(DataType::kFloat, {}), ones(DataType::kFloat, {2}), no_bias(DataType::kFloat, {2});
  one.data<float>()[0] = 1.0f;
  for (int64_t m = 0; m < 2; ++m) {
    ones.data<float>()[m] = 1.0f;
    no_bias.data<float>()[m] = 0.0f;
  }
  for (bool constant : {false, true}) {
    const Tensor got = testing::RunOp("ConvIntegerToFloat", 1, nhwc,
                                      {ToNhwc(c.x), c.w, one, ones, x_zp, c.w_zp, no_bias}, 1, constant, "ptq.fused")[0];
    ExpectSame(got, want, constant ? "packed" : "unpacked");
  }
}

struct MatMulCase {
  Shape a, b;
};

TEST(Int8OpsFastPath, QLinearMatMulAndMatMulIntegerMatchTheReferenceMatmul) {
  std::mt19937 rng(22);
  const std::vector<MatMulCase> cases = {
      {{17, 64}, {64, 192}},          // one token sequence, QKV-sized
      {{1, 75}, {75, 33}},            // M = 1, odd K and N
      {{2, 3, 5, 19}, {19, 21}},      // batch of a, one b (stacked into one GEMM)
      {{2, 3, 5, 19}, {3, 19, 21}},   // b broadcast over a's first axis
      {{4, 17, 16}, {4, 16, 17}},     // attention Q . K^T per head
      {{1, 7, 9}, {3, 9, 6}},         // a broadcast over b's batch
      {{8}, {8, 5}},                  // 1-D a
      {{3, 6}, {6}},                  // 1-D b
  };
  int i = 0;
  for (const MatMulCase& c : cases) {
    for (int types = 0; types < 4; ++types, ++i) {
      const DataType at = (types & 1) ? DataType::kInt8 : DataType::kUint8;
      const DataType bt = (types & 2) ? DataType::kUint8 : DataType::kInt8;
      const DataType yt = (i % 3 == 0) ? DataType::kInt8 : DataType::kUint8;
      const Tensor a = RandomInt8(rng, at, c.a);
      const Tensor b = RandomInt8(rng, bt, c.b);
      const MatMulShape s = ComputeMatMulShape(a.shape(), b.shape(), "a", "b");
      // Per-column b parameters where b is at least 2-D, per tensor otherwise.
      const Shape b_param = c.b.size() >= 2 && i % 2 ? Shape{c.b.back()} : Shape{};
      const Tensor a_zp = ZeroPoints(rng, at, {});
      const Tensor b_zp = ZeroPoints(rng, bt, b_param);
      const Tensor a_scale = Scales(rng, {}, 0.01f, 0.1f), y_scale = Scales(rng, {}, 0.2f, 2.0f);
      const Tensor b_scale = Scales(rng, b_param, 0.001f, 0.05f);
      const Tensor y_zp = ZeroPoints(rng, yt, {});
      const std::vector<int32_t> az =
          GatherParam<int32_t>(a_zp, RowParamIndex(a_zp.shape(), a.shape(), "a_zero_point"));
      const std::vector<int32_t> bz =
          GatherParam<int32_t>(b_zp, ColumnParamIndex(b_zp.shape(), b.shape(), "b_zero_point"));
      const std::vector<float> bs = GatherParam<float>(b_scale, ColumnParamIndex(b_scale.shape(), b.shape(), "b_scale"));
      const Tensor acc = IntMatMulReference(a, b, az, bz, s);
      const std::string what = "case " + std::to_string(i);

      for (bool constant : {false, true}) {
        const Tensor got = testing::RunOp("MatMulInteger", 10, {}, {a, b, a_zp, b_zp}, 1, constant)[0];
        ExpectSame(got, acc, what + " MatMulInteger" + (constant ? " packed" : ""));
      }
      Tensor want(yt, acc.shape());
      for (size_t mi = 0; mi < s.a_of.size(); ++mi) {
        for (int64_t m = 0; m < s.M; ++m) {
          for (int64_t n = 0; n < s.N; ++n) {
            const int64_t e = (static_cast<int64_t>(mi) * s.M + m) * s.N + n;
            const float mult = RequantMultiplier(a_scale.data<float>()[0],
                                                 bs[static_cast<size_t>(s.b_of[mi] * s.N + n)], y_scale.data<float>()[0]);
            const int32_t q = RequantizeValue(acc.data<int32_t>()[e], mult, static_cast<int32_t>(y_zp.GetAsDouble(0)),
                                              QuantMin(yt), QuantMax(yt));
            if (yt == DataType::kUint8) want.data<uint8_t>()[e] = static_cast<uint8_t>(q);
            if (yt == DataType::kInt8) want.data<int8_t>()[e] = static_cast<int8_t>(q);
          }
        }
      }
      for (bool constant : {false, true}) {
        const Tensor got = testing::RunOp("QLinearMatMul", 10, {},
                                          {a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp}, 1, constant)[0];
        ExpectSame(got, want, what + " QLinearMatMul" + (constant ? " packed" : ""));
      }
      // MatMulIntegerToFloat: float(acc) * (a_scale * b_scale[n]) + bias[n], bit for bit.
      const Tensor float_bias = Scales(rng, {s.N}, -2.0f, 2.0f);
      Tensor want_float(DataType::kFloat, acc.shape());
      for (size_t mi = 0; mi < s.a_of.size(); ++mi) {
        for (int64_t m = 0; m < s.M; ++m) {
          for (int64_t n = 0; n < s.N; ++n) {
            const int64_t e = (static_cast<int64_t>(mi) * s.M + m) * s.N + n;
            want_float.data<float>()[e] =
                static_cast<float>(acc.data<int32_t>()[e]) *
                    (a_scale.data<float>()[0] * bs[static_cast<size_t>(s.b_of[mi] * s.N + n)]) +
                float_bias.data<float>()[n];
          }
        }
      }
      for (bool constant : {false, true}) {
        const Tensor got = testing::RunOp("MatMulIntegerToFloat", 1, {}, {a, b, a_scale, b_scale, a_zp, b_zp, float_bias},
                                          1, constant, "ptq.fused")[0];
        ExpectSame(got, want_float, what + " MatMulIntegerToFloat" + (constant ? " packed" : ""));
      }
      if (HasFailure()) return;
    }
  }
}

}  // namespace
}  // namespace ptq
