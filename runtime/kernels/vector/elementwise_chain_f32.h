// RunChainF32: a chain of float32 element-wise steps (Add, Sub, Mul, Div, Clip, Relu) run block by block in L1,
// or, in PP-LCNetV3's form (affine, hard-swish, affine), all in registers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ptq {

enum class ChainOp : uint8_t { kAdd, kSub, kMul, kDiv, kClip, kRelu };

// An operand of a step: register 0 is the chain's input, register k the output of step k - 1; kChainConstant
// names the step's constant for that operand instead.
constexpr int kChainConstant = -1;
// The most steps a chain has (its registers of one block stay in L1: 32 x 1 KiB).
constexpr int kMaxChainSteps = 32;

// out = a + b, a - b, a * b, a / b; Clip: t = a < lo ? lo : a, then hi < t ? hi : t (lo = ca, hi = cb; a NaN
// stays NaN, as the Clip kernel); Relu: a < 0 ? 0 : a (the Relu kernel). b is unused by Clip and Relu.
struct ChainStep {
  ChainOp op = ChainOp::kAdd;
  int a = 0, b = 0;            // registers, or kChainConstant
  float ca = 0.0f, cb = 0.0f;  // the constants of a and b; Clip's bounds
};

// The chain Paddle2ONNX writes after PP-LCNetV3's convolutions (PP-OCRv4's detector and recogniser), and its parts:
// h = x * a + b (a folded BatchNormalization), h = h * clip(h + c, lo, hi) / d (hard-swish; or * d), then h * e + f
// (a learnable affine). `registers` when a chain is all of it, the affine alone or the hard-swish alone: each value
// then goes through every step in registers, one pass (8 passes over blocks in L1 took 0.5 ns a value, a fifth of
// the recogniser's int8 time).
struct AffineSwishForm {
  bool registers = false;
  bool pre = false, swish = false, divide = false, post = false;
  float pre_mul = 0, pre_add = 0, add = 0, lo = 0, hi = 0, scale = 0, post_mul = 0, post_add = 0;
};

// y[i] = the last step's value for x[i], for i < n; y may be x. Each step is one IEEE operation per value (no
// contraction), so the values have the bits of the nodes run one by one. AVX-512 or AVX2 loops when the CPU has
// them: the same operations. Works out the chain's form on every call; ChainF32 does it once.
void RunChainF32(const std::vector<ChainStep>& steps, const float* x, float* y, int64_t n);

// A chain with its form worked out once, for a kernel that runs it on every block of its outputs.
class ChainF32 {
 public:
  ChainF32() = default;
  explicit ChainF32(std::vector<ChainStep> steps);
  bool empty() const { return steps_.empty(); }
  size_t size() const { return steps_.size(); }
  // RunChainF32(the steps, x, y, n).
  void Run(const float* x, float* y, int64_t n) const;

 private:
  std::vector<ChainStep> steps_;
  AffineSwishForm form_;
};

}  // namespace ptq
