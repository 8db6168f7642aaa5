// Trilu: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of each matrix in the last two
// dimensions and zeroes the rest.
#include "runtime/ops/tensor/trilu.h"

#include <algorithm>
#include <cstring>

namespace ptq {
namespace {

class Trilu : public Kernel {
 public:
  explicit Trilu(const KernelInit& init) : upper_(init.attrs->GetInt("upper", 1) != 0) {}

  void Run(KernelContext& ctx) override {
    const Tensor& input = ctx.required_input(0);
    PTQ_ENFORCE(input.rank() >= 2, "input must have rank >= 2, got shape ", ShapeToString(input.shape()));
    int64_t k = 0;
    if (const Tensor* kt = ctx.input(1)) {
      PTQ_ENFORCE(kt->size() == 1, "input 'k' must be a scalar, got shape ", ShapeToString(kt->shape()));
      k = kt->ToInt64Vector()[0];
    }
    const int64_t rows = input.dim(input.rank() - 2), cols = input.dim(input.rank() - 1);
    Tensor out(input.dtype(), input.shape());
    std::memcpy(out.raw(), input.raw(), input.nbytes());
    const size_t es = ElementSize(input.dtype());
    const int64_t matrices = rows * cols == 0 ? 0 : input.size() / (rows * cols);
    char* y = static_cast<char*>(out.raw());
    // Row i zeroes columns [0, i + k) (upper) or [i + k + 1, cols) (lower); zero bytes are 0 in every type.
    for (int64_t m = 0; m < matrices; ++m) {
      for (int64_t i = 0; i < rows; ++i) {
        char* row = y + static_cast<size_t>((m * rows + i) * cols) * es;
        const int64_t lo = upper_ ? 0 : std::clamp<int64_t>(i + k + 1, 0, cols);
        const int64_t hi = upper_ ? std::clamp<int64_t>(i + k, 0, cols) : cols;
        if (hi > lo) std::memset(row + static_cast<size_t>(lo) * es, 0, static_cast<size_t>(hi - lo) * es);
      }
    }
    ctx.outputs[0] = std::move(out);
  }

 private:
  bool upper_;
};

}  // namespace

std::unique_ptr<Kernel> MakeTrilu(const KernelInit& init) { return MakeKernel<Trilu>(init); }

}  // namespace ptq
