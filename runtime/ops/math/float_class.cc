// IsNaN: y = isnan(x). IsInf: y = (x == +inf and detect_positive) or (x == -inf and detect_negative),
// both attributes 1 by default. Float types in, bool out.
#include "runtime/ops/math/float_class.h"

#include <cmath>
#include <string>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// Y = bool(op(X)) for X of a float type.
template <class Op>
class ClassifyKernel : public Kernel {
 public:
  ClassifyKernel(const KernelInit& init, Op op) : op_type_(init.op_type), op_(op) {}
  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    DispatchType<kFloatTypes>(x.dtype(), op_type_, "X", [&](auto e) {
      using E = decltype(e);
      ctx.outputs[0] = MapUnary<E, Elem<DataType::kBool>>(x, op_);
    });
  }

 private:
  std::string op_type_;
  Op op_;
};

struct IsNaNOp {
  template <class T>
  bool operator()(T x) const {
    return std::isnan(x);
  }
};

struct IsInfOp {
  bool positive;
  bool negative;
  template <class T>
  bool operator()(T x) const {
    return std::isinf(x) && (x > T(0) ? positive : negative);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeIsNaN(const KernelInit& init) {
  return std::make_unique<ClassifyKernel<IsNaNOp>>(init, IsNaNOp{});
}

std::unique_ptr<Kernel> MakeIsInf(const KernelInit& init) {
  const IsInfOp op{init.attrs->GetInt("detect_positive", 1) != 0, init.attrs->GetInt("detect_negative", 1) != 0};
  return std::make_unique<ClassifyKernel<IsInfOp>>(init, op);
}

}  // namespace ptq
