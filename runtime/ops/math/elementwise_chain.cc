// ElementwiseChain kernel: blocks of X through the chain's steps (and QuantizeLinear) on the session's threads.
#include "runtime/ops/math/elementwise_chain.h"

#include <algorithm>

#include "runtime/error.h"
#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/quantization/quantize_linear.h"

namespace ptq {
namespace {

constexpr const char* kOpNames[] = {"Add", "Sub", "Mul", "Div", "Clip", "Relu"};
constexpr int64_t kQuantizeBlock = 1024;  // floats of the buffer a block goes through before it is quantized

class ElementwiseChainKernel final : public Kernel {
 public:
  explicit ElementwiseChainKernel(const KernelInit& init)
      : chain_(ElementwiseChainSteps(*init.attrs, init.node_name)), rank_(init.attrs->GetInt("rank", 0)) {
    PTQ_ENFORCE(init.num_inputs == 1 || init.num_inputs == 3, "ElementwiseChain '", init.node_name,
                "': expected 1 or 3 inputs, got ", init.num_inputs);
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    PTQ_ENFORCE(x.dtype() == DataType::kFloat, "ElementwiseChain: input 'X' must be float32, got ",
                DataTypeName(x.dtype()));
    Shape shape = x.shape();
    while (static_cast<int64_t>(shape.size()) < rank_) shape.insert(shape.begin(), 1);
    const int64_t n = x.size();
    const float* in = x.data<float>();
    const int threads = ElementwiseThreads(n);
    if (ctx.input(1) == nullptr) {
      Tensor y = Tensor::Uninitialized(DataType::kFloat, shape);
      float* out = y.data<float>();
      ForEachChunk(n, kQuantizeBlock, threads,
                   [&](int64_t b, int64_t e) { chain_.Run(in + b, out + b, e - b); });
      ctx.outputs[0] = std::move(y);
      return;
    }
    const Quantize8 q = ReadQuantize8(ctx.required_input(1), ctx.required_input(2), "ElementwiseChain");
    Tensor y = Tensor::Uninitialized(q.type, shape);
    auto* out = static_cast<uint8_t*>(y.raw());
    ForEachChunk(n, kQuantizeBlock, threads, [&](int64_t b, int64_t e) {
      float block[kQuantizeBlock];
      for (int64_t s = b; s < e; s += kQuantizeBlock) {
        const int64_t len = std::min(kQuantizeBlock, e - s);
        chain_.Run(in + s, block, len);
        QuantizeRun8(block, len, q, out + s);
      }
    });
    ctx.outputs[0] = std::move(y);
  }

 private:
  ChainF32 chain_;
  int64_t rank_;
};

}  // namespace

std::unique_ptr<Kernel> MakeElementwiseChain(const KernelInit& init) {
  return MakeKernel<ElementwiseChainKernel>(init);
}

Attributes ElementwiseChainAttributes(const std::vector<ChainStep>& steps, int64_t rank,
                                      const std::string& prefix) {
  AttributeValue ops, operands, constants, r;
  ops.kind = AttributeValue::Kind::kStrings;
  operands.kind = AttributeValue::Kind::kInts;
  constants.kind = AttributeValue::Kind::kFloats;
  r.kind = AttributeValue::Kind::kInt;
  for (const ChainStep& s : steps) {
    ops.strings.push_back(kOpNames[static_cast<int>(s.op)]);
    operands.ints.insert(operands.ints.end(), {s.a, s.b});
    constants.floats.insert(constants.floats.end(), {s.ca, s.cb});
  }
  r.i = rank;
  Attributes attrs;
  attrs.Set(prefix + "ops", std::move(ops));
  attrs.Set(prefix + "operands", std::move(operands));
  attrs.Set(prefix + "constants", std::move(constants));
  attrs.Set(prefix + "rank", std::move(r));
  return attrs;
}

std::vector<ChainStep> ElementwiseChainSteps(const Attributes& attrs, const std::string& node,
                                             const std::string& prefix) {
  const std::vector<std::string> ops = attrs.GetStrings(prefix + "ops");
  const std::vector<int64_t> operands = attrs.GetInts(prefix + "operands");
  const std::vector<float> constants = attrs.GetFloats(prefix + "constants");
  PTQ_ENFORCE(!ops.empty() && ops.size() <= static_cast<size_t>(kMaxChainSteps), "ElementwiseChain '", node,
              "': attribute 'ops' must hold 1 to ", kMaxChainSteps, " steps, got ", ops.size());
  PTQ_ENFORCE(operands.size() == 2 * ops.size() && constants.size() == 2 * ops.size(), "ElementwiseChain '", node,
              "': attributes 'operands' and 'constants' must hold two values a step (", 2 * ops.size(), "), got ",
              operands.size(), " and ", constants.size());
  const int64_t rank = attrs.GetInt(prefix + "rank", 0);
  PTQ_ENFORCE(rank == 0 || rank == 1, "ElementwiseChain '", node, "': attribute 'rank' must be 0 or 1, got ", rank);
  std::vector<ChainStep> steps(ops.size());
  for (size_t k = 0; k < ops.size(); ++k) {
    ChainStep& s = steps[k];
    const auto* name = std::find(std::begin(kOpNames), std::end(kOpNames), ops[k]);
    PTQ_ENFORCE(name != std::end(kOpNames), "ElementwiseChain '", node, "': step ", k, " has unknown op '", ops[k],
                "'");
    s.op = static_cast<ChainOp>(name - std::begin(kOpNames));
    const bool binary = s.op != ChainOp::kClip && s.op != ChainOp::kRelu;
    for (int i = 0; i < 2; ++i) {
      const int64_t reg = operands[2 * k + i];
      const bool used = i == 0 || binary;
      const bool ok = !used ? reg == kChainConstant
                            : (reg >= 0 && reg <= static_cast<int64_t>(k)) || (reg == kChainConstant && binary);
      PTQ_ENFORCE(ok, "ElementwiseChain '", node, "': step ", k, " (", ops[k], ") has operand ", reg,
                  "; expected a register of 0 to ", k, binary ? " or -1 (its constant)" : "",
                  used ? "" : " (-1: unused)");
    }
    s.a = static_cast<int>(operands[2 * k]);
    s.b = static_cast<int>(operands[2 * k + 1]);
    PTQ_ENFORCE(!(s.a == kChainConstant && s.b == kChainConstant), "ElementwiseChain '", node, "': step ", k,
                " has two constant operands");
    s.ca = constants[2 * k];
    s.cb = constants[2 * k + 1];
  }
  return steps;
}

}  // namespace ptq
