// Gather: picks slices along one axis by index (numpy take); negative indices count from the end.
#include "runtime/ops/tensor/gather.h"

#include <cstring>
#include <vector>

#include "runtime/shape_util.h"

namespace ptq {
namespace {

class Gather : public Kernel {
 public:
  explicit Gather(const KernelInit& init) : axis_(init.attrs->GetInt("axis", 0)) {}

  // out[o, j..., i] = data[o, indices[j...], i]; out.shape = data[:axis] + indices.shape + data[axis+1:].
  void Run(KernelContext& ctx) override {
    const Tensor& data = ctx.required_input(0);
    const Tensor& indices = ctx.required_input(1);
    PTQ_ENFORCE(indices.dtype() == DataType::kInt32 || indices.dtype() == DataType::kInt64,
                "input 'indices' must be int32 or int64, got ", DataTypeName(indices.dtype()));
    const int64_t rank = data.rank();
    const int64_t axis = NormalizeAxis(axis_, rank);
    const int64_t dim = data.dim(axis);
    std::vector<int64_t> idx = indices.ToInt64Vector();
    for (int64_t& i : idx) {
      PTQ_ENFORCE(i >= -dim && i < dim, "index ", i, " in input 'indices' is out of range for axis ", axis,
                  " of size ", dim);
      if (i < 0) i += dim;
    }
    Shape out_shape(data.shape().begin(), data.shape().begin() + axis);
    out_shape.insert(out_shape.end(), indices.shape().begin(), indices.shape().end());
    out_shape.insert(out_shape.end(), data.shape().begin() + axis + 1, data.shape().end());
    Tensor out = Tensor::Uninitialized(data.dtype(), out_shape);  // every block copied below
    const int64_t outer = SizeOfRange(data.shape(), 0, axis);
    const size_t block = static_cast<size_t>(SizeOfRange(data.shape(), axis + 1, rank)) * ElementSize(data.dtype());
    const char* src = static_cast<const char*>(data.raw());
    char* dst = static_cast<char*>(out.raw());
    for (int64_t o = 0; o < outer; ++o) {
      const char* row = src + static_cast<size_t>(o * dim) * block;
      for (int64_t i : idx) {
        std::memcpy(dst, row + static_cast<size_t>(i) * block, block);
        dst += block;
      }
    }
    ctx.outputs[0] = std::move(out);
  }

 private:
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeGather(const KernelInit& init) { return MakeKernel<Gather>(init); }

}  // namespace ptq
