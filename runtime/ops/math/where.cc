// Where kernel: output = condition ? X : Y with three-way numpy broadcasting, for every type.
#include "runtime/ops/math/where.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// out[i] = c[i*sc] ? x[i*sx] : y[i*sy] for i < n; steps are 0 or 1. T is an unsigned integer
// of the element's size: selection copies bits, so one loop serves every type of that size.
template <class T>
void SelectRun(const bool* __restrict c, int64_t sc, const T* __restrict x, int64_t sx, const T* __restrict y,
               int64_t sy, T* __restrict out, int64_t n) {
  if (sc && sx && sy) {
    for (int64_t i = 0; i < n; ++i) out[i] = c[i] ? x[i] : y[i];
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = c[i * sc] ? x[i * sx] : y[i * sy];
  }
}

template <class T>
void SelectAll(const BroadcastPlan& p, const Tensor& c, const Tensor& x, const Tensor& y, Tensor& out) {
  const bool* pc = c.data<bool>();
  const T* px = static_cast<const T*>(x.raw());
  const T* py = static_cast<const T*>(y.raw());
  T* po = static_cast<T*>(out.raw());
  ForEachRun(p, [&](const int64_t* off, int64_t out_off, int64_t n) {
    SelectRun<T>(pc + off[0], p.inner_step[0], px + off[1], p.inner_step[1], py + off[2], p.inner_step[2],
                 po + out_off, n);
  });
}

// output = condition ? X : Y; condition is bool, X and Y share one type.
class WhereKernel final : public Kernel {
 public:
  explicit WhereKernel(const KernelInit&) {}
  void Run(KernelContext& ctx) override {
    const Tensor& c = ctx.required_input(0);
    const Tensor& x = ctx.required_input(1);
    const Tensor& y = ctx.required_input(2);
    PTQ_ENFORCE(c.dtype() == DataType::kBool, "Where: input 'condition' must be bool, got ", DataTypeName(c.dtype()));
    PTQ_ENFORCE(x.dtype() == y.dtype(), "Where: inputs 'X' and 'Y' must have the same type, got ",
                DataTypeName(x.dtype()), " and ", DataTypeName(y.dtype()));
    const BroadcastPlan p = PlanBroadcast({&c.shape(), &x.shape(), &y.shape()});
    Tensor out(x.dtype(), p.out_shape);
    switch (ElementSize(x.dtype())) {
      case 1: SelectAll<uint8_t>(p, c, x, y, out); break;
      case 2: SelectAll<uint16_t>(p, c, x, y, out); break;
      case 4: SelectAll<uint32_t>(p, c, x, y, out); break;
      case 8: SelectAll<uint64_t>(p, c, x, y, out); break;
      default: ThrowUnsupportedType("Where", "X", x.dtype(), kAllTypes);
    }
    ctx.outputs[0] = out;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeWhere(const KernelInit& init) { return std::make_unique<WhereKernel>(init); }

}  // namespace ptq
