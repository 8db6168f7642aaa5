// Tests of ScatterND, ScatterElements and Scatter: negative indices, duplicate indices with and
// without reduction, empty index sets, the opset gate of 'reduction', and input errors.
#include <gtest/gtest.h>

#include "tests/error_of.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::IntAttr;
using testing::RunOp;
using testing::StringAttr;
using testing::ToVector;

Attributes Reduction(const std::string& r) {
  Attributes a;
  a.Set("reduction", StringAttr(r));
  return a;
}

Tensor Data4() { return Tensor::FromVector<float>({4}, {1, 2, 3, 4}); }

// torch: x = [1, 2, 3, 4]; x[[-1, 0]] = [10, 20]  (exported as ScatterND with k = 1)
TEST(ScatterNDOp, NegativeIndicesCountFromTheEnd) {
  const auto y =
      RunOp("ScatterND", 13, Attributes(),
            {Data4(), Tensor::FromVector<int64_t>({2, 1}, {-1, 0}), Tensor::FromVector<float>({2}, {10, 20})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{20, 2, 3, 10}));
}

TEST(ScatterNDOp, DuplicateIndicesAccumulateWithAddAndMul) {
  const Tensor idx = Tensor::FromVector<int64_t>({3, 1}, {1, 1, -3});  // -3 is also index 1
  const Tensor upd = Tensor::FromVector<float>({3}, {10, 20, 30});
  EXPECT_EQ(ToVector<float>(RunOp("ScatterND", 16, Reduction("add"), {Data4(), idx, upd})[0]),
            (std::vector<float>{1, 62, 3, 4}));
  EXPECT_EQ(ToVector<float>(RunOp("ScatterND", 16, Reduction("mul"), {Data4(), idx, upd})[0]),
            (std::vector<float>{1, 12000, 3, 4}));
  EXPECT_EQ(ToVector<float>(RunOp("ScatterND", 18, Reduction("max"), {Data4(), idx, upd})[0]),
            (std::vector<float>{1, 30, 3, 4}));
  EXPECT_EQ(ToVector<float>(RunOp("ScatterND", 18, Reduction("min"), {Data4(), idx, upd})[0]),
            (std::vector<float>{1, 2, 3, 4}));
  // Without reduction the updates are applied in order: the last duplicate wins.
  EXPECT_EQ(ToVector<float>(RunOp("ScatterND", 13, Attributes(), {Data4(), idx, upd})[0]),
            (std::vector<float>{1, 30, 3, 4}));
}

TEST(ScatterNDOp, IntegerAddWrapsInsteadOfOverflowing) {
  const auto y = RunOp("ScatterND", 16, Reduction("add"),
                       {Tensor::FromVector<int32_t>({1}, {2147483647}), Tensor::FromVector<int64_t>({1, 1}, {0}),
                        Tensor::FromVector<int32_t>({1}, {1})});
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{-2147483647 - 1}));
}

// Rows of a 2-D tensor (k = 1 < rank): each index tuple addresses a whole row.
TEST(ScatterNDOp, ReplacesSlices) {
  const auto y = RunOp("ScatterND", 13, Attributes(),
                       {Tensor::FromVector<int64_t>({3, 2}, {0, 1, 2, 3, 4, 5}),
                        Tensor::FromVector<int64_t>({1, 1}, {2}), Tensor::FromVector<int64_t>({1, 2}, {8, 9})});
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{0, 1, 2, 3, 8, 9}));
}

TEST(ScatterNDOp, NoIndexTuplesCopiesData) {
  const auto y =
      RunOp("ScatterND", 13, Attributes(), {Data4(), Tensor(DataType::kInt64, {0, 1}), Tensor(DataType::kFloat, {0})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 2, 3, 4}));
}

TEST(ScatterNDOp, InputErrors) {
  const Tensor upd = Tensor::FromVector<float>({1}, {5});
  EXPECT_NE(ErrorOf([&] {
              RunOp("ScatterND", 13, Attributes(), {Data4(), Tensor::FromVector<int64_t>({1, 1}, {4}), upd});
            }).find("index 4 in input 'indices' is out of range for axis 0"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              RunOp("ScatterND", 13, Attributes(), {Data4(), Tensor::FromVector<int64_t>({1, 1}, {-5}), upd});
            }),
            "");
  EXPECT_NE(ErrorOf([&] {
              RunOp("ScatterND", 13, Attributes(),
                    {Data4(), Tensor::FromVector<int64_t>({1, 1}, {0}), Tensor::FromVector<float>({2}, {5, 6})});
            }).find("'updates' has shape [2]"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              RunOp("ScatterND", 13, Attributes(), {Data4(), Tensor::FromVector<int64_t>({1, 2}, {0, 0}), upd});
            }),
            "");
  EXPECT_NE(ErrorOf([&] {
              RunOp("ScatterND", 13, Reduction("add"), {Data4(), Tensor::FromVector<int64_t>({1, 1}, {0}), upd});
            }).find("needs opset 16"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              RunOp("ScatterND", 18, Reduction("sum"), {Data4(), Tensor::FromVector<int64_t>({1, 1}, {0}), upd});
            }),
            "");
  EXPECT_NE(ErrorOf([&] {
              RunOp("ScatterND", 16, Reduction("add"),
                    {Tensor::FromVector<bool>({1}, {true}), Tensor::FromVector<int64_t>({1, 1}, {0}),
                     Tensor::FromVector<bool>({1}, {true})});
            }),
            "");
}

// ONNX spec example with axis 1 and a negative index: data [[1, 2, 3, 4, 5]], indices [[1, -2]] (= [1, 3]).
TEST(ScatterElementsOp, NegativeIndicesOnAxis1) {
  Attributes a;
  a.Set("axis", IntAttr(1));
  const auto y = RunOp("ScatterElements", 13, a,
                       {Tensor::FromVector<float>({1, 5}, {1, 2, 3, 4, 5}),
                        Tensor::FromVector<int64_t>({1, 2}, {1, -2}), Tensor::FromVector<float>({1, 2}, {1.1f, 2.1f})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 1.1f, 3, 2.1f, 5}));
}

TEST(ScatterElementsOp, DuplicateIndicesAddUp) {
  Attributes a = Reduction("add");
  a.Set("axis", IntAttr(1));
  const auto y = RunOp("ScatterElements", 16, a,
                       {Tensor::FromVector<float>({1, 5}, {1, 2, 3, 4, 5}), Tensor::FromVector<int32_t>({1, 2}, {1, 1}),
                        Tensor::FromVector<float>({1, 2}, {1.1f, 2.1f})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 2 + 1.1f + 2.1f, 3, 4, 5}));
}

// Indices smaller than data on a non-scatter axis: only the covered positions are written.
TEST(ScatterElementsOp, IndicesSmallerThanDataOnOtherAxes) {
  const auto y = RunOp("ScatterElements", 13, Attributes(),
                       {Tensor(DataType::kInt32, {3, 3}), Tensor::FromVector<int64_t>({2, 2}, {1, 0, 2, 1}),
                        Tensor::FromVector<int32_t>({2, 2}, {1, 2, 3, 4})});
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{0, 2, 0, 1, 4, 0, 3, 0, 0}));
}

TEST(ScatterElementsOp, EmptyIndicesCopyData) {
  const auto y = RunOp("ScatterElements", 13, Attributes(),
                       {Data4(), Tensor(DataType::kInt64, {0}), Tensor(DataType::kFloat, {0})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 2, 3, 4}));
}

TEST(ScatterElementsOp, InputErrors) {
  const Tensor upd = Tensor::FromVector<float>({1}, {5});
  EXPECT_NE(ErrorOf([&] {
              RunOp("ScatterElements", 13, Attributes(), {Data4(), Tensor::FromVector<int64_t>({1}, {4}), upd});
            }).find("out of range for axis 0 of size 4"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              RunOp("ScatterElements", 13, Attributes(),
                    {Data4(), Tensor::FromVector<int64_t>({2}, {0, 1}), Tensor::FromVector<float>({1}, {5})});
            }),
            "");
  EXPECT_NE(ErrorOf([&] {
              RunOp("ScatterElements", 13, Attributes(),
                    {Tensor(DataType::kFloat, {2, 2}), Tensor::FromVector<int64_t>({1, 3}, {0, 0, 0}),
                     Tensor(DataType::kFloat, {1, 3})});
            }).find("larger than 'data'"),
            std::string::npos);
}

TEST(ScatterOp, Opset9IsScatterElementsWithoutReduction) {
  const auto y = RunOp("Scatter", 9, Attributes(),
                       {Data4(), Tensor::FromVector<int64_t>({2}, {3, 3}), Tensor::FromVector<float>({2}, {7, 8})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 2, 3, 8}));
}

}  // namespace
}  // namespace ptq
