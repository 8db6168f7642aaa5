// ScatterElements kernel. indices and updates have one shape, of data's rank and no larger than
// data on any axis other than `axis`:
//   out = data; for each position p = (p_0, ..., p_{r-1}) of indices, in row-major order:
//     out[p_0, ..., indices[p], ..., p_{r-1}] = reduction(that element, updates[p])
// (the index replaces the coordinate on `axis`; negative indices count from the end; out of range
// is an input error).
#include "runtime/ops/tensor/scatter_elements.h"

#include <cstring>
#include <vector>

#include "runtime/ops/tensor/scatter_reduction.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

class ScatterElements : public Kernel {
 public:
  ScatterElements(const KernelInit& init, bool has_reduction)
      : op_type_(init.op_type),
        axis_(init.attrs->GetInt("axis", 0)),
        reduction_(has_reduction ? ReadScatterReduction(init) : ScatterReduction::kNone) {}

  void Run(KernelContext& ctx) override {
    const Tensor& data = ctx.required_input(0);
    const Tensor& indices = ctx.required_input(1);
    const Tensor& updates = ctx.required_input(2);
    CheckScatterInputs(data, indices, updates);
    const int64_t rank = data.rank();
    PTQ_ENFORCE(rank >= 1 && indices.rank() == rank && updates.shape() == indices.shape(), "inputs 'data' ",
                ShapeToString(data.shape()), ", 'indices' ", ShapeToString(indices.shape()), " and 'updates' ",
                ShapeToString(updates.shape()), ": indices and updates need one shape, of data's rank >= 1");
    const int64_t axis = NormalizeAxis(axis_, rank);
    for (int64_t d = 0; d < rank; ++d) {
      PTQ_ENFORCE(d == axis || indices.dim(d) <= data.dim(d), "input 'indices' ", ShapeToString(indices.shape()),
                  " is larger than 'data' ", ShapeToString(data.shape()), " on axis ", d);
    }
    const ScatterFn fn = GetScatterFn(reduction_, data.dtype(), op_type_);
    Tensor out = Tensor::Uninitialized(data.dtype(), data.shape());
    if (data.nbytes() > 0) std::memcpy(out.raw(), data.raw(), data.nbytes());
    if (indices.size() > 0) {
      const std::vector<int64_t> idx = indices.ToInt64Vector();
      const std::vector<int64_t> strides = Strides(data.shape());
      const int64_t dim = data.dim(axis), axis_stride = strides[static_cast<size_t>(axis)];
      const size_t es = ElementSize(data.dtype());
      char* dst = static_cast<char*>(out.raw());
      const char* src = static_cast<const char*>(updates.raw());
      // Odometer over indices; `base` is the data offset of the coordinates other than `axis`.
      std::vector<int64_t> pos(static_cast<size_t>(rank), 0);
      int64_t base = 0;
      for (int64_t n = 0; n < indices.size(); ++n) {
        int64_t i = idx[static_cast<size_t>(n)];
        PTQ_ENFORCE(i >= -dim && i < dim, "index ", i, " in input 'indices' is out of range for axis ", axis,
                    " of size ", dim);
        if (i < 0) i += dim;
        fn(dst + static_cast<size_t>(base + i * axis_stride) * es, src + static_cast<size_t>(n) * es, 1);
        for (int64_t d = rank - 1; d >= 0; --d) {
          const size_t dd = static_cast<size_t>(d);
          const int64_t step = d == axis ? 0 : strides[dd];
          base += step;
          if (++pos[dd] < indices.dim(d)) break;
          base -= step * pos[dd];
          pos[dd] = 0;
        }
      }
    }
    ctx.outputs[0] = std::move(out);
  }

 private:
  std::string op_type_;
  int64_t axis_;
  ScatterReduction reduction_;
};

}  // namespace

std::unique_ptr<Kernel> MakeScatterElements(const KernelInit& init) {
  return std::make_unique<ScatterElements>(init, /*has_reduction=*/true);
}

std::unique_ptr<Kernel> MakeScatter(const KernelInit& init) {
  return std::make_unique<ScatterElements>(init, /*has_reduction=*/false);
}

}  // namespace ptq
