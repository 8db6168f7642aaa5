// QLinearAdd / QLinearMul: dequantize a block of each input, combine, quantize the block.
#include "runtime/ops/quantization/qlinear_binary.h"

#include <algorithm>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/quantization/dequantize_linear_rows.h"
#include "runtime/ops/quantization/quantize_linear_rows.h"
#include "runtime/quant_math.h"

namespace ptq {
namespace {

bool Is8Bit(DataType t) { return t == DataType::kUint8 || t == DataType::kInt8; }

// One scalar scale / zero point pair, checked.
struct Param {
  float scale;
  int32_t zero_point;
};
Param ReadParam(const KernelContext& ctx, int scale, int zero_point, const char* name) {
  const Tensor& s = ctx.required_input(scale);
  const Tensor& z = ctx.required_input(zero_point);
  PTQ_ENFORCE(s.dtype() == DataType::kFloat && s.size() == 1, name, "_scale must be one float32");
  PTQ_ENFORCE(Is8Bit(z.dtype()) && z.size() == 1, name, "_zero_point must be one uint8 or int8");
  return {s.data<float>()[0], static_cast<int32_t>(z.GetAsDouble(0))};
}

// out[i] = DequantizeValue(x[i * step]) for i < n (step 0: one value repeated; only out[0] is written).
void Dequantize(const Tensor& x, int64_t offset, int64_t step, int64_t n, const Param& p, bool avx2, float* out) {
  if (step == 0) {
    out[0] = DequantizeValue(static_cast<int32_t>(x.GetAsDouble(offset)), p.scale, p.zero_point);
  } else if (x.dtype() == DataType::kInt8) {
    DequantizeRun(x.data<int8_t>() + offset, n, p.scale, p.zero_point, out, avx2);
  } else {
    DequantizeRun(x.data<uint8_t>() + offset, n, p.scale, p.zero_point, out, avx2);
  }
}

template <class Op>
class QLinearBinaryKernel final : public Kernel {
 public:
  explicit QLinearBinaryKernel(const KernelInit&) {}

  void Run(KernelContext& ctx) override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(3);
    PTQ_ENFORCE(Is8Bit(a.dtype()) && Is8Bit(b.dtype()), "inputs 'A' and 'B' must be uint8 or int8");
    const Param pa = ReadParam(ctx, 1, 2, "A"), pb = ReadParam(ctx, 4, 5, "B"), pc = ReadParam(ctx, 6, 7, "C");
    const DataType c_type = ctx.required_input(7).dtype();
    const QuantRange r = QuantRangeOf(c_type);
    const QuantizeRunParams q = MakeQuantizeRunParams(pc.scale, pc.zero_point, r.qmin, r.qmax);
    const BroadcastPlan plan = PlanBroadcast({&a.shape(), &b.shape()});
    Tensor c = Tensor::Uninitialized(c_type, plan.out_shape);
    auto* out = static_cast<uint8_t*>(c.raw());
    const bool avx2 = UseAvx2Clone<float, float>();
    using F = Elem<DataType::kFloat>;
    ForEachRun(plan, [&](const int64_t* off, int64_t out_off, int64_t n) {
      constexpr int64_t kBlock = 256;
      float fa[kBlock], fb[kBlock], fc[kBlock];
      const int64_t sa = plan.inner_step[0], sb = plan.inner_step[1];
      for (int64_t start = 0; start < n; start += kBlock) {
        const int64_t len = std::min(kBlock, n - start);
        Dequantize(a, off[0] + start * sa, sa, len, pa, avx2, fa);
        Dequantize(b, off[1] + start * sb, sb, len, pb, avx2, fb);
        BinaryRun<F, F, F>(fa, sa, fb, sb, fc, len, Op{});
        if (c_type == DataType::kInt8) {
          QuantizeRun(fc, len, q, reinterpret_cast<int8_t*>(out + out_off + start), avx2);
        } else {
          QuantizeRun(fc, len, q, out + out_off + start, avx2);
        }
      }
    });
    ctx.outputs[0] = std::move(c);
  }
};

struct AddOp {
  float operator()(float x, float y) const { return x + y; }
};
struct MulOp {
  float operator()(float x, float y) const { return x * y; }
};

}  // namespace

std::unique_ptr<Kernel> MakeQLinearAdd(const KernelInit& init) { return MakeKernel<QLinearBinaryKernel<AddOp>>(init); }
std::unique_ptr<Kernel> MakeQLinearMul(const KernelInit& init) { return MakeKernel<QLinearBinaryKernel<MulOp>>(init); }

}  // namespace ptq
