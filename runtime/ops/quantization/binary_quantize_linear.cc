// AddQuantizeLinear / MulQuantizeLinear: combine a block of outputs into a float buffer, quantize the block.
#include "runtime/ops/quantization/binary_quantize_linear.h"

#include <algorithm>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/quantization/quantize_linear.h"

namespace ptq {
namespace {

constexpr int64_t kBlock = 1024;  // floats of the buffer each block of outputs goes through (4 KiB, in L1)

template <class Op>
class BinaryQuantizeLinearKernel final : public Kernel {
 public:
  explicit BinaryQuantizeLinearKernel(const KernelInit& init)
      : op_type_(init.op_type), opset_(static_cast<int>(init.attrs->GetInt("opset", 21))) {}

  void Run(KernelContext& ctx) override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    const Tensor& scale = ctx.required_input(2);
    const Tensor& zero_point = ctx.required_input(3);
    PTQ_ENFORCE(a.dtype() == b.dtype(), op_type_, ": inputs 'A' and 'B' must have the same type, got ",
                DataTypeName(a.dtype()), " and ", DataTypeName(b.dtype()));
    const Quantize8 quantize = ReadQuantize8(scale, zero_point, op_type_);
    if (a.dtype() != DataType::kFloat) {  // int32, float16, ...: the literal nodes, with their checks
      QuantizeLinearAttrs attrs;
      attrs.opset = opset_;
      DispatchType<kNumericTypes>(a.dtype(), op_type_, "A", [&](auto e) {
        using E = decltype(e);
        ctx.outputs[0] = QuantizeLinear(BroadcastBinary<E, E, E>(a, b, Op{}), scale, &zero_point, attrs);
      });
      return;
    }
    const BroadcastPlan p = PlanBroadcast({&a.shape(), &b.shape()});
    Tensor y = Tensor::Uninitialized(quantize.type, p.out_shape);
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    auto* out = static_cast<uint8_t*>(y.raw());
    const int64_t sa = p.inner_step[0], sb = p.inner_step[1];
    using F = Elem<DataType::kFloat>;
    // Whole rows per block when they fit, else pieces of one row.
    ForEachBinarySpan(p, [&](int64_t oa, int64_t ra, int64_t ob, int64_t rb, int64_t at, int64_t rows, int64_t n) {
      float block[kBlock];
      const int64_t per_block = std::max<int64_t>(1, kBlock / n), piece = std::min(kBlock, n);
      for (int64_t r = 0; r < rows; r += per_block) {
        const int64_t m = std::min(per_block, rows - r);
        for (int64_t start = 0; start < n; start += piece) {
          const int64_t len = std::min(piece, n - start);
          BinaryRows<F, F, F>(pa + oa + r * ra + start * sa, ra, sa, pb + ob + r * rb + start * sb, rb, sb, block, 0,
                              m, len, Op{});
          QuantizeRun8(block, m * len, quantize, out + at + r * n + start);
        }
      }
    });
    ctx.outputs[0] = std::move(y);
  }

 private:
  std::string op_type_;
  int opset_;  // the QuantizeLinear's
};

// The op of Add / Mul (elementwise.h's clones give every float32 value the bits of a + b, a * b); integers wrap.
struct AddOp {
  template <class T>
  T operator()(T a, T b) const {
    return WrapAdd(a, b);
  }
};
struct MulOp {
  template <class T>
  T operator()(T a, T b) const {
    return WrapMul(a, b);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeAddQuantizeLinear(const KernelInit& init) {
  return MakeKernel<BinaryQuantizeLinearKernel<AddOp>>(init);
}
std::unique_ptr<Kernel> MakeMulQuantizeLinear(const KernelInit& init) {
  return MakeKernel<BinaryQuantizeLinearKernel<MulOp>>(init);
}

}  // namespace ptq
