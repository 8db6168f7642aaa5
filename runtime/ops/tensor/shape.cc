// Shape: the input's dimensions [start, end) as 1-D int64; start/end clamp like Python slices.
#include "runtime/ops/tensor/shape.h"

#include <algorithm>

namespace ptq {
namespace {

class ShapeOp : public Kernel {
 public:
  explicit ShapeOp(const KernelInit& init) {
    if (init.opset >= 15) {
      start_ = init.attrs->GetInt("start", 0);
      has_end_ = init.attrs->Has("end");
      end_ = init.attrs->GetInt("end", 0);
    }
  }

  // start/end < 0 add rank; both are then clamped to [0, rank].
  void Run(KernelContext& ctx) override {
    const Shape& dims = ctx.required_input(0).shape();
    const int64_t rank = static_cast<int64_t>(dims.size());
    auto clamp = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
    const int64_t begin = clamp(start_);
    const int64_t end = std::max(begin, has_end_ ? clamp(end_) : rank);
    ctx.outputs[0] = Tensor::FromVector<int64_t>({end - begin}, std::vector<int64_t>(dims.begin() + begin, dims.begin() + end));
  }

 private:
  int64_t start_ = 0;
  int64_t end_ = 0;
  bool has_end_ = false;
};

}  // namespace

std::unique_ptr<Kernel> MakeShape(const KernelInit& init) { return MakeKernel<ShapeOp>(init); }

}  // namespace ptq
