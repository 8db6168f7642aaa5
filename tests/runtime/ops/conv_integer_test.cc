// Tests of ConvInteger: the ONNX backend data, groups, strides, dilations, padding modes, 1-D and
// 3-D, per-channel zero points, mixed signedness and error messages. Expected values of the
// random cases come from an independent numpy computation (explicit padding with the zero
// point, then a sliding-window sum of (x - x_zp) * (w - w_zp) in int64).
#include "runtime/ops/quantization/conv_integer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::IntsAttr;
using testing::StringAttr;

Tensor U8(Shape s, std::vector<uint8_t> v) { return Tensor::FromVector<uint8_t>(std::move(s), v); }
Tensor I8(Shape s, std::vector<int8_t> v) { return Tensor::FromVector<int8_t>(std::move(s), v); }
Tensor I32(Shape s, std::vector<int32_t> v) { return Tensor::FromVector<int32_t>(std::move(s), v); }

Tensor RunConvInteger(const Attributes& attrs, const std::vector<Tensor>& inputs, int opset = 10) {
  return testing::RunOp("ConvInteger", opset, attrs, inputs)[0];
}

void ExpectTensor(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(actual.shape(), expected.shape());
  EXPECT_EQ(testing::ToVector<int32_t>(actual), testing::ToVector<int32_t>(expected));
}

// The message of the input error `inputs` cause, or "" when none is thrown.
std::string ErrorOf(const Attributes& attrs, const std::vector<Tensor>& inputs) {
  try {
    RunConvInteger(attrs, inputs);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    return e.what();
  }
  return "";
}

// x of test_basic_convinteger / test_convinteger_*: [[2 3 4] [5 6 7] [8 9 10]], w all ones, x_zp 1.
Tensor BackendX() { return U8({1, 1, 3, 3}, {2, 3, 4, 5, 6, 7, 8, 9, 10}); }
Tensor BackendW() { return U8({1, 1, 2, 2}, {1, 1, 1, 1}); }

TEST(ConvInteger, BackendBasicConvInteger) {
  const Tensor y = RunConvInteger(Attributes(), {BackendX(), BackendW(), Tensor::Scalar<uint8_t>(1)});
  ExpectTensor(y, I32({1, 1, 2, 2}, {12, 16, 24, 28}));
}

TEST(ConvInteger, BackendWithPaddingPadsWithTheZeroPoint) {
  Attributes a;
  a.Set("pads", IntsAttr({1, 1, 1, 1}));
  const Tensor y = RunConvInteger(a, {BackendX(), BackendW(), Tensor::Scalar<uint8_t>(1)});
  ExpectTensor(y, I32({1, 1, 4, 4}, {1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9}));
}

TEST(ConvInteger, BackendWithoutPadding) {
  Attributes a;
  a.Set("pads", IntsAttr({0, 0, 0, 0}));
  const Tensor y = RunConvInteger(a, {BackendX(), BackendW(), Tensor::Scalar<uint8_t>(1)}, 21);
  ExpectTensor(y, I32({1, 1, 2, 2}, {12, 16, 24, 28}));
}

TEST(ConvInteger, OmittedZeroPointsAreZero) {
  // By hand: 2+3+5+6 = 16, 3+4+6+7 = 20, 5+6+8+9 = 28, 6+7+9+10 = 32.
  ExpectTensor(RunConvInteger(Attributes(), {BackendX(), BackendW()}), I32({1, 1, 2, 2}, {16, 20, 28, 32}));
  ExpectTensor(RunConvInteger(Attributes(), {BackendX(), BackendW(), Tensor(), Tensor::Scalar<uint8_t>(0)}),
               I32({1, 1, 2, 2}, {16, 20, 28, 32}));
  // w_zero_point 1 makes every (w - w_zero_point) 0.
  ExpectTensor(RunConvInteger(Attributes(), {BackendX(), BackendW(), Tensor(), Tensor::Scalar<uint8_t>(1)}),
               I32({1, 1, 2, 2}, {0, 0, 0, 0}));
}

TEST(ConvInteger, DepthwiseGroupsEqualChannelsWithPads) {
  // group = C = M = 3: each output channel sees only its own input channel.
  Attributes a;
  a.Set("group", IntAttr(3));
  a.Set("pads", IntsAttr({1, 1, 1, 1}));
  const Tensor y = RunConvInteger(
      a,
      {U8({1, 3, 4, 4}, {34,  32,  204, 127, 151, 153, 182, 7,   124, 37,  102, 237, 140, 18,  138, 33,
                         193, 242, 250, 159, 222, 94,  37,  130, 113, 169, 254, 70,  219, 35,  89,  201,
                         63,  171, 117, 131, 240, 209, 214, 140, 251, 251, 34,  52,  78,  141, 210, 123}),
       U8({3, 1, 3, 3}, {15, 5, 14, 9, 11, 3, 9, 12, 14, 13, 15, 2, 12, 7, 10, 4, 0, 1, 15, 14, 4, 6, 3, 2, 13, 10, 1}),
       Tensor::Scalar<uint8_t>(3), Tensor::Scalar<uint8_t>(5)});
  ExpectTensor(y, I32({1, 3, 4, 4},
                      {2514, 3149, 2963, 2292, 2002, 4866, 6007, 4784, 3102, 5449, 3073, 4340, 1098, 2469, 3256, 1710,
                       116,  2233, 2178, 1372, 862,  3110, 3565, 3442, 1759, 4197, 1432, 2357, 1194, 3793, 5023, 3676,
                       -263, 1464, 1711, 2231, -472, 4290, 3894, 2722, 510,  4134, 5520, 5532, 1420, 3859, 2074, 718}));
}

TEST(ConvInteger, TwoGroupsInt8WeightsWithNegativeZeroPoint) {
  // group 2: output channels 0-2 see input channels 0-1, 3-5 see 2-3.
  Attributes a;
  a.Set("group", IntAttr(2));
  const Tensor y = RunConvInteger(
      a, {U8({1, 4, 3, 3}, {51, 144, 230, 254, 55, 156, 8,   44, 51,  113, 88,  186, 120, 86,  231, 160, 178, 190,
                            86, 228, 4,   78,  40, 1,   255, 22, 117, 209, 176, 219, 13,  127, 8,   49,  216, 18}),
          I8({6, 2, 2, 2}, {22,  -123, -49,  110, -47,  -49, -106, 70,  -84, -1, -122, -123, 86,   -126, -9,  -19,
                            -96, 37,   61,   124, -78,  108, -113, -92, 25,  94, 101,  61,   -122, -22,  78,  7,
                            -80, 46,   -105, 50,  -124, -36, -53,  112, 58,  39, -2,   -55,  90,   114,  -73, -66}),
          Tensor::Scalar<uint8_t>(10), Tensor::Scalar<int8_t>(-2)});
  ExpectTensor(y, I32({1, 6, 2, 2},
                      {-35927, -12941, -7713, -31911, -40623, -53083, -27487, -37537, 4116,  2321,  -48793, -7542,
                       5967,   -6925,  32981, 10475,  -17645, -54403, -11324, -22244, 41771, 44648, 2569,   -8846}));
}

TEST(ConvInteger, Strides2) {
  Attributes a;
  a.Set("strides", IntsAttr({2, 2}));
  const Tensor y = RunConvInteger(a, {U8({1, 1, 5, 5}, {80,  122, 66,  103, 250, 94, 240, 128, 87,  239, 111, 198, 80,
                                                        255, 191, 224, 10,  27,  17, 136, 103, 250, 62,  43,  216}),
                                      U8({2, 1, 3, 3}, {3, 7, 2, 5, 0, 6, 9, 6, 8, 7, 5, 9, 4, 1, 5, 6, 1, 1}),
                                      Tensor::Scalar<uint8_t>(0), Tensor::Scalar<uint8_t>(4)});
  ExpectTensor(y, I32({1, 2, 2, 2}, {815, 1675, 1824, 1794, -512, 351, 198, 882}));
}

TEST(ConvInteger, Dilations2) {
  Attributes a;
  a.Set("dilations", IntsAttr({2, 2}));
  const Tensor y = RunConvInteger(
      a, {U8({1, 1, 5, 5}, {13, 9, 10, 16, 14, 18, 3, 15, 11, 0, 1, 7, 13, 3, 11, 20, 2, 3, 20, 5, 18, 7, 15, 1, 13}),
          U8({1, 1, 2, 2}, {5, 2, 3, 1}), Tensor::Scalar<uint8_t>(1), Tensor::Scalar<uint8_t>(0)});
  ExpectTensor(y, I32({1, 1, 3, 3}, {90, 90, 117, 172, 52, 78, 89, 52, 134}));
}

TEST(ConvInteger, AsymmetricPads) {
  // pads [top 0, left 2, bottom 1, right 0].
  Attributes a;
  a.Set("pads", IntsAttr({0, 2, 1, 0}));
  const Tensor y =
      RunConvInteger(a, {U8({1, 2, 4, 5}, {4,  0, 15, 16, 2, 7, 18, 11, 7,  0, 1,  19, 3, 26, 17, 7,  19, 4,  10, 15,
                                           19, 4, 10, 2,  4, 6, 9,  28, 12, 3, 28, 17, 3, 2,  2,  28, 17, 21, 29, 12}),
                         U8({1, 2, 3, 3}, {5, 2, 4, 4, 0, 4, 4, 5, 4, 2, 0, 4, 2, 4, 0, 2, 4, 3}),
                         Tensor::Scalar<uint8_t>(2), Tensor::Scalar<uint8_t>(1)});
  ExpectTensor(y, I32({1, 1, 3, 5}, {117, 188, 250, 315, 296, 65, 364, 389, 448, 276, 64, 178, 86, 273, 201}));
}

TEST(ConvInteger, AutoPadSameUpperPutsOddPaddingAtTheEnd) {
  // 6x6, k3, stride 2: output 3x3, total padding 1 per axis, placed at the end.
  Attributes a;
  a.Set("auto_pad", StringAttr("SAME_UPPER"));
  a.Set("strides", IntsAttr({2, 2}));
  const Tensor y = RunConvInteger(
      a, {U8({1, 1, 6, 6}, {15, 12, 16, 17, 15, 13, 5, 1,  16, 7, 5, 0,  2,  0, 8, 6, 10, 12,
                            6,  11, 12, 14, 12, 0,  5, 16, 13, 6, 7, 19, 15, 7, 6, 2, 16, 13}),
          U8({1, 1, 3, 3}, {2, 4, 3, 3, 4, 4, 3, 2, 1}), Tensor::Scalar<uint8_t>(4), Tensor::Scalar<uint8_t>(0)});
  ExpectTensor(y, I32({1, 1, 3, 3}, {119, 183, 79, 94, 164, 91, 130, 81, 138}));
}

TEST(ConvInteger, AutoPadSameLowerPutsOddPaddingAtTheBeginning) {
  // The same input as SAME_UPPER; the extra padding row/column goes first.
  Attributes a;
  a.Set("auto_pad", StringAttr("SAME_LOWER"));
  a.Set("strides", IntsAttr({2, 2}));
  const Tensor y = RunConvInteger(
      a, {U8({1, 1, 6, 6}, {15, 12, 16, 17, 15, 13, 5, 1,  16, 7, 5, 0,  2,  0, 8, 6, 10, 12,
                            6,  11, 12, 14, 12, 0,  5, 16, 13, 6, 7, 19, 15, 7, 6, 2, 16, 13}),
          U8({1, 1, 3, 3}, {2, 4, 3, 3, 4, 4, 3, 2, 1}), Tensor::Scalar<uint8_t>(4), Tensor::Scalar<uint8_t>(0)});
  ExpectTensor(y, I32({1, 1, 3, 3}, {75, 142, 126, -18, 110, 102, 106, 167, 145}));
}

TEST(ConvInteger, OneSpatialDimensionWithBatch2) {
  Attributes a;
  a.Set("strides", IntsAttr({2}));
  a.Set("pads", IntsAttr({1, 1}));
  const Tensor y = RunConvInteger(
      a, {U8({2, 2, 7}, {77,  250, 47, 24,  157, 83,  24,  140, 191, 7,  124, 39,  147, 204,
                         205, 200, 75, 163, 166, 230, 177, 193, 25,  76, 94,  165, 222, 87}),
          U8({3, 2, 3}, {127, 191, 49, 98, 49, 39, 177, 224, 38, 176, 177, 190, 179, 143, 29, 200, 49, 114}),
          Tensor::Scalar<uint8_t>(7), Tensor::Scalar<uint8_t>(9)});
  ExpectTensor(
      y, I32({2, 3, 4}, {33300, 56520, 48239, 32402, 77745, 101822, 87565,  72899,  38880, 94439, 62837, 49818,
                         51736, 48362, 76779, 79589, 82673, 81913,  146848, 123359, 39722, 60375, 97798, 104955}));
}

TEST(ConvInteger, ThreeSpatialDimensions) {
  Attributes a;
  a.Set("pads", IntsAttr({1, 0, 1, 0, 1, 0}));
  const Tensor y = RunConvInteger(
      a, {U8({1, 2, 3, 4, 4},
             {243, 144, 74,  16,  65,  142, 217, 208, 54,  180, 166, 205, 127, 127, 107, 225, 134, 27,  129, 224,
              214, 95,  225, 23,  191, 158, 2,   116, 97,  109, 66,  218, 211, 35,  195, 157, 47,  105, 71,  135,
              33,  127, 29,  34,  217, 131, 73,  220, 85,  43,  230, 2,   241, 17,  206, 117, 32,  249, 109, 11,
              184, 253, 39,  137, 237, 30,  202, 107, 13,  53,  219, 182, 226, 138, 33,  73,  76,  65,  20,  221,
              24,  196, 183, 111, 160, 103, 134, 188, 117, 248, 214, 20,  231, 40,  53,  92}),
          U8({2, 2, 2, 3, 2}, {209, 129, 193, 18,  191, 13,  63, 56,  213, 98, 197, 189, 177, 156, 221, 7,
                               170, 11,  160, 115, 249, 223, 15, 234, 46,  93, 136, 227, 88,  237, 76,  104,
                               237, 190, 173, 93,  2,   39,  80, 147, 223, 22, 14,  169, 61,  207, 148, 234}),
          Tensor::Scalar<uint8_t>(100), Tensor::Scalar<uint8_t>(128)});
  ExpectTensor(y, I32({1, 2, 3, 3, 4},
                      {-5670,  17923,  -10752, 34826,  6158,   14695,  -12949, 1807,   11366,  19301,  9502,   -17426,
                       2751,   -4035,  -36483, 34243,  3704,   -35156, 15986,  6173,   -25464, -28029, 32017,  -21235,
                       -25349, 20365,  -17786, -11356, 3259,   15547,  76177,  -14780, 20391,  35682,  13667,  -47519,
                       -676,   -16770, 41155,  -11739, 6356,   15776,  9920,   -15351, 6626,   25409,  -34054, 4896,
                       12905,  -18123, 62741,  5730,   -16277, 3911,   6681,   -32439, 12831,  -21813, -48884, 43534,
                       -7366,  14265,  32810,  -47530, 28085,  10930,  -24603, -65140, 4756,   -19272, -13171, 31884}));
}

TEST(ConvInteger, PerOutputChannelWeightZeroPoints) {
  Attributes a;
  const Tensor y = RunConvInteger(
      a, {U8({1, 2, 3, 3}, {115, 114, 199, 30, 54, 231, 36, 222, 178, 247, 69, 152, 10, 172, 13, 95, 83, 46}),
          U8({3, 2, 2, 2}, {138, 74,  22,  184, 47, 83,  81, 177, 185, 128, 20,  114,
                            180, 247, 245, 42,  63, 124, 65, 40,  56,  239, 180, 125}),
          Tensor::Scalar<uint8_t>(50), U8({3}, {1, 128, 255})});
  ExpectTensor(
      y, I32({1, 3, 2, 2}, {42781, 65338, 46306, 45311, 3142, 31264, 12829, -13994, -70291, -81235, -32661, -110320}));
}

TEST(ConvInteger, Int8InputWithUint8Weights) {
  Attributes a;
  const Tensor y = RunConvInteger(
      a, {I8({1, 2, 4, 4}, {14,  -44, 12, -85, -113, 24,  15,  -26, -11, -96, 88, -120, -6,  -28, 71, 21,
                            -80, 4,   25, 102, 5,    105, -41, 111, 113, 76,  90, -6,   112, 6,   23, -27}),
          U8({2, 2, 3, 3}, {148, 102, 145, 10, 16,  204, 219, 62,  4,   7,   199, 119, 68, 183, 133, 111, 23, 93,
                            197, 168, 120, 41, 163, 2,   251, 151, 183, 135, 89,  221, 5,  106, 187, 201, 63, 4}),
          Tensor::Scalar<int8_t>(-5), Tensor::Scalar<uint8_t>(100)});
  ExpectTensor(y, I32({1, 2, 2, 2}, {15233, -20166, 22691, -27427, 5227, -4043, -16566, 42069}));
}

TEST(ConvInteger, OneByOneKernel) {
  Attributes a;
  const Tensor y = RunConvInteger(
      a, {U8({1, 3, 2, 3}, {250, 6, 206, 153, 0, 57, 46, 17, 151, 32, 85, 95, 8, 86, 156, 144, 139, 227}),
          I8({4, 3, 1, 1}, {-77, -35, 44, -81, -50, 19, 54, -128, -28, -30, -47, -47}), Tensor::Scalar<uint8_t>(0),
          Tensor::Scalar<int8_t>(0)});
  ExpectTensor(y, I32({1, 4, 2, 3},
                      {-20508, 2727,  -14283, -6565, 3141,   2274,   -22398, 298,   -21272, -11257, -1609,  -5054,
                       7388,   -4260, -12572, 134,   -14772, -15438, -10038, -5021, -20609, -12862, -10528, -16844}));
}

TEST(ConvInteger, AccumulatorWrapsModulo2To32) {
  // C = 33026 channels of (255 - 0) * (255 - 0) = 65025 sum to 2147515650 = 2^31 + 32002,
  // which wraps to 2147515650 - 2^32 = -2147451646.
  const int64_t channels = 33026;
  Tensor x(DataType::kUint8, {1, channels, 1, 1});
  Tensor w(DataType::kUint8, {1, channels, 1, 1});
  for (int64_t i = 0; i < channels; ++i) {
    x.data<uint8_t>()[i] = 255;
    w.data<uint8_t>()[i] = 255;
  }
  ExpectTensor(RunConvInteger(Attributes(), {x, w}), I32({1, 1, 1, 1}, {-2147451646}));
}

TEST(ConvInteger, RejectsChannelMismatch) {
  const std::string msg = ErrorOf(Attributes(), {U8({1, 3, 3, 3}, std::vector<uint8_t>(27, 1)), BackendW()});
  EXPECT_NE(msg.find("group * w.shape[1]"), std::string::npos) << msg;
}

TEST(ConvInteger, RejectsOutputChannelsNotDivisibleByGroup) {
  Attributes a;
  a.Set("group", IntAttr(2));
  const std::string msg = ErrorOf(a, {U8({1, 2, 3, 3}, std::vector<uint8_t>(18, 1)), U8({3, 1, 1, 1}, {1, 1, 1})});
  EXPECT_NE(msg.find("not divisible by group 2"), std::string::npos) << msg;
}

TEST(ConvInteger, RejectsPadsOfWrongLength) {
  Attributes a;
  a.Set("pads", IntsAttr({1, 1}));
  const std::string msg = ErrorOf(a, {BackendX(), BackendW()});
  EXPECT_NE(msg.find("'pads'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must have 4 values"), std::string::npos) << msg;
}

TEST(ConvInteger, RejectsWeightZeroPointOfWrongLength) {
  const std::string msg = ErrorOf(Attributes(), {BackendX(), BackendW(), Tensor(), U8({2}, {1, 1})});
  EXPECT_NE(msg.find("'w_zero_point'"), std::string::npos) << msg;
}

TEST(ConvInteger, RejectsZeroPointOfAnotherType) {
  const std::string msg = ErrorOf(Attributes(), {BackendX(), BackendW(), Tensor::Scalar<int8_t>(1)});
  EXPECT_NE(msg.find("'x_zero_point'"), std::string::npos) << msg;
}

TEST(ConvInteger, RejectsNonScalarInputZeroPoint) {
  const std::string msg = ErrorOf(Attributes(), {BackendX(), BackendW(), U8({2}, {1, 1})});
  EXPECT_NE(msg.find("expected a scalar"), std::string::npos) << msg;
}

TEST(ConvInteger, RejectsFloatInput) {
  const std::string msg =
      ErrorOf(Attributes(), {Tensor::FromVector<float>({1, 1, 1, 1}, {1.0f}), U8({1, 1, 1, 1}, {1})});
  EXPECT_NE(msg.find("input 'x'"), std::string::npos) << msg;
}

}  // namespace
}  // namespace ptq
