// LookupTable: one table read per byte.
#include "runtime/ops/quantization/lookup_table.h"

#include "runtime/error.h"

namespace ptq {
namespace {

class LookupTableKernel : public Kernel {
 public:
  explicit LookupTableKernel(const KernelInit&) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& table = ctx.required_input(1);
    PTQ_ENFORCE(x.dtype() == DataType::kUint8 || x.dtype() == DataType::kInt8, "input 'x' has type ",
                DataTypeName(x.dtype()), "; expected uint8 or int8");
    PTQ_ENFORCE((table.dtype() == DataType::kUint8 || table.dtype() == DataType::kInt8) && table.size() == 256,
                "input 'table' must hold 256 uint8 or int8 values");
    Tensor y = Tensor::Uninitialized(table.dtype(), x.shape());
    const auto* in = static_cast<const uint8_t*>(x.raw());
    const auto* t = static_cast<const uint8_t*>(table.raw());
    auto* out = static_cast<uint8_t*>(y.raw());
    for (int64_t i = 0; i < x.size(); ++i) out[i] = t[in[i]];
    ctx.outputs[0] = std::move(y);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeLookupTable(const KernelInit& init) { return MakeKernel<LookupTableKernel>(init); }

}  // namespace ptq
