// Tests of the Pow kernel: mixed base and exponent types.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/runtime/ops/elementwise_test_util.h"

namespace ptq {
namespace {

using testing::Floats;
using testing::RunOne;
using testing::ToVector;

TEST(ElementwisePowTest, IntegerExponentTensor) {
  const Tensor x = Floats({4}, {2.0f, -3.0f, 0.5f, 10.0f});
  const Tensor e = Tensor::FromVector<int64_t>({4}, {3, 2, -2, 0});
  const Tensor z = RunOne("Pow", 15, {x, e});
  ASSERT_EQ(z.dtype(), DataType::kFloat);
  EXPECT_EQ(ToVector<float>(z), (std::vector<float>{8.0f, 9.0f, 4.0f, 1.0f}));
}

TEST(ElementwisePowTest, IntegerBaseIsExact) {
  const Tensor x = Tensor::FromVector<int64_t>({4}, {3, -2, 2, 7});
  const Tensor e = Tensor::FromVector<int64_t>({4}, {39, 5, -1, 0});
  // 3^39 = 4052555153018976267 is exact in int64 but not in double.
  EXPECT_EQ(ToVector<int64_t>(RunOne("Pow", 15, {x, e})), (std::vector<int64_t>{4052555153018976267LL, -32, 0, 1}));
  const Tensor f = RunOne("Pow", 15, {Tensor::FromVector<int32_t>({2}, {4, 2}), Floats({2}, {0.5f, 3.0f})});
  EXPECT_EQ(ToVector<int32_t>(f), (std::vector<int32_t>{2, 8}));
}

}  // namespace
}  // namespace ptq
