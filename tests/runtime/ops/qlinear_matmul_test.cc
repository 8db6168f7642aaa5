// Tests of the QLinearMatMul kernel: ONNX's examples, every uint8/int8 combination, per-row and
// per-column parameters, broadcasting, 1-D operands, rounding ties, saturation and input errors.
// Expected values come from the ONNX backend test data, from hand computation, or from numpy:
//   acc = matmul(a - a_zp, b - b_zp) (int64); m = float32(a_scale * b_scale) / y_scale (float32);
//   y = clip(rint(float32(acc) * m) + y_zp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/float16.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::RunOp;
using testing::ToVector;

template <class T>
Tensor T_(Shape shape, std::vector<T> values) {
  return Tensor::FromVector<T>(std::move(shape), values);
}
Tensor U8(Shape shape, std::vector<uint8_t> v) { return T_<uint8_t>(std::move(shape), std::move(v)); }
Tensor I8(Shape shape, std::vector<int8_t> v) { return T_<int8_t>(std::move(shape), std::move(v)); }
Tensor F32(Shape shape, std::vector<float> v) { return T_<float>(std::move(shape), std::move(v)); }
Tensor F(float v) { return Tensor::Scalar<float>(v); }
Tensor ZpU8(uint8_t v) { return Tensor::Scalar<uint8_t>(v); }
Tensor ZpI8(int8_t v) { return Tensor::Scalar<int8_t>(v); }

Tensor QLinearMatMul(const Tensor& a, const Tensor& a_scale, const Tensor& a_zp, const Tensor& b, const Tensor& b_scale,
                     const Tensor& b_zp, const Tensor& y_scale, const Tensor& y_zp, int opset = 10) {
  return RunOp("QLinearMatMul", opset, {}, {a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp})[0];
}

// Runs f, expects an input error whose message contains `needle`.
template <class F>
void ExpectInputError(F f, const std::string& needle) {
  try {
    f();
    FAIL() << "expected an input error containing \"" << needle << "\"";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// test_qlinearmatmul_2D of the ONNX backend tests (scales and zero points as [1] tensors).
TEST(QLinearMatMul, OnnxExample2D) {
  const Tensor y = QLinearMatMul(U8({2, 4}, {208, 236, 0, 238, 3, 214, 255, 29}), F32({1}, {0.0066f}),
                                 U8({1}, {113}), U8({4, 3}, {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247}),
                                 F32({1}, {0.00705f}), U8({1}, {114}), F32({1}, {0.0107f}), U8({1}, {118}));
  EXPECT_EQ(y.dtype(), DataType::kUint8);
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{168, 115, 255, 1, 66, 151}));
}

// test_qlinearmatmul_3D: the 2-D example stacked twice on both sides.
TEST(QLinearMatMul, OnnxExample3D) {
  const std::vector<uint8_t> a = {208, 236, 0, 238, 3, 214, 255, 29};
  const std::vector<uint8_t> b = {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247};
  std::vector<uint8_t> a2 = a, b2 = b;
  a2.insert(a2.end(), a.begin(), a.end());
  b2.insert(b2.end(), b.begin(), b.end());
  const Tensor y = QLinearMatMul(U8({2, 2, 4}, a2), F(0.0066f), ZpU8(113), U8({2, 4, 3}, b2), F(0.00705f), ZpU8(114),
                                 F(0.0107f), ZpU8(118));
  EXPECT_EQ(y.shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{168, 115, 255, 1, 66, 151, 168, 115, 255, 1, 66, 151}));
}

TEST(QLinearMatMul, Uint8TimesInt8) {
  const Tensor y = QLinearMatMul(U8({2, 3}, {241, 160, 175, 229, 148, 198}), F(0.02f), ZpU8(130),
                                 I8({3, 4}, {85, -71, -114, -52, -56, 95, 105, -127, -1, 82, -95, 76}), F(0.01f),
                                 ZpI8(-3), F(0.05f), ZpU8(128));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{161, 125, 75, 106, 160, 131, 67, 121}));
}

TEST(QLinearMatMul, Int8TimesUint8) {
  const Tensor y = QLinearMatMul(I8({3, 2}, {-98, -9, 81, -51, -41, -57}), F(0.03f), ZpI8(5),
                                 U8({2, 2}, {184, 65, 253, 113}), F(0.02f), ZpU8(120), F(0.1f), ZpU8(100));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{49, 135, 84, 77, 33, 118}));
}

TEST(QLinearMatMul, Int8TimesInt8ToInt8) {
  const Tensor y = QLinearMatMul(I8({2, 4}, {-6, 1, 21, 13, 2, 126, 78, 74}), F(0.015f), ZpI8(-10),
                                 I8({4, 3}, {51, 31, -41, 125, -9, -73, 88, -87, 91, 28, -99, -117}), F(0.004f),
                                 ZpI8(0), F(0.03f), ZpI8(-5));
  EXPECT_EQ(y.dtype(), DataType::kInt8);
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{5, -15, -7, 50, -39, -29}));
}

TEST(QLinearMatMul, OutputTypeFollowsYZeroPoint) {
  const Tensor y = QLinearMatMul(U8({2, 3}, {113, 9, 36, 131, 248, 119}), F(0.01f), ZpU8(128),
                                 U8({3, 2}, {206, 234, 210, 161, 112, 131}), F(0.02f), ZpU8(128), F(0.5f), ZpI8(3));
  EXPECT_EQ(y.dtype(), DataType::kInt8);
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{-1, 1, 7, 5}));
}

TEST(QLinearMatMul, PerColumnBScaleAndZeroPointAs1D) {
  const Tensor y = QLinearMatMul(U8({2, 3}, {68, 127, 97, 63, 254, 3}), F(0.02f), ZpU8(128),
                                 I8({3, 4}, {-104, -79, 120, 49, 97, -77, 56, -34, -3, -128, 30, 84}),
                                 F32({4}, {0.01f, 0.02f, 0.005f, 0.04f}), I8({4}, {0, -5, 7, 2}), F(0.06f), ZpU8(128));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{149, 184, 115, 57, 193, 202, 121, 0}));
}

TEST(QLinearMatMul, PerRowAAs1DAndPerColumnBAs1xN) {
  const Tensor y = QLinearMatMul(I8({3, 2}, {41, -89, 8, -60, 119, 97}), F32({3}, {0.01f, 0.03f, 0.002f}),
                                 I8({3}, {1, -2, 0}), I8({2, 2}, {-81, 2, 112, 88}), F32({1, 2}, {0.02f, 0.05f}),
                                 I8({1, 2}, {3, -1}), F(0.04f), ZpI8(0));
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{-66, -99, -107, -128, 1, 22}));
}

TEST(QLinearMatMul, PerRowAsMx1GivesSameResultAs1D) {
  const Tensor y = QLinearMatMul(I8({3, 2}, {41, -89, 8, -60, 119, 97}), F32({3, 1}, {0.01f, 0.03f, 0.002f}),
                                 I8({3, 1}, {1, -2, 0}), I8({2, 2}, {-81, 2, 112, 88}), F32({2}, {0.02f, 0.05f}),
                                 I8({2}, {3, -1}), F(0.04f), ZpI8(0));
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{-66, -99, -107, -128, 1, 22}));
}

TEST(QLinearMatMul, PerRowAndPerColumnParametersVaryPerBatch) {
  const Tensor y = QLinearMatMul(
      U8({2, 2, 3}, {181, 163, 10, 189, 121, 23, 62, 138, 186, 129, 156, 223}),
      F32({2, 2, 1}, {0.01f, 0.02f, 0.03f, 0.015f}), U8({2, 2, 1}, {120, 130, 125, 128}),
      U8({2, 3, 2}, {175, 92, 164, 153, 27, 15, 169, 99, 153, 82, 57, 38}), F32({2, 1, 2}, {0.02f, 0.01f, 0.03f, 0.025f}),
      U8({2, 1, 2}, {128, 100, 140, 128}), F(0.08f), ZpU8(128));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{167, 142, 194, 148, 52, 88, 86, 82}));
}

TEST(QLinearMatMul, BroadcastsBatchDimensions) {
  const Tensor y = QLinearMatMul(
      U8({2, 1, 2, 3}, {97, 208, 102, 97, 147, 250, 100, 151, 112, 154, 114, 163}), F(0.02f), ZpU8(128),
      I8({3, 3, 2}, {12, 45, 116, -90, 15, -16, -37, -67, -115, -25, 83, -104, -25, 119, 115, -73, -127, 43}), F(0.01f),
      ZpI8(1), F(0.1f), ZpU8(128));
  EXPECT_EQ(y.shape(), (Shape{2, 3, 2, 2}));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{145, 112, 135, 118, 108, 134, 146, 106, 155, 107, 103, 128,
                                                        132, 122, 126, 132, 122, 134, 135, 118, 139, 117, 114, 139}));
}

TEST(QLinearMatMul, OneDimensionalADropsTheRowAxis) {
  const Tensor y = QLinearMatMul(U8({3}, {3, 76, 127}), F(0.02f), ZpU8(128), I8({3, 2}, {95, -105, 41, 8, -95, 88}),
                                 F(0.01f), ZpI8(1), F(0.03f), ZpU8(128));
  EXPECT_EQ(y.shape(), (Shape{2}));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{36, 213}));
}

TEST(QLinearMatMul, OneDimensionalBDropsTheColumnAxis) {
  const Tensor y = QLinearMatMul(U8({2, 3}, {216, 123, 241, 155, 231, 245}), F(0.02f), ZpU8(128),
                                 I8({3}, {17, -57, -91}), F(0.01f), ZpI8(1), F(0.03f), ZpU8(128));
  EXPECT_EQ(y.shape(), (Shape{2}));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{70, 19}));
}

TEST(QLinearMatMul, InnerDimensionOfOne) {
  const Tensor y = QLinearMatMul(U8({3, 1}, {200, 3, 128}), F(0.05f), ZpU8(128), I8({1, 2}, {-7, 90}), F(0.02f),
                                 ZpI8(0), F(0.07f), ZpU8(128));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{121, 221, 141, 0, 128, 128}));
}

TEST(QLinearMatMul, RoundsTiesToEvenBeforeAddingZeroPoint) {
  // multiplier = 1 * 1 / 2 = 0.5 exactly; acc = a (K = 1, b = 1) = 1, 3, 5, -1, -3
  // acc * 0.5 = 0.5, 1.5, 2.5, -0.5, -1.5 -> 0, 2, 2, 0, -2; + 11 = 11, 13, 13, 11, 9.
  // (Half away from zero would give 12, 13, 14, 10, 9; adding 11 before rounding 12, 12, 14, 10, 10.)
  const Tensor y = QLinearMatMul(I8({5, 1}, {1, 3, 5, -1, -3}), F(1.0f), ZpI8(0), I8({1, 1}, {1}), F(1.0f), ZpI8(0),
                                 F(2.0f), ZpU8(11));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{11, 13, 13, 11, 9}));
}

TEST(QLinearMatMul, SaturatesUint8OutputAtBothEnds) {
  // All scales 1: y = clamp(acc + 100, 0, 255) with acc = row sum (b = [1, 1]^T).
  const Tensor y = QLinearMatMul(I8({4, 2}, {100, 55, 100, 56, -50, -50, -50, -51}), F(1.0f), ZpI8(0),
                                 I8({2, 1}, {1, 1}), F(1.0f), ZpI8(0), F(1.0f), ZpU8(100));
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{255, 255, 0, 0}));
}

TEST(QLinearMatMul, SaturatesInt8OutputAtBothEnds) {
  const Tensor y = QLinearMatMul(I8({5, 2}, {127, 0, 127, 1, -128, 0, -128, -1, 127, 127}), F(1.0f), ZpI8(0),
                                 I8({2, 1}, {1, 1}), F(1.0f), ZpI8(0), F(1.0f), ZpI8(0));
  EXPECT_EQ(ToVector<int8_t>(y), (std::vector<int8_t>{127, 127, -128, -128, 127}));
}

TEST(QLinearMatMul, Opset21AcceptsFloat16Scales) {
  // Half scales 0.0123, 0.0456, 0.789 (bits 8780, 10710, 14928), widened to float32 exactly.
  auto half = [](uint16_t bits) { return Tensor::FromVector<uint16_t>({}, {bits}, DataType::kFloat16); };
  const Tensor y = QLinearMatMul(U8({2, 2}, {144, 49, 192, 237}), half(8780), ZpU8(128), U8({2, 2}, {62, 141, 12, 46}),
                                 half(10710), ZpU8(128), half(14928), ZpU8(128), 21);
  EXPECT_EQ(ToVector<uint8_t>(y), (std::vector<uint8_t>{134, 133, 116, 122}));
}

TEST(QLinearMatMul, Opset10RejectsFloat16Scales) {
  const Tensor half = Tensor::FromVector<uint16_t>({}, {FloatToHalf(0.5f)}, DataType::kFloat16);
  ExpectInputError([&] { QLinearMatMul(U8({1, 1}, {1}), half, ZpU8(0), U8({1, 1}, {1}), F(1), ZpU8(0), F(1), ZpU8(0)); },
                   "a_scale must be float32");
}

TEST(QLinearMatMul, RejectsMismatchedInnerDimension) {
  ExpectInputError([] { QLinearMatMul(U8({2, 3}, {1, 2, 3, 4, 5, 6}), F(1), ZpU8(0), U8({2, 2}, {1, 2, 3, 4}), F(1),
                                      ZpU8(0), F(1), ZpU8(0)); },
                   "inner dimensions differ");
}

TEST(QLinearMatMul, RejectsBatchDimensionsThatDoNotBroadcast) {
  ExpectInputError([] { QLinearMatMul(U8({2, 1, 1}, {1, 2}), F(1), ZpU8(0), U8({3, 1, 1}, {1, 2, 3}), F(1), ZpU8(0),
                                      F(1), ZpU8(0)); },
                   "do not broadcast");
}

TEST(QLinearMatMul, RejectsPerRowScaleOfWrongLength) {
  ExpectInputError([] { QLinearMatMul(U8({2, 1}, {1, 2}), F32({3}, {1, 1, 1}), ZpU8(0), U8({1, 2}, {1, 2}), F(1),
                                      ZpU8(0), F(1), ZpU8(0)); },
                   "a_scale has shape [3]");
}

TEST(QLinearMatMul, RejectsPerColumnZeroPointShapedLikeRows) {
  // b is [2, 3]: per column takes [3] or [1, 3]; [2, 1] is per row and not allowed for b.
  ExpectInputError([] { QLinearMatMul(U8({1, 2}, {1, 2}), F(1), ZpU8(0), U8({2, 3}, {1, 2, 3, 4, 5, 6}), F(1),
                                      U8({2, 1}, {0, 0}), F(1), ZpU8(0)); },
                   "b_zero_point has shape [2, 1]");
}

TEST(QLinearMatMul, RejectsPerTensorOutputParametersWithSeveralValues) {
  ExpectInputError([] { QLinearMatMul(U8({1, 1}, {1}), F(1), ZpU8(0), U8({1, 1}, {1}), F(1), ZpU8(0),
                                      F32({2}, {1, 1}), ZpU8(0)); },
                   "y_scale must hold one value");
}

TEST(QLinearMatMul, RejectsZeroPointOfOtherTypeThanItsTensor) {
  ExpectInputError([] { QLinearMatMul(U8({1, 1}, {1}), F(1), ZpI8(0), U8({1, 1}, {1}), F(1), ZpU8(0), F(1),
                                      ZpU8(0)); },
                   "a_zero_point has type int8 but a has type uint8");
}

}  // namespace
}  // namespace ptq
