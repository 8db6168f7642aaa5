// Tests of QLinearConv: the ONNX backend data, per-channel scales and zero points, bias, groups,
// strides, dilations, padding, 1-D and 3-D, every signedness mix, rounding ties, saturation, the
// float order of the requantization multiplier, and error messages; each case with its inputs computed and
// constant. Expected values of the random cases come from an independent numpy computation: int64 sliding-window sums over the input
// padded with its zero point, plus bias, wrapped to int32; multiplier
// float32(float32(x_scale * w_scale) / y_scale); y = clip(rint(float32(acc) * multiplier) + y_zp).
#include "runtime/ops/quantization/qlinear_conv.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
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
Tensor F32(float v) { return Tensor::Scalar<float>(v); }

// Runs the kernel twice: its inputs computed (scales and zero points read by the run), then all of them constants
// (read once when the kernel is made: ConstantParams). Both give the same values, or fail with the same message.
Tensor RunQLinearConv(const Attributes& attrs, const std::vector<Tensor>& inputs, int opset = 10) {
  std::string computed_error;
  Tensor computed;
  try {
    computed = testing::RunOp("QLinearConv", opset, attrs, inputs)[0];
  } catch (const Error& e) {
    computed_error = e.what();
  }
  try {
    Tensor constant = testing::RunOp("QLinearConv", opset, attrs, inputs, 1, true)[0];
    EXPECT_EQ(computed_error, "") << "only the run with computed inputs failed";
    EXPECT_EQ(constant.dtype(), computed.dtype());
    EXPECT_EQ(constant.shape(), computed.shape());
    EXPECT_EQ(std::memcmp(constant.raw(), computed.raw(), static_cast<size_t>(constant.size())), 0)
        << "constant inputs gave other values";
    return constant;
  } catch (const Error& e) {
    EXPECT_EQ(computed_error, e.what()) << "constant inputs failed otherwise";
    throw;
  }
}

// Compares dtype, shape and every value (as int32).
void ExpectTensor(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(actual.shape(), expected.shape());
  for (int64_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual.GetAsDouble(i), expected.GetAsDouble(i)) << "element " << i;
  }
}

std::string ErrorOf(const Attributes& attrs, const std::vector<Tensor>& inputs) {
  try {
    RunQLinearConv(attrs, inputs);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    return e.what();
  }
  return "";
}

TEST(QLinearConv, BackendTestData) {
  // test_qlinearconv: 1x1 kernel w = 0 with w_zero_point 255 ([1]-shaped w_scale and w_zero_point).
  const Tensor x = U8({1, 1, 7, 7}, {255, 174, 162, 25,  203, 168, 58,  15,  59,  237, 95,  129, 0,  64,  56, 242, 153,
                                     221, 168, 12,  166, 232, 178, 186, 195, 237, 162, 237, 188, 39, 124, 77, 80,  102,
                                     43,  127, 230, 21,  83,  41,  40,  134, 255, 154, 92,  141, 42, 148, 247});
  const Tensor y = RunQLinearConv(Attributes(), {x, F32(0.003692047f), Tensor::Scalar<uint8_t>(132),
                                                 U8({1, 1, 1, 1}, {0}), Tensor::FromVector<float>({1}, {0.0017279458f}),
                                                 U8({1}, {255}), F32(0.0016268126f), Tensor::Scalar<uint8_t>(123)});
  ExpectTensor(y, U8({1, 1, 7, 7}, {0,   81,  93,  230, 52,  87,  197, 240, 196, 18,  160, 126, 255, 191, 199, 13,  102,
                                    34,  87,  243, 89,  23,  77,  69,  60,  18,  93,  18,  67,  216, 131, 178, 175, 153,
                                    212, 128, 25,  234, 172, 214, 215, 121, 0,   101, 163, 114, 213, 107, 8}));
}

TEST(QLinearConv, RoundsTiesToEvenBeforeAddingTheZeroPoint) {
  // multiplier = 1 * 1 / 2 = 0.5; acc = x - 8 = {1, 3, 5, 7, -1, -3, -5, -7} gives the ties
  // {0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5} -> {0, 2, 2, 4, 0, -2, -2, -4}, + 11. Adding the odd
  // zero point before rounding would give {12, 12, 14, 14, 10, 10, 8, 8} instead.
  const Tensor y = RunQLinearConv(Attributes(), {U8({1, 1, 1, 8}, {9, 11, 13, 15, 7, 5, 3, 1}), F32(1.0f),
                                                 Tensor::Scalar<uint8_t>(8), I8({1, 1, 1, 1}, {1}), F32(1.0f),
                                                 Tensor::Scalar<int8_t>(0), F32(2.0f), Tensor::Scalar<uint8_t>(11)});
  ExpectTensor(y, U8({1, 1, 1, 8}, {11, 13, 13, 15, 11, 9, 9, 7}));
}

TEST(QLinearConv, SaturatesUint8AndInt8Outputs) {
  // acc = (x - 128) * 1 = {127, -128, 1}; multiplier 10 -> {1270, -1280, 10}.
  const Tensor x = U8({1, 1, 1, 3}, {255, 0, 129});
  const Tensor w = I8({1, 1, 1, 1}, {1});
  const Tensor yu = RunQLinearConv(Attributes(), {x, F32(1.0f), Tensor::Scalar<uint8_t>(128), w, F32(1.0f),
                                                  Tensor::Scalar<int8_t>(0), F32(0.1f), Tensor::Scalar<uint8_t>(128)});
  ExpectTensor(yu, U8({1, 1, 1, 3}, {255, 0, 138}));
  const Tensor yi = RunQLinearConv(Attributes(), {x, F32(1.0f), Tensor::Scalar<uint8_t>(128), w, F32(1.0f),
                                                  Tensor::Scalar<int8_t>(0), F32(0.1f), Tensor::Scalar<int8_t>(-5)});
  ExpectTensor(yi, I8({1, 1, 1, 3}, {127, -128, 5}));
}

TEST(QLinearConv, BiasIsAddedToTheAccumulatorBeforeRequantizing) {
  // acc = (x - 128) * 1 + B = {127 + 1000, -128 + 1000, 1 + 1000}; multiplier 0.25; y_zp 0:
  // {281.75, 218, 250.25} -> {255 (saturated), 218, 250}.
  const Tensor y = RunQLinearConv(
      Attributes(), {U8({1, 1, 1, 3}, {255, 0, 129}), F32(0.5f), Tensor::Scalar<uint8_t>(128), I8({1, 1, 1, 1}, {1}),
                     F32(0.5f), Tensor::Scalar<int8_t>(0), F32(1.0f), Tensor::Scalar<uint8_t>(0), I32({1}, {1000})});
  ExpectTensor(y, U8({1, 1, 1, 3}, {255, 218, 250}));
}

TEST(QLinearConv, MultiplierIsXScaleTimesWScaleThenDividedByYScale) {
  // acc = (28 - 128) * 121 + (88 - 128) * 1 = -12140. In float32, float(x_scale * w_scale) / y_scale
  // = 0.0023476114 and acc * that = -28.500002 -> -29; x_scale * (w_scale / y_scale) or a double
  // computation gives 0.0023476111 and -28.499998 -> -28. y = -29 + 100 = 71 (ONNX Runtime's order).
  const Tensor y =
      RunQLinearConv(Attributes(), {U8({1, 2, 1, 1}, {28, 88}), F32(0.021395648f), Tensor::Scalar<uint8_t>(128),
                                    I8({1, 2, 1, 1}, {121, 1}), F32(0.013057854f), Tensor::Scalar<int8_t>(0),
                                    F32(0.11900661f), Tensor::Scalar<uint8_t>(100)});
  ExpectTensor(y, U8({1, 1, 1, 1}, {71}));
}

TEST(QLinearConv, SameUpperAndSameLowerPlaceOddPaddingDifferently) {
  // 1-D input {1, 2, 3, 4} (x_zp 0), kernel {1, 1}, stride 1: total padding 1. SAME_UPPER pads at the
  // end: {1+2, 2+3, 3+4, 4+0}; SAME_LOWER at the beginning: {0+1, 1+2, 2+3, 3+4}. multiplier 1.
  Attributes upper;
  upper.Set("auto_pad", StringAttr("SAME_UPPER"));
  Attributes lower;
  lower.Set("auto_pad", StringAttr("SAME_LOWER"));
  const std::vector<Tensor> inputs = {
      U8({1, 1, 4}, {1, 2, 3, 4}), F32(1.0f), Tensor::Scalar<uint8_t>(0), U8({1, 1, 2}, {1, 1}), F32(1.0f),
      Tensor::Scalar<uint8_t>(0),  F32(1.0f), Tensor::Scalar<uint8_t>(0)};
  ExpectTensor(RunQLinearConv(upper, inputs), U8({1, 1, 4}, {3, 5, 7, 4}));
  ExpectTensor(RunQLinearConv(lower, inputs), U8({1, 1, 4}, {1, 3, 5, 7}));
}

TEST(QLinearConv, PerChannelWeightScalesZeroPointsAndBias) {
  // Per output channel w_scale and w_zero_point (int8 w), uint8 x and y, pads 1, bias;
  // channel 2 saturates at both ends.
  Attributes a;
  a.Set("pads", IntsAttr({1, 1, 1, 1}));
  const Tensor y = RunQLinearConv(
      a,
      {U8({1, 2, 5, 5}, {34,  32,  204, 127, 151, 153, 182, 7,   124, 37,  102, 237, 140, 18,  138, 33, 193,
                         242, 250, 159, 222, 94,  37,  130, 113, 169, 254, 70,  219, 35,  89,  201, 63, 171,
                         117, 131, 240, 209, 214, 140, 251, 251, 34,  52,  78,  141, 210, 123, 251, 90}),
       Tensor::Scalar<float>(0.02f), Tensor::Scalar<uint8_t>(120),
       I8({3, 2, 3, 3}, {109, 23,  56,  -68, 23, 77, 98,   94,  119, -96,  71,  -9,  47,   -58,  -125, -107, 121, 101,
                         -51, -18, -67, -91, 91, 44, -109, -77, 16,  102,  126, -73, 28,   -120, -84,  -77,  -15, -40,
                         58,  -8,  -42, 103, 32, 50, 62,   -42, 100, -124, -50, -88, -127, 127,  -106, -11,  81,  48}),
       Tensor::FromVector<float>({3}, {0.009999999776482582f, 0.003000000026077032f, 0.05000000074505806f}),
       I8({3}, {0, 3, -4}), Tensor::Scalar<float>(0.1f), Tensor::Scalar<uint8_t>(128), I32({3}, {500, -1200, 37})});
  ExpectTensor(y, U8({1, 3, 5, 5},
                     {102, 157, 111, 111, 122, 166, 177, 86,  165, 70,  177, 133, 66,  152, 174, 136, 212, 177, 141,
                      40,  125, 85,  106, 177, 180, 107, 119, 134, 129, 138, 129, 130, 103, 129, 124, 113, 129, 94,
                      114, 131, 91,  131, 152, 150, 128, 128, 130, 114, 109, 119, 45,  138, 0,   255, 0,   153, 255,
                      0,   255, 0,   255, 255, 26,  123, 0,   24,  127, 52,  255, 99,  0,   24,  0,   255, 116}));
}

TEST(QLinearConv, TwoGroupsStrides2Dilations2AsymmetricPadsAllInt8) {
  // Batch 2, group 2, strides 2, dilations 2, pads [1, 0, 0, 2]; int8 x, w and y.
  Attributes a;
  a.Set("group", IntAttr(2));
  a.Set("strides", IntsAttr({2, 2}));
  a.Set("dilations", IntsAttr({2, 2}));
  a.Set("pads", IntsAttr({1, 0, 0, 2}));
  const Tensor y = RunQLinearConv(
      a, {I8({2, 4, 6, 7},
             {91,   -115, -1,   -120, -79, 88,   -110, 22,   -123, -49,  110,  -47,  -49,  -106, 70,   -84, -1,   -122,
              -123, 86,   -126, -9,   -19, -96,  37,   61,   124,  -78,  108,  -113, -92,  25,   94,   101, 61,   -122,
              -22,  78,   7,    -80,  46,  -105, 50,   -124, -36,  -53,  112,  58,   39,   -2,   -55,  90,  114,  -73,
              -66,  -48,  -6,   -62,  -25, 122,  -34,  112,  0,    -41,  111,  -17,  70,   -48,  127,  63,  96,   -118,
              -101, -111, 8,    -25,  122, -66,  -85,  88,   -51,  61,   -54,  11,   -108, 41,   106,  49,  97,   71,
              17,   109,  -6,   -90,  14,  32,   -83,  -92,  41,   -15,  -5,   73,   47,   101,  -86,  66,  10,   -119,
              -110, -36,  35,   -87,  11,  127,  -92,  -92,  119,  -66,  95,   -37,  65,   -113, 33,   94,  -42,  34,
              -73,  -88,  -128, -1,   5,   -108, -70,  28,   -35,  -69,  -127, -119, 35,   -99,  88,   14,  -64,  35,
              -87,  -45,  -1,   36,   -93, -38,  -105, -95,  -71,  -48,  104,  -27,  -101, 105,  17,   -99, -107, -106,
              105,  15,   46,   118,  -26, 104,  -25,  51,   83,   -111, 59,   78,   120,  46,   -4,   -92, 68,   -9,
              78,   -116, -40,  77,   28,  55,   23,   77,   84,   66,   41,   -60,  -109, 74,   -39,  -65, -128, -93,
              -119, -29,  -53,  -1,   18,  -55,  8,    27,   44,   26,   -120, -67,  75,   31,   -53,  -37, 109,  60,
              -33,  -54,  -95,  76,   33,  -22,  49,   13,   8,    44,   67,   4,    -23,  -63,  -51,  122, -81,  -104,
              29,   -45,  -104, 12,   63,  -121, -4,   -89,  19,   76,   77,   72,   -53,  35,   38,   102, 49,   65,
              -103, -52,  -34,  37,   94,  -41,  -1,   63,   -79,  -30,  -79,  -89,  49,   96,   -90,  48,  49,   62,
              51,   15,   -99,  72,   -79, -14,  115,  16,   -54,  -112, -63,  14,   89,   80,   -74,  52,  38,   77,
              -1,   -1,   -21,  97,   6,   -101, 1,    96,   86,   -33,  97,   -105, 63,   30,   -126, -12, -31,  -19,
              -62,  90,   83,   -93,  67,  29,   -81,  -23,  -57,  7,    -95,  -1,   -99,  -94,  89,   3,   -55,  92,
              -43,  -85,  102,  -126, 113, -111, 78,   -11,  -96,  121,  -19,  -117}),
          Tensor::Scalar<float>(0.05f), Tensor::Scalar<int8_t>(-3),
          I8({4, 2, 2, 2}, {56,  125, -89,  9,  109,  -98, 74, -21, -115, -75, 91, 54, 98,  10,  -95, -55,
                            -52, -63, -108, 93, -104, 68,  55, -17, 32,   -25, 6,  60, -11, 120, 86,  -108}),
          Tensor::Scalar<float>(0.004f), Tensor::Scalar<int8_t>(0), Tensor::Scalar<float>(0.6f),
          Tensor::Scalar<int8_t>(5)});
  ExpectTensor(
      y, I8({2, 4, 3, 4}, {3,  9,  5,  7, 0,  11, -5, 5,  2,  6,  3, 9, 3, 1, 5, 3, 5, 10, 8,  3, 4,  3,  -3, 6,
                           -1, 9,  -1, 6, -3, 8,  5,  12, 0,  13, 9, 9, 7, 8, 3, 2, 4, 1,  0,  3, -1, -2, 4,  7,
                           1,  10, 4,  9, -1, 6,  -5, 6,  15, 4,  3, 8, 5, 0, 3, 1, 3, 15, 10, 7, 3,  0,  -3, 4,
                           2,  3,  10, 3, 0,  9,  1,  4,  -1, 5,  7, 8, 6, 4, 3, 8, 6, 9,  2,  6, 3,  -2, 13, 0}));
}

TEST(QLinearConv, Int8InputUint8WeightsOneSpatialDimension) {
  // 1-D, strides 2, per-channel uint8 weight zero points, bias.
  Attributes a;
  a.Set("strides", IntsAttr({2}));
  const Tensor y = RunQLinearConv(
      a, {I8({1, 3, 9}, {103, -88, -75, -36, 81, 1,    65, -110, 63, -115, -65, -72, 85,  -30,
                         69,  61,  49,  28,  93, -121, 42, -117, 32, -13,  121, 95,  -113}),
          Tensor::Scalar<float>(0.03f), Tensor::Scalar<int8_t>(4),
          U8({2, 3, 4}, {234, 46, 93, 136, 227, 88,  237, 76, 104, 237, 190, 173,
                         93,  2,  39, 80,  147, 223, 22,  14, 169, 61,  207, 148}),
          Tensor::FromVector<float>({2}, {0.0020000000949949026f, 0.0035000001080334187f}), U8({2}, {128, 120}),
          Tensor::Scalar<float>(0.05f), Tensor::Scalar<uint8_t>(100), I32({2}, {-3000, 4000})});
  ExpectTensor(y, U8({1, 2, 3}, {73, 50, 111, 143, 139, 126}));
}

TEST(QLinearConv, OneByOneKernelToInt8Output) {
  // uint8 x and w, int8 y; saturates at 127 and -128.
  Attributes a;
  const Tensor y = RunQLinearConv(
      a, {U8({1, 3, 2, 2}, {234, 115, 114, 199, 30, 54, 231, 36, 222, 178, 247, 69}), Tensor::Scalar<float>(0.1f),
          Tensor::Scalar<uint8_t>(128), U8({2, 3, 1, 1}, {152, 10, 172, 13, 95, 83}), Tensor::Scalar<float>(0.01f),
          Tensor::Scalar<uint8_t>(128), Tensor::Scalar<float>(0.08f), Tensor::Scalar<int8_t>(-10)});
  ExpectTensor(y, I8({1, 2, 2, 2}, {127, 123, -101, 115, -128, 11, -99, -41}));
}

TEST(QLinearConv, DepthwiseThreeSpatialDimensions) {
  // group = C = M = 2 over 3-D input with end pads.
  Attributes a;
  a.Set("group", IntAttr(2));
  a.Set("pads", IntsAttr({0, 1, 0, 1, 0, 1}));
  const Tensor y = RunQLinearConv(
      a,
      {U8({1, 2, 3, 3, 3}, {46,  138, 74,  22,  184, 47,  83,  81,  177, 185, 128, 20, 114, 180, 247, 245, 42,  63,
                            124, 65,  40,  56,  239, 180, 125, 142, 84,  140, 43,  15, 152, 143, 102, 117, 32,  216,
                            8,   122, 100, 199, 149, 48,  132, 153, 230, 133, 233, 87, 239, 241, 204, 218, 122, 240}),
       Tensor::Scalar<float>(0.01f), Tensor::Scalar<uint8_t>(128),
       I8({2, 1, 2, 2, 2}, {6, 23, -27, 20, -26, 17, -118, -112, 76, 91, -66, -124, -121, 71, -9, -60}),
       Tensor::FromVector<float>({2}, {0.019999999552965164f, 0.009999999776482582f}), I8({2}, {0, 0}),
       Tensor::Scalar<float>(0.05f), Tensor::Scalar<uint8_t>(128)});
  ExpectTensor(y, U8({1, 2, 3, 3, 3},
                     {111, 171, 185, 120, 26,  91,  120, 203, 139, 152, 189, 181, 115, 47,  97,  123, 149, 153,
                      123, 128, 138, 139, 111, 120, 138, 130, 134, 150, 171, 143, 132, 106, 122, 142, 87,  130,
                      133, 139, 132, 92,  97,  143, 124, 58,  82,  101, 124, 133, 105, 103, 112, 155, 132, 125}));
}

// Valid inputs for a [1, 2, 3, 3] x and a [2, 2, 1, 1] w; tests replace one entry to break it.
std::vector<Tensor> ValidInputs() {
  return {U8({1, 2, 3, 3}, std::vector<uint8_t>(18, 7)),
          F32(0.5f),
          Tensor::Scalar<uint8_t>(0),
          U8({2, 2, 1, 1}, {1, 2, 3, 4}),
          Tensor::FromVector<float>({2}, {0.5f, 0.25f}),
          U8({2}, {0, 1}),
          F32(1.0f),
          Tensor::Scalar<uint8_t>(0)};
}

TEST(QLinearConv, ValidInputsRun) {
  // (7*1 + 7*2) * 0.25 = 5.25 -> 5; (7*2 + 7*3) * 0.125 = 4.375 -> 4.
  const Tensor y = RunQLinearConv(Attributes(), ValidInputs());
  ExpectTensor(y, U8({1, 2, 3, 3}, {5, 5, 5, 5, 5, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4}));
}

TEST(QLinearConv, RejectsWeightScaleOfWrongLength) {
  std::vector<Tensor> in = ValidInputs();
  in[4] = Tensor::FromVector<float>({3}, {1.0f, 1.0f, 1.0f});
  const std::string msg = ErrorOf(Attributes(), in);
  EXPECT_NE(msg.find("'w_scale'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("2 values"), std::string::npos) << msg;
}

TEST(QLinearConv, RejectsWeightZeroPointOfWrongLength) {
  std::vector<Tensor> in = ValidInputs();
  in[5] = U8({3}, {0, 0, 0});
  const std::string msg = ErrorOf(Attributes(), in);
  EXPECT_NE(msg.find("'w_zero_point'"), std::string::npos) << msg;
}

TEST(QLinearConv, RejectsPerChannelInputScale) {
  std::vector<Tensor> in = ValidInputs();
  in[1] = Tensor::FromVector<float>({2}, {1.0f, 1.0f});
  const std::string msg = ErrorOf(Attributes(), in);
  EXPECT_NE(msg.find("'x_scale'"), std::string::npos) << msg;
}

TEST(QLinearConv, RejectsBiasOfWrongShapeOrType) {
  std::vector<Tensor> in = ValidInputs();
  in.push_back(I32({3}, {0, 0, 0}));
  std::string msg = ErrorOf(Attributes(), in);
  EXPECT_NE(msg.find("'B'"), std::string::npos) << msg;
  in[8] = Tensor::FromVector<float>({2}, {0.0f, 0.0f});
  msg = ErrorOf(Attributes(), in);
  EXPECT_NE(msg.find("'B'"), std::string::npos) << msg;
}

TEST(QLinearConv, RejectsZeroPointTypeDifferentFromItsInput) {
  std::vector<Tensor> in = ValidInputs();
  in[2] = Tensor::Scalar<int8_t>(0);
  const std::string msg = ErrorOf(Attributes(), in);
  EXPECT_NE(msg.find("'x_zero_point'"), std::string::npos) << msg;
}

TEST(QLinearConv, RejectsChannelMismatchAndIndivisibleGroups) {
  std::vector<Tensor> in = ValidInputs();
  in[3] = U8({2, 1, 1, 1}, {1, 2});  // C = 2 needs group * 1 = 2
  std::string msg = ErrorOf(Attributes(), in);
  EXPECT_NE(msg.find("group * w.shape[1]"), std::string::npos) << msg;
  Attributes a;
  a.Set("group", IntAttr(2));
  in[3] = U8({3, 1, 1, 1}, {1, 2, 3});
  in[4] = F32(1.0f);
  in[5] = Tensor::Scalar<uint8_t>(0);
  msg = ErrorOf(a, in);
  EXPECT_NE(msg.find("not divisible by group"), std::string::npos) << msg;
}

TEST(QLinearConv, RejectsPadsOfWrongLength) {
  Attributes a;
  a.Set("pads", IntsAttr({1, 1, 1}));
  const std::string msg = ErrorOf(a, ValidInputs());
  EXPECT_NE(msg.find("'pads'"), std::string::npos) << msg;
}

}  // namespace
}  // namespace ptq
