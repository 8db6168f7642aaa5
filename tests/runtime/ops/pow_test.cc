// Tests of the Pow kernel: mixed base and exponent types.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
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

// The x*x shortcut for a scalar exponent 2 must give std::pow's result bit for bit (x^2 is exact in
// double, so powf rounds it once, as x*x does), including NaN, Inf, -0, denormals and overflow.
TEST(ElementwisePowTest, SquareShortcutMatchesStdPow) {
  const std::vector<float> values = {0.0f, -0.0f, 1.5f, -3.25f, 1e-23f, -1e-40f, 3e19f, -2e20f,
                                     std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                                     0.1f, 123456.789f};
  const Tensor x = Floats({static_cast<int64_t>(values.size())}, values);
  for (const Tensor& e : {Floats({}, {2.0f}), Tensor::FromVector<int64_t>({1}, {2}),
                          Tensor::FromVector<double>({}, {2.0})}) {
    const std::vector<float> got = ToVector<float>(RunOne("Pow", 15, {x, e}));
    ASSERT_EQ(got.size(), values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      const float want = std::pow(values[i], 2.0f);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got[i])) << values[i];
      } else {
        EXPECT_EQ(got[i], want) << values[i];
      }
    }
  }
  // An exponent [1, 1] widens a rank-1 X: the result has rank 2, as broadcasting says.
  EXPECT_EQ(RunOne("Pow", 15, {Floats({2}, {3.0f, 4.0f}), Floats({1, 1}, {2.0f})}).shape(), (Shape{1, 2}));
}

}  // namespace
}  // namespace ptq
