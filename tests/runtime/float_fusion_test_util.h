// What the tests of the float pattern fusions share: inputs with special values among them, and the check that a
// session with its patterns fused gives the bits of the nodes run one by one.
#pragma once

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "runtime/session.h"

namespace ptq {
namespace testing {

// Normal values of spread 4 with NaN, infinities, signed zero, a subnormal and a huge value among them.
inline Tensor Values(std::mt19937& rng, Shape shape) {
  Tensor t(DataType::kFloat, std::move(shape));
  std::normal_distribution<float> d(0.0f, 4.0f);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.size(); ++i) p[i] = d(rng);
  const float special[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), -0.0f, 0.0f, 1e-40f, -3e38f, 3.0f, -3.0f};
  for (int64_t k = 0; k < 9 * 7; ++k) p[(k * 7919) % t.size()] = special[k % 9];
  return t;
}

// Whether float32 tensors a and b (same shape) hold the same bytes, or, with any_nan, the same bytes but where both
// hold a NaN, whatever its sign and payload.
inline bool SameFloatBits(const Tensor& a, const Tensor& b, bool any_nan) {
  if (std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0) return true;
  if (!any_nan || a.dtype() != DataType::kFloat) return false;
  for (int64_t i = 0; i < a.size(); ++i) {
    const float u = a.data<float>()[i], v = b.data<float>()[i];
    if (std::memcmp(&u, &v, 4) != 0 && !(std::isnan(u) && std::isnan(v))) return false;
  }
  return true;
}

// Runs g with its float patterns fused and with them left as nodes (QDQ groups fused in both), channels last and
// first, on one and two threads: the same types, shapes and bytes (with any_nan, NaNs of any sign and payload where
// the nodes give NaNs). `check` (when set) sees each fused session and the op-by-op outputs.
using SessionCheck = std::function<void(const Session& fused, bool channels_last, const std::vector<Tensor>& want)>;
inline void ExpectSameBits(const std::shared_ptr<const Graph>& g, const std::map<std::string, Tensor>& feeds,
                           const SessionCheck& check = nullptr, bool any_nan = false) {
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    for (bool channels_last : {true, false}) {
      SessionOptions fused, plain;
      fused.literal_qdq = plain.literal_qdq = false;
      fused.channels_last = plain.channels_last = channels_last;
      plain.fuse_float_patterns = false;
      Session f(g, fused), p(g, plain);
      const std::vector<Tensor> got = f.Run(feeds), want = p.Run(feeds);
      ASSERT_EQ(got.size(), want.size());
      for (size_t o = 0; o < want.size(); ++o) {
        ASSERT_EQ(got[o].dtype(), want[o].dtype()) << g->outputs[o].name;
        ASSERT_EQ(got[o].shape(), want[o].shape()) << g->outputs[o].name;
        EXPECT_TRUE(SameFloatBits(got[o], want[o], any_nan))
            << g->outputs[o].name << (channels_last ? ", channels last" : ", channels first") << ", threads "
            << threads;
      }
      if (check) check(f, channels_last, want);
    }
  }
  omp_set_num_threads(saved);
}

}  // namespace testing
}  // namespace ptq
