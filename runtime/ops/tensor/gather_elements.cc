// GatherElements: out[i_0, ..., i_{r-1}] = data[i_0, ..., indices[i_0, ..., i_{r-1}], ..., i_{r-1}]
// (the index replaces the coordinate on `axis`); negative indices count from the end.
#include "runtime/ops/tensor/gather_elements.h"

#include <cstring>
#include <vector>

#include "runtime/shape_util.h"

namespace ptq {
namespace {

class GatherElements : public Kernel {
 public:
  explicit GatherElements(const KernelInit& init) : axis_(init.attrs->GetInt("axis", 0)) {}

  void Run(KernelContext& ctx) override {
    const Tensor& data = ctx.required_input(0);
    const Tensor& indices = ctx.required_input(1);
    PTQ_ENFORCE(indices.dtype() == DataType::kInt32 || indices.dtype() == DataType::kInt64,
                "input 'indices' must be int32 or int64, got ", DataTypeName(indices.dtype()));
    const int64_t rank = data.rank();
    PTQ_ENFORCE(rank >= 1 && indices.rank() == rank, "inputs 'data' ", ShapeToString(data.shape()),
                " and 'indices' ", ShapeToString(indices.shape()), " must have the same rank >= 1");
    const int64_t axis = NormalizeAxis(axis_, rank);
    for (int64_t k = 0; k < rank; ++k) {
      PTQ_ENFORCE(k == axis || indices.dim(k) <= data.dim(k), "input 'indices' ", ShapeToString(indices.shape()),
                  " is larger than 'data' ", ShapeToString(data.shape()), " on axis ", k);
    }
    Tensor out(data.dtype(), indices.shape());
    if (out.size() == 0) {
      ctx.outputs[0] = std::move(out);
      return;
    }
    const std::vector<int64_t> idx = indices.ToInt64Vector();
    const std::vector<int64_t> strides = Strides(data.shape());
    const int64_t dim = data.dim(axis), axis_stride = strides[static_cast<size_t>(axis)];
    const size_t es = ElementSize(data.dtype());
    const char* src = static_cast<const char*>(data.raw());
    char* dst = static_cast<char*>(out.raw());
    // Odometer over the output; `base` is the data offset of the coordinates other than `axis`.
    std::vector<int64_t> pos(static_cast<size_t>(rank), 0);
    int64_t base = 0;
    for (int64_t n = 0; n < out.size(); ++n) {
      int64_t i = idx[static_cast<size_t>(n)];
      PTQ_ENFORCE(i >= -dim && i < dim, "index ", i, " in input 'indices' is out of range for axis ", axis,
                  " of size ", dim);
      if (i < 0) i += dim;
      std::memcpy(dst + static_cast<size_t>(n) * es, src + static_cast<size_t>(base + i * axis_stride) * es, es);
      for (int64_t k = rank - 1; k >= 0; --k) {
        const size_t kk = static_cast<size_t>(k);
        const int64_t step = k == axis ? 0 : strides[kk];
        base += step;
        if (++pos[kk] < indices.dim(k)) break;
        base -= step * pos[kk];
        pos[kk] = 0;
      }
    }
    ctx.outputs[0] = std::move(out);
  }

 private:
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeGatherElements(const KernelInit& init) { return MakeKernel<GatherElements>(init); }

}  // namespace ptq
