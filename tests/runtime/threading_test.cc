// InParallelRegion is true inside every OpenMP parallel region, active or not (where omp_in_parallel() is
// false), so that kernels called from a one-thread region keep to that thread instead of starting a team.
#include "runtime/threading.h"

#include <gtest/gtest.h>
#include <omp.h>

namespace ptq {
namespace {

TEST(Threading, InParallelRegionHoldsInActiveAndInactiveRegions) {
  EXPECT_FALSE(InParallelRegion());
  bool one_thread = false, one_thread_omp = true;
  const int one = 1;
#pragma omp parallel num_threads(one)
  {
    one_thread = InParallelRegion();
    one_thread_omp = omp_in_parallel() != 0;
  }
  EXPECT_TRUE(one_thread);
  EXPECT_FALSE(one_thread_omp) << "omp_in_parallel() alone would let a kernel start a nested team here";
  bool switched_off = false;
  const bool never = omp_get_max_threads() < 0;
#pragma omp parallel if (never)
  switched_off = InParallelRegion();
  EXPECT_TRUE(switched_off);
  int inside = 0, members = 0;
#pragma omp parallel num_threads(2) reduction(+ : inside, members)
  {
    inside += InParallelRegion() ? 1 : 0;
    members += 1;
  }
  EXPECT_EQ(inside, members);
  EXPECT_FALSE(InParallelRegion());
}

}  // namespace
}  // namespace ptq
