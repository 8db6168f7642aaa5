// Tests of Transpose: the attention permutation, the default reversal, and the fast strided copy
// against a plain per-element reference for every element size and on several threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/shape_util.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntsAttr;
using testing::RunOp;
using testing::ToVector;

// Reference: out[idx] = in[idx permuted back], one element at a time via div/mod.
template <class T>
std::vector<T> NaiveTranspose(const std::vector<T>& in, const Shape& in_shape, const std::vector<int64_t>& perm) {
  const std::vector<int64_t> in_strides = Strides(in_shape);
  Shape out_shape(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) out_shape[k] = in_shape[static_cast<size_t>(perm[k])];
  std::vector<T> out(in.size());
  for (int64_t i = 0; i < static_cast<int64_t>(out.size()); ++i) {
    int64_t rest = i, src = 0;
    for (size_t k = perm.size(); k-- > 0;) {
      src += (rest % out_shape[k]) * in_strides[static_cast<size_t>(perm[k])];
      rest /= out_shape[k];
    }
    out[static_cast<size_t>(i)] = in[static_cast<size_t>(src)];
  }
  return out;
}

template <class T>
Tensor IotaTensor(const Shape& shape, DataType dtype) {
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.size(); ++i) t.data<T>()[i] = static_cast<T>(i * 7 + 3);
  return t;
}

Attributes Perm(std::vector<int64_t> perm) {
  Attributes a;
  a.Set("perm", IntsAttr(perm));
  return a;
}

// NCHW -> NHWC of t against the per-element reference.
template <class T>
void ExpectToChannelsLastMatchesTheReference(const Tensor& t) {
  EXPECT_EQ(ToVector<T>(RunOp("Transpose", 13, Perm({0, 2, 3, 1}), {t})[0]),
            NaiveTranspose(ToVector<T>(t), t.shape(), {0, 2, 3, 1}));
}

// numpy: arange(120).reshape(2, 3, 4, 5).transpose(0, 2, 1, 3), first 30 values.
TEST(TransposeOp, AttentionPermSwapsHeadsAndSequence) {
  std::vector<float> v(120);
  for (int i = 0; i < 120; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  std::vector<Tensor> y = RunOp("Transpose", 13, Perm({0, 2, 1, 3}), {Tensor::FromVector<float>({2, 3, 4, 5}, v)});
  EXPECT_EQ(y[0].shape(), (Shape{2, 4, 3, 5}));
  const std::vector<float> expected_head = {0,  1,  2,  3,  4,  20, 21, 22, 23, 24, 40, 41, 42, 43, 44,
                                            5,  6,  7,  8,  9,  25, 26, 27, 28, 29, 45, 46, 47, 48, 49};
  const std::vector<float> out = ToVector<float>(y[0]);
  EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 30), expected_head);
}

TEST(TransposeOp, DefaultPermReversesDimensions) {
  std::vector<Tensor> y =
      RunOp("Transpose", 1, Attributes(), {Tensor::FromVector<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(y[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
}

TEST(TransposeOp, MatchesReferenceForEveryElementSize) {
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
      {{67, 45}, {1, 0}},           {{3, 40, 37}, {2, 1, 0}},       {{2, 33, 5, 40}, {0, 3, 1, 2}},
      {{2, 5, 33, 40}, {0, 2, 1, 3}}, {{4, 1, 9, 70}, {3, 1, 2, 0}}, {{2, 3, 4, 5, 6}, {4, 2, 0, 3, 1}}, {{1, 5, 1, 7}, {2, 0, 3, 1}},
      // Block swaps (batched 2-D transposes): NCHW -> NHWC with 16 x 16 byte blocks and borders, and back.
      {{2, 24, 17, 19}, {0, 2, 3, 1}}, {{3, 17, 19, 24}, {0, 3, 1, 2}}, {{3, 8, 40}, {1, 2, 0}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(ShapeToString(c.first) + " perm " + ShapeToString(c.second));
    Tensor b(DataType::kBool, c.first);
    for (int64_t i = 0; i < b.size(); ++i) b.data<bool>()[i] = (i % 3) == 0;
    Tensor h = IotaTensor<uint16_t>(c.first, DataType::kFloat16);
    Tensor f = IotaTensor<float>(c.first, DataType::kFloat);
    Tensor l = IotaTensor<int64_t>(c.first, DataType::kInt64);
    EXPECT_EQ(ToVector<bool>(RunOp("Transpose", 13, Perm(c.second), {b})[0]),
              NaiveTranspose(ToVector<bool>(b), c.first, c.second));
    EXPECT_EQ(ToVector<uint16_t>(RunOp("Transpose", 13, Perm(c.second), {h})[0]),
              NaiveTranspose(ToVector<uint16_t>(h), c.first, c.second));
    EXPECT_EQ(ToVector<float>(RunOp("Transpose", 13, Perm(c.second), {f})[0]),
              NaiveTranspose(ToVector<float>(f), c.first, c.second));
    EXPECT_EQ(ToVector<int64_t>(RunOp("Transpose", 13, Perm(c.second), {l})[0]),
              NaiveTranspose(ToVector<int64_t>(l), c.first, c.second));
  }
}

// Images of 1 to 9 planes to channels last: up to 8 planes (a [planes, 35] matrix per image) take the loop
// unrolled per plane count, 9 the tile loops; 2-, 4- and 8-byte elements.
TEST(TransposeOp, FewPlanesToChannelsLastMatchTheReference) {
  for (int64_t planes = 1; planes <= 9; ++planes) {
    const Shape s = {2, planes, 5, 7};
    SCOPED_TRACE(ShapeToString(s));
    ExpectToChannelsLastMatchesTheReference<uint16_t>(IotaTensor<uint16_t>(s, DataType::kFloat16));
    ExpectToChannelsLastMatchesTheReference<float>(IotaTensor<float>(s, DataType::kFloat));
    ExpectToChannelsLastMatchesTheReference<int64_t>(IotaTensor<int64_t>(s, DataType::kInt64));
  }
}

// A batch of images large enough to be shared between threads converts to channels last the same way on
// 1 and 3 threads.
TEST(TransposeOp, BatchesSharedBetweenThreadsMatchTheReference) {
  const Shape shape = {5, 3, 71, 67};  // 71355 elements: above the threshold for sharing
  const Tensor f = IotaTensor<float>(shape, DataType::kFloat);
  const std::vector<float> want = NaiveTranspose(ToVector<float>(f), shape, {0, 2, 3, 1});
  const int saved = omp_get_max_threads();
  for (int threads : {1, 3}) {
    omp_set_num_threads(threads);
    EXPECT_EQ(ToVector<float>(RunOp("Transpose", 13, Perm({0, 2, 3, 1}), {f})[0]), want) << threads << " threads";
  }
  omp_set_num_threads(saved);
}

// One image large enough to be shared between threads (by blocks of its columns: 2000 each on 3 threads,
// so blocks end inside the 32 x 32 tiles) converts to channels last the same way on 1 and 3 threads, for
// 1-, 2-, 4- and 8-byte elements; 20 planes of bytes also go through the 16 x 16 byte blocks, from
// columns that are no multiple of 16 (305 a block), and 3 planes of bytes through the three-row shuffles (on
// AVX2 CPUs; blocks of 2000 columns, and the 600 of the small shape, end inside a block of 16).
TEST(TransposeOp, ALoneImageSharedBetweenThreadsByColumnsMatchesTheReference) {
  const Shape shape = {1, 3, 200, 3};  // a [3, 600] matrix: too small to share
  const Shape large = {1, 3, 200, 120};  // a [3, 24000] matrix of 72000 elements: above the threshold
  const Shape deep = {1, 20, 60, 61};    // a [20, 3660] matrix of 73200 elements
  const int saved = omp_get_max_threads();
  for (const Shape& s : {shape, large, deep}) {
    const Tensor h = IotaTensor<uint16_t>(s, DataType::kFloat16);
    const Tensor f = IotaTensor<float>(s, DataType::kFloat);
    const Tensor l = IotaTensor<int64_t>(s, DataType::kInt64);
    Tensor b(DataType::kUint8, s);
    for (int64_t i = 0; i < b.size(); ++i) b.data<uint8_t>()[i] = static_cast<uint8_t>(i * 7);
    for (int threads : {1, 3}) {
      omp_set_num_threads(threads);
      SCOPED_TRACE(ShapeToString(s) + ", " + std::to_string(threads) + " threads");
      ExpectToChannelsLastMatchesTheReference<uint16_t>(h);
      ExpectToChannelsLastMatchesTheReference<float>(f);
      ExpectToChannelsLastMatchesTheReference<int64_t>(l);
      ExpectToChannelsLastMatchesTheReference<uint8_t>(b);
    }
  }
  omp_set_num_threads(saved);
}

TEST(TransposeOp, RejectsPermThatIsNotAPermutation) {
  Tensor x(DataType::kFloat, {2, 3});
  EXPECT_THROW(RunOp("Transpose", 13, Perm({0, 0}), {x}), Error);
  EXPECT_THROW(RunOp("Transpose", 13, Perm({0, 1, 2}), {x}), Error);
}

}  // namespace
}  // namespace ptq
