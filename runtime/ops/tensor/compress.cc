// Compress kernel (numpy.compress). condition is a 1-D bool tensor; with attribute axis the output
// keeps the slices j of that axis with condition[j] true, without it the elements j of the flattened
// input. condition may be shorter than the axis (missing entries are false); a true entry past the
// end of the axis is an input error.
#include "runtime/ops/tensor/compress.h"

#include <cstring>
#include <vector>

#include "runtime/shape_util.h"

namespace ptq {
namespace {

class Compress : public Kernel {
 public:
  explicit Compress(const KernelInit& init)
      : has_axis_(init.attrs->Has("axis")), axis_(init.attrs->GetInt("axis", 0)) {}

  void Run(KernelContext& ctx) override {
    const Tensor& input = ctx.required_input(0);
    const Tensor& condition = ctx.required_input(1);
    PTQ_ENFORCE(condition.dtype() == DataType::kBool && condition.rank() == 1,
                "input 'condition' must be a 1-D bool "
                "tensor, got ",
                DataTypeName(condition.dtype()), " of shape ", ShapeToString(condition.shape()));
    const Tensor x = has_axis_ ? input : input.Reshaped({input.size()});
    const int64_t axis = has_axis_ ? NormalizeAxis(axis_, x.rank()) : 0;
    const int64_t dim = x.dim(axis);
    const auto* c = static_cast<const uint8_t*>(condition.raw());  // bytes: any non-zero value is true
    std::vector<int64_t> kept;
    for (int64_t j = 0; j < condition.size(); ++j) {
      if (!c[j]) continue;
      PTQ_ENFORCE(j < dim, "input 'condition' is true at ", j, ", past the end of axis ", axis, " (size ", dim, ")");
      kept.push_back(j);
    }
    Shape shape = x.shape();
    shape[static_cast<size_t>(axis)] = static_cast<int64_t>(kept.size());
    Tensor out = Tensor::Uninitialized(x.dtype(), shape);
    const int64_t outer = SizeOfRange(x.shape(), 0, axis);
    const size_t block = static_cast<size_t>(SizeOfRange(x.shape(), axis + 1, x.rank())) * ElementSize(x.dtype());
    const char* src = static_cast<const char*>(x.raw());
    char* dst = static_cast<char*>(out.raw());
    for (int64_t o = 0; o < outer && block > 0; ++o) {
      for (int64_t j : kept) {
        std::memcpy(dst, src + (static_cast<size_t>(o * dim + j)) * block, block);
        dst += block;
      }
    }
    ctx.outputs[0] = std::move(out);
  }

 private:
  bool has_axis_;
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeCompress(const KernelInit& init) { return MakeKernel<Compress>(init); }

}  // namespace ptq
