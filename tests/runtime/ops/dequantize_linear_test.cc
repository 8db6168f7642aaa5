// Tests of the DequantizeLinear kernel: per-tensor, per-axis and blocked; int32, int4/uint4 and
// 16-bit inputs; float16 / bfloat16 scales; and the errors. Expected values by hand (float16 bits
// cross-checked with numpy) and from the ONNX backend test data.
#include <gtest/gtest.h>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::RunOp;
using testing::ToVector;

Tensor Dequantize(int opset, const Attributes& attrs, const Tensor& x, const Tensor& scale,
                  const Tensor& zero_point = Tensor()) {
  return RunOp("DequantizeLinear", opset, attrs, {x, scale, zero_point})[0];
}

TEST(DequantizeLinear, BackendTestPerTensorUint8) {
  // onnx backend test test_dequantizelinear (opset 13).
  const Tensor y = Dequantize(13, {}, Tensor::FromVector<uint8_t>({4}, {0, 3, 128, 255}), Tensor::Scalar<float>(2.0f),
                              Tensor::Scalar<uint8_t>(128));
  EXPECT_EQ(y.dtype(), DataType::kFloat);
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{-256, -250, 0, 254}));
}

TEST(DequantizeLinear, BackendTestPerAxisUint8) {
  // onnx backend test test_dequantizelinear_axis (opset 13, default axis 1).
  const Tensor x = Tensor::FromVector<uint8_t>(
      {1, 3, 3, 2}, {3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121, 102});
  const Tensor y = Dequantize(13, {}, x, Tensor::FromVector<float>({3}, {2, 4, 5}),
                              Tensor::FromVector<uint8_t>({3}, {84, 24, 196}));
  EXPECT_EQ(y.shape(), Shape({1, 3, 3, 2}));
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{-162, 10, -100, 232, -20, -50, -76, 0, 0, 252, 32, -44, 245,
                                                    -485, -960, -270, -375, -470}));
}

TEST(DequantizeLinear, Int8WithoutZeroPoint) {
  const Tensor y = Dequantize(10, {}, Tensor::FromVector<int8_t>({3}, {-128, 0, 127}), Tensor::Scalar<float>(0.5f));
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{-64, 0, 63.5f}));
}

TEST(DequantizeLinear, Int32WithAbsentOrZeroZeroPoint) {
  const Tensor x = Tensor::FromVector<int32_t>({4}, {-1000, 0, 7, 123456});
  const std::vector<float> expected{-500, 0, 3.5f, 61728};
  EXPECT_EQ(ToVector<float>(Dequantize(13, {}, x, Tensor::Scalar<float>(0.5f))), expected);
  EXPECT_EQ(ToVector<float>(Dequantize(13, {}, x, Tensor::Scalar<float>(0.5f), Tensor::Scalar<int32_t>(0))), expected);
  EXPECT_THROW(Dequantize(13, {}, x, Tensor::Scalar<float>(0.5f), Tensor::Scalar<int32_t>(3)), Error);
}

TEST(DequantizeLinear, Int4AndUint4) {
  // (x - (-1)) * 0.25
  Tensor y = Dequantize(21, {}, Tensor::FromVector<int8_t>({4}, {-8, -1, 0, 7}, DataType::kInt4),
                        Tensor::Scalar<float>(0.25f), Tensor::Scalar<int8_t>(-1, DataType::kInt4));
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{-1.75f, 0, 0.25f, 2}));
  // (x - 8) * 2
  y = Dequantize(21, {}, Tensor::FromVector<uint8_t>({3}, {0, 8, 15}, DataType::kUint4), Tensor::Scalar<float>(2.0f),
                 Tensor::Scalar<uint8_t>(8, DataType::kUint4));
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{-16, 0, 14}));
}

TEST(DequantizeLinear, Int16AndUint16) {
  Tensor y = Dequantize(21, {}, Tensor::FromVector<int16_t>({2}, {-32768, 32767}), Tensor::Scalar<float>(1.0f),
                        Tensor::Scalar<int16_t>(-1));
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{-32767, 32768}));
  y = Dequantize(21, {}, Tensor::FromVector<uint16_t>({2}, {0, 65535}), Tensor::Scalar<float>(0.5f),
                 Tensor::Scalar<uint16_t>(32768));
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{-16384, 16383.5f}));
}

TEST(DequantizeLinear, PerAxisWithNegativeAxis) {
  Attributes attrs;
  attrs.Set("axis", IntAttr(-1));
  const Tensor x = Tensor::FromVector<int8_t>({2, 3}, {1, 2, 3, -4, 5, -6});
  const Tensor y = Dequantize(13, attrs, x, Tensor::FromVector<float>({3}, {1, 2, 4}),
                              Tensor::FromVector<int8_t>({3}, {0, 1, -1}));
  // (x - zp[col]) * s[col]
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{1, 2, 16, -4, 8, -20}));
}

TEST(DequantizeLinear, BlockedAlongAxis1WithPartialLastBlock) {
  // x [2, 5], block 2 on axis 1: scale [2, 3]; columns {0,1}, {2,3}, {4}.
  Attributes attrs;
  attrs.Set("block_size", IntAttr(2));
  const Tensor x = Tensor::FromVector<uint8_t>({2, 5}, {12, 6, 22, 22, 31, 42, 38, 58, 59, 110});
  const Tensor s = Tensor::FromVector<float>({2, 3}, {0.5f, 2, 4, 3, 1, 0.25f});
  const Tensor zp = Tensor::FromVector<uint8_t>({2, 3}, {10, 20, 30, 40, 50, 60});
  const Tensor y = Dequantize(21, attrs, x, s, zp);
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{1, -2, 4, 4, 4, 6, -6, 8, 9, 12.5f}));
}

TEST(DequantizeLinear, BlockedAlongAxis0WithPartialLastBlock) {
  // x [3, 2], block 2 on axis 0: scale [2, 2]; rows {0,1}, {2}.
  Attributes attrs;
  attrs.Set("axis", IntAttr(0));
  attrs.Set("block_size", IntAttr(2));
  const Tensor x = Tensor::FromVector<int8_t>({3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor s = Tensor::FromVector<float>({2, 2}, {1, 10, 100, 1000});
  const Tensor y = Dequantize(21, attrs, x, s);
  EXPECT_EQ(ToVector<float>(y), (std::vector<float>{1, 20, 3, 40, 500, 6000}));
}

TEST(DequantizeLinear, Float16ScaleGivesFloat16Output) {
  // scale float16(0.1) = 0x2e66; x * scale in float32, rounded to float16 (bits from numpy).
  const Tensor y = Dequantize(19, {}, Tensor::FromVector<int8_t>({4}, {1, -3, 100, 127}),
                              Tensor::Scalar<uint16_t>(0x2e66, DataType::kFloat16));
  EXPECT_EQ(y.dtype(), DataType::kFloat16);
  EXPECT_EQ(ToVector<uint16_t>(y), (std::vector<uint16_t>{0x2e66, 0xb4cc, 0x4900, 0x4a59}));
  // bfloat16 scale 0.5 (0x3f00): 3 * 0.5 = 1.5 = 0x3fc0.
  const Tensor yb = Dequantize(21, {}, Tensor::FromVector<uint8_t>({1}, {3}),
                               Tensor::Scalar<uint16_t>(0x3f00, DataType::kBfloat16));
  EXPECT_EQ(yb.dtype(), DataType::kBfloat16);
  EXPECT_EQ(ToVector<uint16_t>(yb), (std::vector<uint16_t>{0x3fc0}));
}

TEST(DequantizeLinear, RejectsBadTypesAndShapes) {
  const Tensor x = Tensor::FromVector<int8_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  // Zero point of another type than x.
  EXPECT_THROW(Dequantize(13, {}, x, Tensor::Scalar<float>(1.0f), Tensor::Scalar<uint8_t>(0)), Error);
  // float16 scale before opset 19; int16 x before opset 21.
  EXPECT_THROW(Dequantize(13, {}, x, Tensor::Scalar<uint16_t>(0x3c00, DataType::kFloat16)), Error);
  EXPECT_THROW(Dequantize(19, {}, Tensor::FromVector<int16_t>({1}, {1}), Tensor::Scalar<float>(1.0f)), Error);
  // Per-axis scale of the wrong length.
  EXPECT_THROW(Dequantize(13, {}, x, Tensor::FromVector<float>({2}, {1, 1})), Error);
  // Blocked scale of the wrong shape: ceil(3 / 2) = 2 on axis 1.
  Attributes attrs;
  attrs.Set("block_size", IntAttr(2));
  EXPECT_THROW(Dequantize(21, attrs, x, Tensor::FromVector<float>({2, 3}, {1, 1, 1, 1, 1, 1})), Error);
}

}  // namespace
}  // namespace ptq
