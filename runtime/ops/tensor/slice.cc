// Slice: a strided sub-range of a tensor along some axes (numpy basic slicing).
#include "runtime/ops/tensor/slice.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/ops/tensor/copy_util.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

class Slice : public Kernel {
 public:
  // starts/ends/axes are attributes before opset 10; from 10 they and steps are inputs 1-4.
  // Omitted axes mean [0, len(starts)); omitted steps mean 1.
  explicit Slice(const KernelInit& init) : opset_(init.opset) {
    if (opset_ < 10) {
      starts_attr_ = init.attrs->RequireInts("starts");
      ends_attr_ = init.attrs->RequireInts("ends");
      axes_attr_ = init.attrs->GetInts("axes");
    }
  }

  void Run(KernelContext& ctx) override {
    const Tensor& data = ctx.required_input(0);
    const int64_t rank = data.rank();
    std::vector<int64_t> starts = starts_attr_, ends = ends_attr_, axes = axes_attr_, steps;
    if (opset_ >= 10) {
      starts = ctx.required_input(1).ToInt64Vector();
      ends = ctx.required_input(2).ToInt64Vector();
      if (ctx.input(3)) axes = ctx.input(3)->ToInt64Vector();
      if (ctx.input(4)) steps = ctx.input(4)->ToInt64Vector();
    }
    const size_t n = starts.size();
    if (axes.empty() && !(opset_ >= 10 && ctx.input(3))) {
      for (size_t i = 0; i < n; ++i) axes.push_back(static_cast<int64_t>(i));
    }
    if (steps.empty() && !(opset_ >= 10 && ctx.input(4))) steps.assign(n, 1);
    PTQ_ENFORCE(ends.size() == n && axes.size() == n && steps.size() == n, "'starts', 'ends', 'axes' and 'steps' ",
                "must have the same length, got ", n, ", ", ends.size(), ", ", axes.size(), ", ", steps.size());

    // Per axis: start and step in the input, count in the output. Negative start/end add dim, then
    // step > 0 clamps start and end to [0, dim]; step < 0 clamps start to [0, dim-1] and end to
    // [-1, dim-1]; count = max(0, ceil((end - start) / step)).
    Shape out_shape = data.shape();
    std::vector<int64_t> first(static_cast<size_t>(rank), 0), step(static_cast<size_t>(rank), 1);
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (size_t i = 0; i < n; ++i) {
      const int64_t axis = NormalizeAxis(axes[i], rank);
      const size_t a = static_cast<size_t>(axis);
      PTQ_ENFORCE(!seen[a], "'axes' lists axis ", axes[i], " twice");
      seen[a] = true;
      PTQ_ENFORCE(steps[i] != 0, "'steps' has a 0 for axis ", axes[i]);
      const int64_t dim = data.dim(axis);
      int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
      int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
      int64_t count = 0;
      if (steps[i] > 0) {
        s = std::clamp<int64_t>(s, 0, dim);
        e = std::clamp<int64_t>(e, 0, dim);
        count = e > s ? 1 + (e - s - 1) / steps[i] : 0;
      } else if (dim > 0) {
        s = std::clamp<int64_t>(s, 0, dim - 1);
        e = std::clamp<int64_t>(e, -1, dim - 1);
        count = s > e ? 1 + (s - e - 1) / -std::max(steps[i], -INT64_MAX) : 0;
      }
      first[a] = count > 0 ? s : 0;
      step[a] = steps[i];
      out_shape[a] = count;
    }

    Tensor out(data.dtype(), out_shape);
    const std::vector<int64_t> in_strides = Strides(data.shape());
    int64_t offset = 0;
    std::vector<int64_t> strides(static_cast<size_t>(rank));
    for (size_t k = 0; k < strides.size(); ++k) {
      offset += first[k] * in_strides[k];
      strides[k] = step[k] * in_strides[k];
    }
    CopyStrided(data.raw(), offset, strides, out_shape, ElementSize(data.dtype()), out.raw());
    ctx.outputs[0] = std::move(out);
  }

 private:
  int opset_;
  std::vector<int64_t> starts_attr_, ends_attr_, axes_attr_;
};

}  // namespace

std::unique_ptr<Kernel> MakeSlice(const KernelInit& init) { return MakeKernel<Slice>(init); }

}  // namespace ptq
