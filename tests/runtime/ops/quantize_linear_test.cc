// Tests of the QuantizeLinear kernel: rounding ties, saturation per output type, int4/uint4,
// per-axis, blocked, float16/int32 inputs, output_dtype, and the errors. Expected values by hand
// (blocked ones cross-checked with numpy's rint/clip) and from the ONNX backend test data.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <limits>

#include "runtime/float16.h"
#include "runtime/quant_math.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::RunOp;
using testing::ToVector;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Tensor Quantize(int opset, const Attributes& attrs, const Tensor& x, const Tensor& scale,
                const Tensor& zero_point = Tensor()) {
  return RunOp("QuantizeLinear", opset, attrs, {x, scale, zero_point})[0];
}

TEST(QuantizeLinear, RoundsTiesToEvenBeforeAddingZeroPoint) {
  // x / scale = 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, -1.5 -> 0, 0, 2, 2, -2, 4, -2
  const Tensor x = Tensor::FromVector<float>({7}, {1, -1, 3, 5, -5, 7, -3});
  Tensor y = Quantize(13, {}, x, Tensor::Scalar<float>(2.0f), Tensor::Scalar<int8_t>(0));
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{0, 0, 2, 2, -2, 4, -2}));
  // With zero point 10: the zero point is added after rounding (2.5 -> 2 -> 12, not round(12.5)).
  y = Quantize(13, {}, x, Tensor::Scalar<float>(2.0f), Tensor::Scalar<uint8_t>(10));
  EXPECT_EQ(y.dtype(), DataType::kUint8);
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{10, 10, 12, 12, 8, 14, 8}));
}

// A per-tensor input large enough to be shared between threads (100003 values: the chunks end inside the
// vector loops' blocks), every value as QuantizeValue gives it, on 1 and 3 threads: ties, saturation, NaN.
TEST(QuantizeLinear, LargePerTensorInputSharedBetweenThreadsMatchesQuantizeValue) {
  const int64_t n = 100003;
  std::vector<float> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = static_cast<float>(i % 1001 - 500) * 0.75f;
  values[7] = kNaN;
  values[n - 1] = kInf;
  values[n / 2] = -kInf;
  const Tensor x = Tensor::FromVector<float>({n}, values);
  const int saved = omp_get_max_threads();
  for (int threads : {1, 3}) {
    omp_set_num_threads(threads);
    const std::vector<uint8_t> got =
        ToVector<uint8_t>(Quantize(13, {}, x, Tensor::Scalar<float>(1.5f), Tensor::Scalar<uint8_t>(100)));
    int mismatches = 0;
    for (int64_t i = 0; i < n && mismatches < 5; ++i) {
      const int32_t want = QuantizeValue(values[static_cast<size_t>(i)], 1.5f, 100, 0, 255);
      if (got[static_cast<size_t>(i)] != want) {
        ++mismatches;
        ADD_FAILURE() << threads << " threads, i=" << i << ": " << int{got[static_cast<size_t>(i)]} << " != " << want;
      }
    }
  }
  omp_set_num_threads(saved);
}

TEST(QuantizeLinear, BackendTestPerTensorUint8) {
  // onnx backend test test_quantizelinear (opset 13).
  const Tensor x = Tensor::FromVector<float>({6}, {0, 2, 3, 1000, -254, -1000});
  const Tensor y = Quantize(13, {}, x, Tensor::Scalar<float>(2.0f), Tensor::Scalar<uint8_t>(128));
  EXPECT_EQ(y.shape(), Shape({6}));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{128, 129, 130, 255, 1, 0}));
}

TEST(QuantizeLinear, BackendTestPerAxisUint8) {
  // onnx backend test test_quantizelinear_axis (opset 13, default axis 1).
  const Tensor x = Tensor::FromVector<float>(
      {1, 3, 3, 2}, {-162, 10, -100, 232, -20, -50, -76, 0, 0, 252, 32, -44, 245, -485, -960, -270, -375, -470});
  const Tensor y = Quantize(13, {}, x, Tensor::FromVector<float>({3}, {2, 4, 5}),
                            Tensor::FromVector<uint8_t>({3}, {84, 24, 196}));
  EXPECT_EQ(ToVector<uint8_t>(y),
            (std::vector<uint8_t>{3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121, 102}));
}

TEST(QuantizeLinear, WithoutZeroPointOutputsUint8) {
  const Tensor y = Quantize(10, {}, Tensor::FromVector<float>({4}, {-3, 0, 3, 600}), Tensor::Scalar<float>(1.0f));
  EXPECT_EQ(y.dtype(), DataType::kUint8);
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{0, 0, 3, 255}));
}

// Values just past and at each bound, +-Inf, and NaN (-> the type's minimum).
TEST(QuantizeLinear, SaturatesEveryOutputType) {
  const Tensor x = Tensor::FromVector<float>({7}, {-1e6f, 1e6f, -kInf, kInf, kNaN, -0.4f, 0.4f});
  const Tensor s = Tensor::Scalar<float>(1.0f);
  EXPECT_EQ(ToVector<uint8_t>(Quantize(21, {}, x, s, Tensor::Scalar<uint8_t>(0))),
            (std::vector<uint8_t>{0, 255, 0, 255, 0, 0, 0}));
  EXPECT_EQ(ToVector<int8_t>(Quantize(21, {}, x, s, Tensor::Scalar<int8_t>(0))),
            (std::vector<int8_t>{-128, 127, -128, 127, -128, 0, 0}));
  EXPECT_EQ(ToVector<uint16_t>(Quantize(21, {}, x, s, Tensor::Scalar<uint16_t>(0))),
            (std::vector<uint16_t>{0, 65535, 0, 65535, 0, 0, 0}));
  EXPECT_EQ(ToVector<int16_t>(Quantize(21, {}, x, s, Tensor::Scalar<int16_t>(0))),
            (std::vector<int16_t>{-32768, 32767, -32768, 32767, -32768, 0, 0}));
  EXPECT_EQ(ToVector<uint8_t>(Quantize(21, {}, x, s, Tensor::Scalar<uint8_t>(0, DataType::kUint4))),
            (std::vector<uint8_t>{0, 15, 0, 15, 0, 0, 0}));
  EXPECT_EQ(ToVector<int8_t>(Quantize(21, {}, x, s, Tensor::Scalar<int8_t>(0, DataType::kInt4))),
            (std::vector<int8_t>{-8, 7, -8, 7, -8, 0, 0}));
}

TEST(QuantizeLinear, SaturatesAtExactBoundsOf8And16BitTypes) {
  const Tensor s = Tensor::Scalar<float>(1.0f);
  EXPECT_EQ(ToVector<int8_t>(Quantize(13, {}, Tensor::FromVector<float>({4}, {-128.5f, -129, 127.4f, 127.5f}), s,
                                      Tensor::Scalar<int8_t>(0))),
            (std::vector<int8_t>{-128, -128, 127, 127}));
  // 255.5 rounds to 256 (even) and saturates; 254.5 rounds to 254.
  EXPECT_EQ(ToVector<uint8_t>(Quantize(13, {}, Tensor::FromVector<float>({3}, {254.5f, 255.5f, -0.5f}), s,
                                       Tensor::Scalar<uint8_t>(0))),
            (std::vector<uint8_t>{254, 255, 0}));
  EXPECT_EQ(ToVector<int16_t>(Quantize(21, {}, Tensor::FromVector<float>({4}, {-32768, -32769, 32767, 32768}), s,
                                       Tensor::Scalar<int16_t>(0))),
            (std::vector<int16_t>{-32768, -32768, 32767, 32767}));
  EXPECT_EQ(ToVector<uint16_t>(Quantize(21, {}, Tensor::FromVector<float>({3}, {65535, 65536, -1}), s,
                                        Tensor::Scalar<uint16_t>(0))),
            (std::vector<uint16_t>{65535, 65535, 0}));
}

TEST(QuantizeLinear, Int4AndUint4) {
  // x / 0.5 = -16, -9, -8.5, 7, 7.5, 0.5, 1.5 -> round -16, -9, -8, 7, 8, 0, 2
  const Tensor x = Tensor::FromVector<float>({7}, {-8, -4.5f, -4.25f, 3.5f, 3.75f, 0.25f, 0.75f});
  const Tensor s = Tensor::Scalar<float>(0.5f);
  Tensor y = Quantize(21, {}, x, s, Tensor::Scalar<int8_t>(0, DataType::kInt4));
  EXPECT_EQ(y.dtype(), DataType::kInt4);
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{-8, -8, -8, 7, 7, 0, 2}));
  // uint4 with zero point 8: + 8 then clamp to [0, 15].
  y = Quantize(21, {}, x, s, Tensor::Scalar<uint8_t>(8, DataType::kUint4));
  EXPECT_EQ(y.dtype(), DataType::kUint4);
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{0, 0, 0, 15, 15, 8, 10}));
}

TEST(QuantizeLinear, PerAxisWithNegativeAxis) {
  // axis -1 of [2, 3]: scales {1, 2, 4}, zero points {0, 1, -1} per column.
  Attributes attrs;
  attrs.Set("axis", IntAttr(-1));
  const Tensor x = Tensor::FromVector<float>({2, 3}, {1, 2, 3, -4, 5, -6});
  const Tensor y = Quantize(13, attrs, x, Tensor::FromVector<float>({3}, {1, 2, 4}),
                            Tensor::FromVector<int8_t>({3}, {0, 1, -1}));
  // 1/1+0, 2/2+1, round(0.75)-1 | -4/1+0, round(2.5)+1, round(-1.5)-1
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{1, 2, 0, -4, 3, -3}));

  // axis -2 of [2, 3]: one scale per row.
  attrs.Set("axis", IntAttr(-2));
  const Tensor y2 = Quantize(13, attrs, x, Tensor::FromVector<float>({2}, {1, 2}), Tensor::FromVector<int8_t>({2}, {0, 0}));
  EXPECT_EQ(ToVector<int8_t>(y2), (std::vector<int8_t>{1, 2, 3, -2, 2, -3}));
}

TEST(QuantizeLinear, OneElementScaleIsPerTensorWhateverTheAxis) {
  // A [1] scale with a [1] zero point applies to every element, even though x.shape[1] = 3.
  const Tensor x = Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor y = Quantize(13, {}, x, Tensor::FromVector<float>({1}, {2}), Tensor::Scalar<uint8_t>(1));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{1, 2, 3, 3, 3, 4}));
}

TEST(QuantizeLinear, BlockedAlongAxis0WithPartialLastBlock) {
  // x [5, 2], block_size 2 on axis 0: scale [3, 2]; rows {0,1}, {2,3}, {4} share a scale row.
  Attributes attrs;
  attrs.Set("axis", IntAttr(0));
  attrs.Set("block_size", IntAttr(2));
  const Tensor x = Tensor::FromVector<float>({5, 2}, {1, -2, 3, 4, 5, 6, -7, 8, 9, 10});
  const Tensor s = Tensor::FromVector<float>({3, 2}, {0.5f, 1, 2, 4, 3, 0.25f});
  const Tensor zp = Tensor::FromVector<int8_t>({3, 2}, {0, 1, -2, 3, 4, -5});
  const Tensor y = Quantize(21, attrs, x, s, zp);
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{2, -1, 6, 5, 0, 5, -6, 5, 7, 35}));
}

TEST(QuantizeLinear, BlockedAlongAxis1WithPartialLastBlock) {
  // x [2, 5], block_size 2 on axis 1: scale [2, 3]; columns {0,1}, {2,3}, {4}.
  Attributes attrs;
  attrs.Set("axis", IntAttr(1));
  attrs.Set("block_size", IntAttr(2));
  const Tensor x = Tensor::FromVector<float>({2, 5}, {1, -2, 3, 4, 5, 6, -7, 8, 9, 10});
  const Tensor s = Tensor::FromVector<float>({2, 3}, {0.5f, 2, 4, 3, 1, 0.2f});
  const Tensor zp = Tensor::FromVector<uint8_t>({2, 3}, {10, 20, 30, 40, 50, 60});
  const Tensor y = Quantize(21, attrs, x, s, zp);
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{12, 6, 22, 22, 31, 42, 38, 58, 59, 110}));
}

TEST(QuantizeLinear, Float16InputAndScale) {
  // float16 bits: 1.0 = 0x3c00, 2.5 = 0x4100, -3.0 = 0xc200, 100 = 0x5640, 0.5 = 0x3800.
  const Tensor x = Tensor::FromVector<uint16_t>({4}, {0x3c00, 0x4100, 0xc200, 0x5640}, DataType::kFloat16);
  const Tensor s = Tensor::Scalar<uint16_t>(0x3800, DataType::kFloat16);
  // x / 0.5 = 2, 5, -6, 200; + 10
  const Tensor y = Quantize(19, {}, x, s, Tensor::Scalar<uint8_t>(10));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{12, 15, 4, 210}));
  // bfloat16 x: 2.5 = 0x4020, -1.5 = 0xbfc0; scale 1.0 = 0x3f80.
  const Tensor xb = Tensor::FromVector<uint16_t>({2}, {0x4020, 0xbfc0}, DataType::kBfloat16);
  const Tensor yb = Quantize(19, {}, xb, Tensor::Scalar<uint16_t>(0x3f80, DataType::kBfloat16), Tensor::Scalar<int8_t>(0));
  EXPECT_EQ(ToVector<int8_t>(yb), (std::vector<int8_t>{2, -2}));
}

TEST(QuantizeLinear, Int32Input) {
  // x / 2 = -150, -0.5, 0, 0.5, 1.5, 2.5, 500 -> -128 (sat), 0, 0, 0, 2, 2, 127 (sat)
  const Tensor x = Tensor::FromVector<int32_t>({7}, {-300, -1, 0, 1, 3, 5, 1000});
  const Tensor y = Quantize(13, {}, x, Tensor::Scalar<float>(2.0f), Tensor::Scalar<int8_t>(0));
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{-128, 0, 0, 0, 2, 2, 127}));
}

TEST(QuantizeLinear, OutputDtypeWithoutZeroPoint) {
  Attributes attrs;
  attrs.Set("output_dtype", IntAttr(5));  // int16
  const Tensor x = Tensor::FromVector<float>({3}, {-40000, -7, 300});
  Tensor y = Quantize(21, attrs, x, Tensor::Scalar<float>(1.0f));
  EXPECT_EQ(y.dtype(), DataType::kInt16);
  EXPECT_EQ(ToVector<int16_t>(y), (std::vector<int16_t>{-32768, -7, 300}));
  attrs.Set("output_dtype", IntAttr(22));  // int4
  y = Quantize(21, attrs, x, Tensor::Scalar<float>(1.0f));
  EXPECT_EQ(y.dtype(), DataType::kInt4);
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{-8, -7, 7}));
  // Agreeing zero point and output_dtype.
  attrs.Set("output_dtype", IntAttr(3));  // int8
  y = Quantize(21, attrs, x, Tensor::Scalar<float>(1.0f), Tensor::Scalar<int8_t>(1));
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{-128, -6, 127}));
}

TEST(QuantizeLinear, RejectsZeroPointDisagreeingWithOutputDtype) {
  Attributes attrs;
  attrs.Set("output_dtype", IntAttr(2));  // uint8
  const Tensor x = Tensor::FromVector<float>({2}, {1, 2});
  EXPECT_THROW(Quantize(21, attrs, x, Tensor::Scalar<float>(1.0f), Tensor::Scalar<int8_t>(0)), Error);
}

TEST(QuantizeLinear, RejectsMismatchedScaleShapes) {
  const Tensor x = Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  // Per-axis on axis 1 needs 3 scales.
  EXPECT_THROW(Quantize(13, {}, x, Tensor::FromVector<float>({2}, {1, 1})), Error);
  // 2-D scale without block_size.
  EXPECT_THROW(Quantize(21, {}, x, Tensor::FromVector<float>({2, 3}, {1, 1, 1, 1, 1, 1})), Error);
  // Zero point of another shape than the scale.
  EXPECT_THROW(Quantize(13, {}, x, Tensor::FromVector<float>({3}, {1, 1, 1}), Tensor::Scalar<uint8_t>(0)), Error);
  // Blocked: ceil(3 / 2) = 2 scales per row on axis 1, not 3.
  Attributes attrs;
  attrs.Set("block_size", IntAttr(2));
  EXPECT_THROW(Quantize(21, attrs, x, Tensor::FromVector<float>({2, 3}, {1, 1, 1, 1, 1, 1})), Error);
  // Per-axis scales at opset 10.
  EXPECT_THROW(Quantize(10, {}, x, Tensor::FromVector<float>({3}, {1, 1, 1})), Error);
  // Axis out of range.
  attrs = Attributes();
  attrs.Set("axis", IntAttr(2));
  EXPECT_THROW(Quantize(13, attrs, x, Tensor::FromVector<float>({3}, {1, 1, 1})), Error);
}

TEST(QuantizeLinear, RejectsTypesTheOpsetDoesNotAllow) {
  const Tensor x = Tensor::FromVector<float>({2}, {1, 2});
  const Tensor s = Tensor::Scalar<float>(1.0f);
  EXPECT_THROW(Quantize(19, {}, x, s, Tensor::Scalar<int16_t>(0)), Error);  // int16 needs opset 21
  EXPECT_THROW(Quantize(21, {}, x, s, Tensor::Scalar<int32_t>(0)), Error);  // not a quantized type
  const Tensor xh = Tensor::FromVector<uint16_t>({1}, {0x3c00}, DataType::kFloat16);
  EXPECT_THROW(Quantize(13, {}, xh, Tensor::Scalar<uint16_t>(0x3c00, DataType::kFloat16)), Error);
}

TEST(QuantizeLinear, Float8OutputIsAClearError) {
  Attributes attrs;
  attrs.Set("output_dtype", IntAttr(17));  // float8e4m3fn
  try {
    Quantize(21, attrs, Tensor::FromVector<float>({1}, {1}), Tensor::Scalar<float>(1.0f));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("float8e4m3fn"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ptq
