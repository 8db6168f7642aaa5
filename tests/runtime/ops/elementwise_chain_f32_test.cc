// RunChainF32 gives every value the bits of its steps evaluated one by one (one IEEE operation each): hard-swish
// chains as Paddle2ONNX writes them (x + 3 or 3 + x, Clip, x * t or t * x, / 6 or * (1 / 6)), PP-LCNetV3's chain
// after its convolutions (a folded BatchNormalization, hard-swish, a learnable affine: 8 steps, run in registers)
// and others, near misses of that form among them, on special values (NaN, infinities, signed zeros, the clip's
// edges, subnormals), lengths around the blocks of 256 values, out of place and in place.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "runtime/kernels/vector/elementwise_chain_f32.h"

namespace ptq {
namespace {

// The steps evaluated on one value, as elementwise_chain_f32.h defines them.
float Reference(const std::vector<ChainStep>& steps, float x) {
  std::vector<float> r{x};
  for (const ChainStep& s : steps) {
    const float a = s.a == kChainConstant ? s.ca : r[static_cast<size_t>(s.a)];
    const float b = s.b == kChainConstant ? s.cb : s.op == ChainOp::kClip || s.op == ChainOp::kRelu
                                                       ? 0.0f
                                                       : r[static_cast<size_t>(s.b)];
    float v = 0.0f;
    switch (s.op) {
      case ChainOp::kAdd: v = a + b; break;
      case ChainOp::kSub: v = a - b; break;
      case ChainOp::kMul: v = a * b; break;
      case ChainOp::kDiv: v = a / b; break;
      case ChainOp::kClip: {
        const float t = a < s.ca ? s.ca : a;
        v = s.cb < t ? s.cb : t;
        break;
      }
      case ChainOp::kRelu: v = a < 0.0f ? 0.0f : a; break;
    }
    r.push_back(v);
  }
  return r.back();
}

ChainStep Step(ChainOp op, int a, int b, float ca = 0.0f, float cb = 0.0f) {
  ChainStep s;
  s.op = op;
  s.a = a;
  s.b = b;
  s.ca = ca;
  s.cb = cb;
  return s;
}

std::vector<float> Inputs(std::mt19937& rng, int64_t n) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float specials[] = {nan, inf, -inf, 0.0f, -0.0f, -3.0f, 3.0f, std::nextafter(-3.0f, 0.0f),
                            std::nextafter(-3.0f, -4.0f), 6.0f, std::nextafter(3.0f, 4.0f), 1e-40f, -1e-40f, 1e30f,
                            -1e30f};
  std::uniform_real_distribution<float> d(-8.0f, 8.0f);
  std::vector<float> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = i % 5 == 0 ? specials[(i / 5) % 15] : d(rng);
  return x;
}

TEST(ElementwiseChainF32, HardSwishAndOtherChainsHaveTheBitsOfTheirSteps) {
  constexpr int K = kChainConstant;
  std::vector<std::vector<ChainStep>> chains;
  for (int form = 0; form < 8; ++form) {  // operand orders, and / 6 or * (1 / 6)
    const bool constant_first = form & 1, t_first = form & 2, divide = !(form & 4);
    chains.push_back({constant_first ? Step(ChainOp::kAdd, K, 0, 3.0f) : Step(ChainOp::kAdd, 0, K, 0.0f, 3.0f),
                      Step(ChainOp::kClip, 1, K, 0.0f, 6.0f),
                      t_first ? Step(ChainOp::kMul, 2, 0) : Step(ChainOp::kMul, 0, 2),
                      Step(divide ? ChainOp::kDiv : ChainOp::kMul, 3, K, 0.0f, divide ? 6.0f : 1.0f / 6.0f)});
  }
  // Not hard-swish: a constant divided by the value, a Sub, a Relu and a step reading an older register.
  chains.push_back({Step(ChainOp::kAdd, 0, K, 0.0f, 3.0f), Step(ChainOp::kClip, 1, K, 0.0f, 6.0f),
                    Step(ChainOp::kMul, 0, 2), Step(ChainOp::kDiv, K, 3, 6.0f)});
  chains.push_back({Step(ChainOp::kSub, 0, K, 0.0f, 0.5f), Step(ChainOp::kRelu, 1, K), Step(ChainOp::kMul, 2, 1),
                    Step(ChainOp::kAdd, 3, 0)});
  // PP-OCRv4 rec's: a * x + b, hard-swish, c * t + d.
  chains.push_back({Step(ChainOp::kMul, K, 0, 1.38411f), Step(ChainOp::kAdd, 1, K, 0.0f, 0.586077f),
                    Step(ChainOp::kAdd, 2, K, 0.0f, 3.0f), Step(ChainOp::kClip, 3, K, 0.0f, 6.0f),
                    Step(ChainOp::kMul, 2, 4), Step(ChainOp::kDiv, 5, K, 0.0f, 6.0f),
                    Step(ChainOp::kMul, K, 6, 0.167519f), Step(ChainOp::kAdd, 7, K, 0.0f, 3.47004e-05f)});
  // PP-OCRv4 det's plain affine (c + a * x); the same steps with the Add reading x instead of the product, and an
  // affine whose hard-swish multiplies the clip by x rather than by the affine's value (not the fused forms).
  chains.push_back({Step(ChainOp::kMul, 0, K, 0.0f, 0.731f), Step(ChainOp::kAdd, K, 1, -0.25f)});
  chains.push_back({Step(ChainOp::kMul, 0, K, 0.0f, 0.731f), Step(ChainOp::kAdd, K, 0, -0.25f)});
  chains.push_back({Step(ChainOp::kMul, K, 0, 1.38411f), Step(ChainOp::kAdd, 1, K, 0.0f, 0.586077f),
                    Step(ChainOp::kAdd, 2, K, 0.0f, 3.0f), Step(ChainOp::kClip, 3, K, 0.0f, 6.0f),
                    Step(ChainOp::kMul, 0, 4), Step(ChainOp::kDiv, 5, K, 0.0f, 6.0f)});
  std::mt19937 rng(5);
  for (size_t c = 0; c < chains.size(); ++c) {
    for (int64_t n : {0, 1, 15, 16, 17, 63, 64, 65, 255, 256, 257, 600}) {
      const std::vector<float> x = Inputs(rng, n);
      std::vector<float> want(x.size()), got(x.size()), in_place = x;
      for (size_t i = 0; i < x.size(); ++i) want[i] = Reference(chains[c], x[i]);
      RunChainF32(chains[c], x.data(), got.data(), n);
      RunChainF32(chains[c], in_place.data(), in_place.data(), n);
      if (n == 0) continue;  // nothing written (and memcmp takes no null pointers)
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float))) << "chain " << c << ", n " << n;
      EXPECT_EQ(0, std::memcmp(in_place.data(), want.data(), want.size() * sizeof(float)))
          << "chain " << c << ", n " << n << ", in place";
    }
  }
}

}  // namespace
}  // namespace ptq
