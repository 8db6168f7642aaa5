// AddQuantizeLinear / MulQuantizeLinear: combine a block of outputs into a float buffer, quantize the block.
#include "runtime/ops/quantization/binary_quantize_linear.h"

#include <algorithm>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/quantization/quantize_linear.h"
#include "runtime/ops/quantization/quantize_linear_rows.h"
#include "runtime/quant_math.h"

namespace ptq {
namespace {

constexpr int64_t kBlock = 1024;  // floats of the buffer each block of outputs goes through (4 KiB, in L1)

// y = quantize(block) for one block of float outputs, into 8-bit y of type y_type.
void QuantizeBlock(const float* block, int64_t n, const QuantizeRunParams& q, DataType y_type, void* y, bool avx2) {
  if (y_type == DataType::kInt8) {
    QuantizeRun(block, n, q, static_cast<int8_t*>(y), avx2);
  } else {
    QuantizeRun(block, n, q, static_cast<uint8_t*>(y), avx2);
  }
}

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
    PTQ_ENFORCE(scale.dtype() == DataType::kFloat && scale.size() == 1, op_type_, ": y_scale must be one float32");
    const DataType y_type = zero_point.dtype();
    PTQ_ENFORCE((y_type == DataType::kInt8 || y_type == DataType::kUint8) && zero_point.size() == 1, op_type_,
                ": y_zero_point must be one uint8 or int8");
    if (a.dtype() != DataType::kFloat) {  // int32, float16, ...: the literal nodes, with their checks
      QuantizeLinearAttrs attrs;
      attrs.opset = opset_;
      DispatchType<kNumericTypes>(a.dtype(), op_type_, "A", [&](auto e) {
        using E = decltype(e);
        ctx.outputs[0] = QuantizeLinear(BroadcastBinary<E, E, E>(a, b, Op{}), scale, &zero_point, attrs);
      });
      return;
    }
    const QuantRange range = QuantRangeOf(y_type);
    const QuantizeRunParams q = MakeQuantizeRunParams(scale.data<float>()[0],
                                                      static_cast<int32_t>(zero_point.GetAsDouble(0)), range.qmin,
                                                      range.qmax);
    const BroadcastPlan p = PlanBroadcast({&a.shape(), &b.shape()});
    Tensor y = Tensor::Uninitialized(y_type, p.out_shape);
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    auto* out = static_cast<uint8_t*>(y.raw());
    const bool avx2 = UseAvx2Clone<float, float>();
    const int64_t sa = p.inner_step[0], sb = p.inner_step[1], n = p.inner;
    using F = Elem<DataType::kFloat>;
    if (n >= kBlock / 2) {  // long runs, pieces of them shared between threads: a block at a time
      ForEachRun(p, [&](const int64_t* off, int64_t out_off, int64_t len) {
        float block[kBlock];
        for (int64_t start = 0; start < len; start += kBlock) {
          const int64_t m = std::min(kBlock, len - start);
          BinaryRun<F, F, F>(pa + off[0] + start * sa, sa, pb + off[1] + start * sb, sb, block, m, Op{});
          QuantizeBlock(block, m, q, y_type, out + out_off + start, avx2);
        }
      });
    } else if (p.out_size > 0) {  // short runs (a per-channel scale over channels last): whole runs per block
      int64_t rows = 1;
      for (int64_t d : p.outer_dims) rows *= d;
      const int64_t per_block = kBlock / n;
      ForEachChunk(rows, per_block, ElementwiseThreads(p.out_size), [&](int64_t r0, int64_t r1) {
        float block[kBlock];
        ForEachRowSpan(p, r0, r1, [&](int64_t oa, int64_t ob, int64_t ra, int64_t rb, int64_t first, int64_t count) {
          for (int64_t r = 0; r < count; r += per_block) {
            const int64_t m = std::min(per_block, count - r);
            BinaryRows<F, F, F>(pa + oa + r * ra, ra, sa, pb + ob + r * rb, rb, sb, block, 0, m, n, Op{});
            QuantizeBlock(block, m * n, q, y_type, out + (first + r) * n, avx2);
          }
        });
      });
    }
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
