// Window functions as a table of cosine-sum coefficients: for n in [0, size) and
// N = size (periodic = 1, the default) or size - 1 (periodic = 0),
//   y[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N)
//   Hann (0.5, 0.5, 0), Hamming (25/46, 21/46, 0), Blackman (0.42, 0.5, 0.08)
// computed in double and stored as attribute output_datatype (default float32; integers truncate).
// A symmetric window of size 1 is [1].
#include "runtime/ops/signal/window.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

struct CosineSum {
  double a0, a1, a2;
};

class Window : public Kernel {
 public:
  Window(const KernelInit& init, CosineSum c)
      : op_type_(init.op_type),
        c_(c),
        periodic_(init.attrs->GetInt("periodic", 1) != 0),
        dtype_(static_cast<DataType>(init.attrs->GetInt("output_datatype", static_cast<int64_t>(DataType::kFloat)))) {}

  void Run(KernelContext& ctx) override {
    const Tensor& size_in = ctx.required_input(0);
    PTQ_ENFORCE((size_in.dtype() == DataType::kInt32 || size_in.dtype() == DataType::kInt64) && size_in.size() == 1,
                "input 'size' must be one int32 or int64 value, got ", DataTypeName(size_in.dtype()), " ",
                ShapeToString(size_in.shape()));
    const int64_t size = size_in.ToInt64Vector()[0];
    PTQ_ENFORCE(size >= 0, "input 'size' is ", size, "; it must be >= 0");
    const double n_den = static_cast<double>(periodic_ ? size : size - 1);
    const double pi = 3.14159265358979323846;
    DispatchType<kNumericTypes>(dtype_, op_type_, "output_datatype", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      Tensor y = Tensor::Uninitialized(E::kType, {size});
      auto* out = y.data<typename E::Storage>();
      for (int64_t n = 0; n < size; ++n) {
        const double x = n_den > 0 ? 2 * pi * static_cast<double>(n) / n_den : 0.0;
        const double v = n_den > 0 ? c_.a0 - c_.a1 * std::cos(x) + c_.a2 * std::cos(2 * x) : 1.0;
        if constexpr (std::is_floating_point<C>::value)
          out[n] = E::Store(static_cast<C>(v));
        else
          out[n] = SaturateCast<C>(v);
      }
      ctx.outputs[0] = std::move(y);
    });
  }

 private:
  std::string op_type_;
  CosineSum c_;
  bool periodic_;
  DataType dtype_;
};

}  // namespace

std::unique_ptr<Kernel> MakeHannWindow(const KernelInit& init) {
  return std::make_unique<Window>(init, CosineSum{0.5, 0.5, 0});
}

std::unique_ptr<Kernel> MakeHammingWindow(const KernelInit& init) {
  return std::make_unique<Window>(init, CosineSum{25.0 / 46, 21.0 / 46, 0});
}

std::unique_ptr<Kernel> MakeBlackmanWindow(const KernelInit& init) {
  return std::make_unique<Window>(init, CosineSum{0.42, 0.5, 0.08});
}

}  // namespace ptq
