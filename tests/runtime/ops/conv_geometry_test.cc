// Tests of the sliding-window geometry: output sizes and pads for every auto_pad mode, strides,
// dilations, ceil_mode, ConvTranspose, and the checks on shapes and attributes. Expected sizes are
// worked out by hand from the ONNX spec's formulas and from the shapes of ONNX backend tests.
#include "runtime/kernels/conv/conv_geometry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using V = std::vector<int64_t>;

ConvAttributes Attrs(AutoPad auto_pad, V strides = {}, V dilations = {}, V pads = {}) {
  ConvAttributes a;
  a.auto_pad = auto_pad;
  a.strides = std::move(strides);
  a.dilations = std::move(dilations);
  a.pads = std::move(pads);
  return a;
}

// The message of the input error `f` throws, or "" when none is thrown.
template <class F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    return e.what();
  }
  return "";
}

TEST(ConvGeometry, ReadsAttributesWithDefaults) {
  Attributes attrs;
  ConvAttributes a = ReadConvAttributes(attrs);
  EXPECT_EQ(a.auto_pad, AutoPad::kNotSet);
  EXPECT_EQ(a.group, 1);
  EXPECT_TRUE(a.strides.empty());
  EXPECT_FALSE(a.ceil_mode);
  attrs.Set("auto_pad", testing::StringAttr("SAME_LOWER"));
  attrs.Set("group", testing::IntAttr(4));
  attrs.Set("strides", testing::IntsAttr({2, 1}));
  attrs.Set("ceil_mode", testing::IntAttr(1));
  a = ReadConvAttributes(attrs);
  EXPECT_EQ(a.auto_pad, AutoPad::kSameLower);
  EXPECT_EQ(a.group, 4);
  EXPECT_EQ(a.strides, V({2, 1}));
  EXPECT_TRUE(a.ceil_mode);
}

TEST(ConvGeometry, ParsesAutoPadAndRejectsUnknownValues) {
  EXPECT_EQ(ParseAutoPad(""), AutoPad::kNotSet);
  EXPECT_EQ(ParseAutoPad("NOTSET"), AutoPad::kNotSet);
  EXPECT_EQ(ParseAutoPad("SAME_UPPER"), AutoPad::kSameUpper);
  EXPECT_EQ(ParseAutoPad("VALID"), AutoPad::kValid);
  const std::string msg = ErrorOf([] { ParseAutoPad("SAME"); });
  EXPECT_NE(msg.find("auto_pad"), std::string::npos) << msg;
}

TEST(ConvGeometry, ExplicitPadsAndStrides) {
  // test_conv_with_strides_and_asymmetric_padding: 7x5, k3, strides 2, pads [1, 0, 1, 0] -> 4x2.
  const SlidingWindow w = ResolveWindow(Attrs(AutoPad::kNotSet, {2, 2}, {}, {1, 0, 1, 0}), {7, 5}, {3, 3});
  EXPECT_EQ(w.output, V({4, 2}));
  EXPECT_EQ(w.pads_begin, V({1, 0}));
  EXPECT_EQ(w.pads_end, V({1, 0}));
  EXPECT_EQ(w.dilations, V({1, 1}));
  // test_conv_with_strides_padding: pads 1 on every side -> 4x3; no padding -> 3x2.
  EXPECT_EQ(ResolveWindow(Attrs(AutoPad::kNotSet, {2, 2}, {}, {1, 1, 1, 1}), {7, 5}, {3, 3}).output, V({4, 3}));
  EXPECT_EQ(ResolveWindow(Attrs(AutoPad::kNotSet, {2, 2}), {7, 5}, {3, 3}).output, V({3, 2}));
}

TEST(ConvGeometry, AsymmetricPadsPerAxis) {
  // pads [top 0, left 2, bottom 1, right 0]: 4 + 0 + 1 - 3 + 1 = 3 rows, 5 + 2 + 0 - 3 + 1 = 5 columns.
  const SlidingWindow w = ResolveWindow(Attrs(AutoPad::kNotSet, {}, {}, {0, 2, 1, 0}), {4, 5}, {3, 3});
  EXPECT_EQ(w.output, V({3, 5}));
  EXPECT_EQ(w.pads_begin, V({0, 2}));
  EXPECT_EQ(w.pads_end, V({1, 0}));
}

TEST(ConvGeometry, DilationsWidenTheKernel) {
  // 5, k2, dilation 2: dilated kernel 3 -> 3 outputs; 4, k2, d2 (test_maxpool_2d_dilations) -> 2.
  EXPECT_EQ(ResolveWindow(Attrs(AutoPad::kNotSet, {}, {2}), {5}, {2}).output, V({3}));
  EXPECT_EQ(ResolveWindow(Attrs(AutoPad::kNotSet, {1, 1}, {2, 2}), {4, 4}, {2, 2}).output, V({2, 2}));
}

TEST(ConvGeometry, SameUpperPutsTheOddPadAtTheEnd) {
  // 6, k3, stride 2: output ceil(6 / 2) = 3; total = (3 - 1) * 2 + 3 - 6 = 1.
  const SlidingWindow w = ResolveWindow(Attrs(AutoPad::kSameUpper, {2}), {6}, {3});
  EXPECT_EQ(w.output, V({3}));
  EXPECT_EQ(w.pads_begin, V({0}));
  EXPECT_EQ(w.pads_end, V({1}));
}

TEST(ConvGeometry, SameLowerPutsTheOddPadAtTheBeginning) {
  const SlidingWindow w = ResolveWindow(Attrs(AutoPad::kSameLower, {2}), {6}, {3});
  EXPECT_EQ(w.output, V({3}));
  EXPECT_EQ(w.pads_begin, V({1}));
  EXPECT_EQ(w.pads_end, V({0}));
  // test_conv_with_autopad_same: 5x5, k3, strides 2, SAME_LOWER -> 3x3 with total 2 = 1 + 1.
  const SlidingWindow v = ResolveWindow(Attrs(AutoPad::kSameLower, {2, 2}), {5, 5}, {3, 3});
  EXPECT_EQ(v.output, V({3, 3}));
  EXPECT_EQ(v.pads_begin, V({1, 1}));
  EXPECT_EQ(v.pads_end, V({1, 1}));
}

TEST(ConvGeometry, SameWithDilationUsesTheDilatedKernel) {
  // 5, k3, dilation 2 (dilated 5), stride 1: output 5, total = 4 + 5 - 5 = 4 -> 2 + 2.
  const SlidingWindow w = ResolveWindow(Attrs(AutoPad::kSameUpper, {}, {2}), {5}, {3});
  EXPECT_EQ(w.output, V({5}));
  EXPECT_EQ(w.pads_begin, V({2}));
  EXPECT_EQ(w.pads_end, V({2}));
}

TEST(ConvGeometry, SameNeverPadsNegatively) {
  // 5, k1, stride 3: output 2; (2 - 1) * 3 + 1 - 5 = -1 -> no padding.
  const SlidingWindow w = ResolveWindow(Attrs(AutoPad::kSameLower, {3}), {5}, {1});
  EXPECT_EQ(w.output, V({2}));
  EXPECT_EQ(w.pads_begin, V({0}));
  EXPECT_EQ(w.pads_end, V({0}));
}

TEST(ConvGeometry, ValidIgnoresPads) {
  // 7, k3, stride 2: (7 - 3) / 2 + 1 = 3, whatever pads say.
  const SlidingWindow w = ResolveWindow(Attrs(AutoPad::kValid, {2}, {}, {5, 5}), {7}, {3});
  EXPECT_EQ(w.output, V({3}));
  EXPECT_EQ(w.pads_begin, V({0}));
  EXPECT_EQ(w.pads_end, V({0}));
}

TEST(ConvGeometry, CeilModeRoundsUpButDropsAWindowStartingInTheEndPadding) {
  ConvAttributes a = Attrs(AutoPad::kNotSet, {2, 2});
  a.ceil_mode = true;
  // test_maxpool_2d_ceil: 4x4, k3, stride 2: ceil(1 / 2) + 1 = 2 (floor gives 1).
  EXPECT_EQ(ResolveWindow(a, {4, 4}, {3, 3}).output, V({2, 2}));
  a.ceil_mode = false;
  EXPECT_EQ(ResolveWindow(a, {4, 4}, {3, 3}).output, V({1, 1}));
  // 3, k2, stride 2, pads 1 + 1: ceil(3 / 2) + 1 = 3, but window 3 would start at 4 - 1 = 3, past
  // the input (positions -1..2), so 2 remain.
  ConvAttributes b = Attrs(AutoPad::kNotSet, {2}, {}, {1, 1});
  b.ceil_mode = true;
  EXPECT_EQ(ResolveWindow(b, {3}, {2}).output, V({2}));
}

TEST(ConvGeometry, ThreeSpatialDimensions) {
  const SlidingWindow w =
      ResolveWindow(Attrs(AutoPad::kNotSet, {1, 2, 3}, {}, {1, 0, 0, 1, 0, 2}), {3, 4, 9}, {2, 3, 2});
  // 3 + 2 - 2 + 1 = 4; (4 - 3) / 2 + 1 = 1; (9 + 2 - 2) / 3 + 1 = 4.
  EXPECT_EQ(w.output, V({4, 1, 4}));
  EXPECT_EQ(w.rank(), 3u);
}

TEST(ConvGeometry, RejectsAttributesOfWrongLengthOrValue) {
  std::string msg = ErrorOf([] { ResolveWindow(Attrs(AutoPad::kNotSet, {}, {}, {1, 1, 1}), {4, 4}, {3, 3}); });
  EXPECT_NE(msg.find("'pads'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must have 4 values"), std::string::npos) << msg;
  msg = ErrorOf([] { ResolveWindow(Attrs(AutoPad::kNotSet, {1}), {4, 4}, {3, 3}); });
  EXPECT_NE(msg.find("'strides'"), std::string::npos) << msg;
  msg = ErrorOf([] { ResolveWindow(Attrs(AutoPad::kNotSet, {0, 1}), {4, 4}, {3, 3}); });
  EXPECT_NE(msg.find("'strides'"), std::string::npos) << msg;
  msg = ErrorOf([] { ResolveWindow(Attrs(AutoPad::kNotSet, {}, {1, 2, 3}), {4, 4}, {3, 3}); });
  EXPECT_NE(msg.find("'dilations'"), std::string::npos) << msg;
  msg = ErrorOf([] { ResolveWindow(Attrs(AutoPad::kNotSet, {}, {}, {-1, 0, 0, 0}), {4, 4}, {3, 3}); });
  EXPECT_NE(msg.find("'pads'"), std::string::npos) << msg;
}

TEST(ConvGeometry, RejectsKernelLargerThanPaddedInput) {
  const std::string msg = ErrorOf([] { ResolveWindow(Attrs(AutoPad::kNotSet), {2, 4}, {3, 3}); });
  EXPECT_NE(msg.find("smaller than the dilated kernel"), std::string::npos) << msg;
  EXPECT_NE(ErrorOf([] { ResolveWindow(Attrs(AutoPad::kValid), {4, 2}, {3, 3}); }), "");
}

TEST(ConvGeometry, ResolvesConvShapes) {
  ConvAttributes a = Attrs(AutoPad::kNotSet, {2, 2}, {}, {1, 1, 1, 1});
  a.group = 2;
  const ConvGeometry g = ResolveConvGeometry(a, {3, 4, 7, 5}, {6, 2, 3, 3});
  EXPECT_EQ(g.batch, 3);
  EXPECT_EQ(g.in_channels_per_group(), 2);
  EXPECT_EQ(g.out_channels_per_group(), 3);
  EXPECT_EQ(g.output_shape(), Shape({3, 6, 4, 3}));
}

TEST(ConvGeometry, RejectsMismatchedConvShapes) {
  ConvAttributes a;
  std::string msg = ErrorOf([&] { ResolveConvGeometry(a, {1, 3, 5, 5}, {2, 2, 3, 3}); });
  EXPECT_NE(msg.find("input 'x' has 3 channels"), std::string::npos) << msg;
  a.group = 2;
  msg = ErrorOf([&] { ResolveConvGeometry(a, {1, 4, 5, 5}, {3, 2, 3, 3}); });
  EXPECT_NE(msg.find("not divisible by group 2"), std::string::npos) << msg;
  a.group = 1;
  msg = ErrorOf([&] { ResolveConvGeometry(a, {1, 2, 5, 5}, {3, 2, 3}); });
  EXPECT_NE(msg.find("input 'w'"), std::string::npos) << msg;
  msg = ErrorOf([&] { ResolveConvGeometry(a, {1, 2}, {3, 2}); });
  EXPECT_NE(msg.find("input 'x'"), std::string::npos) << msg;
  a.kernel_shape = {3, 2};
  msg = ErrorOf([&] { ResolveConvGeometry(a, {1, 2, 5, 5}, {3, 2, 3, 3}); });
  EXPECT_NE(msg.find("'kernel_shape'"), std::string::npos) << msg;
  a.kernel_shape.clear();
  a.group = 0;
  msg = ErrorOf([&] { ResolveConvGeometry(a, {1, 2, 5, 5}, {3, 2, 3, 3}); });
  EXPECT_NE(msg.find("'group'"), std::string::npos) << msg;
}

TEST(ConvGeometry, TransposeOutputFromPadsAndOutputPadding) {
  // test_convtranspose: 3x3, k3 -> 5x5. test_convtranspose_pads: strides [3, 2], pads [1, 2, 1, 2]:
  // 3 * 2 + 3 - 2 = 7, 2 * 2 + 3 - 4 = 3. test_convtranspose_pad: output_padding [1, 1] -> 10x8.
  EXPECT_EQ(ResolveTransposeWindow(Attrs(AutoPad::kNotSet), {3, 3}, {3, 3}, {}, {}).output, V({5, 5}));
  EXPECT_EQ(ResolveTransposeWindow(Attrs(AutoPad::kNotSet, {3, 2}, {}, {1, 2, 1, 2}), {3, 3}, {3, 3}, {}, {}).output,
            V({7, 3}));
  EXPECT_EQ(ResolveTransposeWindow(Attrs(AutoPad::kNotSet, {3, 2}), {3, 3}, {3, 3}, {1, 1}, {}).output, V({10, 8}));
  // test_convtranspose_dilations: 3x3, k2, dilations 2 -> 2 + 3 = 5.
  EXPECT_EQ(ResolveTransposeWindow(Attrs(AutoPad::kNotSet, {}, {2, 2}), {3, 3}, {2, 2}, {}, {}).output, V({5, 5}));
}

TEST(ConvGeometry, TransposeOutputShapeDerivesPads) {
  // test_convtranspose_output_shape: strides [3, 2], output_shape [10, 8]: the full results are
  // 3*2+3 = 9 and 2*2+3 = 7, so nothing is cropped (total -1 is clamped to 0) and the outputs are
  // one longer than the full result.
  const SlidingWindow w = ResolveTransposeWindow(Attrs(AutoPad::kNotSet, {3, 2}), {3, 3}, {3, 3}, {}, {10, 8});
  EXPECT_EQ(w.output, V({10, 8}));
  EXPECT_EQ(w.pads_begin, V({0, 0}));
  EXPECT_EQ(w.pads_end, V({0, 0}));
  // output_shape [1, 2, 7, 5] (with N and C) crops 9x7 by 2 on each axis: 1 at each end.
  const SlidingWindow v = ResolveTransposeWindow(Attrs(AutoPad::kNotSet, {3, 2}), {3, 3}, {3, 3}, {}, {1, 2, 7, 5});
  EXPECT_EQ(v.output, V({7, 5}));
  EXPECT_EQ(v.pads_begin, V({1, 1}));
  EXPECT_EQ(v.pads_end, V({1, 1}));
  // An odd total (output 8): NOTSET puts the extra crop at the beginning, SAME_UPPER at the end.
  EXPECT_EQ(ResolveTransposeWindow(Attrs(AutoPad::kNotSet, {3}), {3}, {3}, {}, {8}).pads_begin, V({1}));
  EXPECT_EQ(ResolveTransposeWindow(Attrs(AutoPad::kSameUpper, {3}), {3}, {3}, {}, {8}).pads_begin, V({0}));
}

TEST(ConvGeometry, TransposeSameUpperPadsTheEnd) {
  // test_convtranspose_autopad_same: 3x3, k3, strides 2, SAME_UPPER: output 6, total 2*2 + 3 - 6 = 1,
  // cropped at the end (the backend data equals the full 7x7 result's top-left 6x6).
  const SlidingWindow w = ResolveTransposeWindow(Attrs(AutoPad::kSameUpper, {2, 2}), {3, 3}, {3, 3}, {}, {});
  EXPECT_EQ(w.output, V({6, 6}));
  EXPECT_EQ(w.pads_begin, V({0, 0}));
  EXPECT_EQ(w.pads_end, V({1, 1}));
  const SlidingWindow v = ResolveTransposeWindow(Attrs(AutoPad::kSameLower, {2, 2}), {3, 3}, {3, 3}, {}, {});
  EXPECT_EQ(v.pads_begin, V({1, 1}));
  EXPECT_EQ(v.pads_end, V({0, 0}));
}

}  // namespace
}  // namespace ptq
