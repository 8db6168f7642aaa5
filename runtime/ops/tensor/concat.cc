// Concat: joins tensors along one axis; all other dimensions must match.
#include "runtime/ops/tensor/concat.h"

#include <cstring>
#include <vector>

#include "runtime/shape_util.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

class Concat : public Kernel {
 public:
  // axis: optional (default 1) in opset 1-3, required from 4, negative from 11.
  explicit Concat(const KernelInit& init)
      : axis_(init.opset < 4 ? init.attrs->GetInt("axis", 1) : init.attrs->RequireInt("axis")) {}

  // out.shape = first.shape with dim[axis] = sum of the inputs' dim[axis]. For each outer index
  // (the dimensions before axis), the inputs' blocks dim[axis] * inner are laid side by side.
  // An input with no elements whose shape does not fit (such as a 1-D [0] placeholder that some
  // exporters emit) contributes nothing and is skipped.
  void Run(KernelContext& ctx) override {
    PTQ_ENFORCE(ctx.num_inputs() >= 1 && ctx.input(0), "Concat needs at least one input");
    const Tensor* first = ctx.input(0);
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (ctx.input(i) && ctx.input(i)->size() > 0) {
        first = ctx.input(i);
        break;
      }
    }
    const int64_t rank = first->rank();
    PTQ_ENFORCE(rank > 0, "cannot concatenate scalars");
    const int64_t axis = NormalizeAxis(axis_, rank);
    std::vector<const Tensor*> parts;
    Shape out_shape = first->shape();
    out_shape[static_cast<size_t>(axis)] = 0;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = ctx.required_input(i);
      PTQ_ENFORCE(t.dtype() == first->dtype(), "input ", i, " has type ", DataTypeName(t.dtype()),
                  ", expected ", DataTypeName(first->dtype()));
      bool fits = t.rank() == rank;
      for (int64_t k = 0; fits && k < rank; ++k) fits = k == axis || t.dim(k) == first->dim(k);
      if (!fits && t.size() == 0) continue;
      PTQ_ENFORCE(fits, "input ", i, " has shape ", ShapeToString(t.shape()), ", which does not match ",
                  ShapeToString(first->shape()), " outside axis ", axis);
      out_shape[static_cast<size_t>(axis)] += t.dim(axis);
      parts.push_back(&t);
    }
    Tensor out = Tensor::Uninitialized(first->dtype(), out_shape);  // every block copied below
    const size_t es = ElementSize(out.dtype());
    const int64_t outer = SizeOfRange(out_shape, 0, axis);
    const int64_t inner = SizeOfRange(out_shape, axis + 1, rank);
    // Threads share the outer indices from 1 MiB of output on (each index's blocks are one run of the output).
    const int64_t bytes = out.size() * static_cast<int64_t>(es);
    const int64_t row = outer > 0 ? bytes / outer : 0;
    char* const base = static_cast<char*>(out.raw());
    const int threads = ThreadsForWork(bytes, int64_t{1} << 20);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int64_t o = 0; o < outer; ++o) {
      char* dst = base + o * row;
      for (const Tensor* t : parts) {
        const size_t block = static_cast<size_t>(t->dim(axis) * inner) * es;
        std::memcpy(dst, static_cast<const char*>(t->raw()) + static_cast<size_t>(o) * block, block);
        dst += block;
      }
    }
    ctx.outputs[0] = std::move(out);
  }

 private:
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeConcat(const KernelInit& init) { return MakeKernel<Concat>(init); }

}  // namespace ptq
