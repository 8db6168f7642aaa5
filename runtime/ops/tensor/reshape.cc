// Reshape: the same elements under a new shape; 0 copies the input's dimension, one -1 is inferred.
#include "runtime/ops/tensor/reshape.h"

#include <vector>

namespace ptq {
namespace {

// The output shape for the requested one:
//   req[i] == 0  -> in[i] when allowzero is false (an input dimension), else 0;
//   req[i] == -1 -> ShapeSize(in) / product of the other output dimensions (at most one -1).
Shape ResolveShape(const Shape& in, const std::vector<int64_t>& req, bool allowzero) {
  Shape out(req.size());
  int64_t infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < req.size(); ++i) {
    int64_t d = req[i];
    if (d == -1) {
      PTQ_ENFORCE(infer < 0, "input 'shape' ", ShapeToString(req), " has more than one -1");
      infer = static_cast<int64_t>(i);
      continue;
    }
    if (d == 0 && !allowzero) {
      PTQ_ENFORCE(i < in.size(), "input 'shape' ", ShapeToString(req), " has 0 at position ", i,
                  " beyond the rank of the data ", ShapeToString(in));
      d = in[i];
    }
    PTQ_ENFORCE(d >= 0, "input 'shape' ", ShapeToString(req), " has the invalid dimension ", d);
    out[i] = d;
    known *= d;
  }
  const int64_t total = ShapeSize(in);
  if (infer >= 0) {
    PTQ_ENFORCE(known != 0 && total % known == 0, "cannot reshape data of shape ", ShapeToString(in),
                " to ", ShapeToString(req), ": the -1 dimension cannot be inferred");
    out[static_cast<size_t>(infer)] = total / known;
  }
  PTQ_ENFORCE(ShapeSize(out) == total, "cannot reshape data of shape ", ShapeToString(in), " (",
              total, " elements) to ", ShapeToString(req));
  return out;
}

class Reshape : public Kernel {
 public:
  explicit Reshape(const KernelInit& init) : opset_(init.opset) {
    allowzero_ = opset_ >= 14 && init.attrs->GetInt("allowzero", 0) != 0;
    if (opset_ < 5) shape_attr_ = init.attrs->RequireInts("shape");
  }

  void Run(KernelContext& ctx) override {
    const Tensor& data = ctx.required_input(0);
    std::vector<int64_t> req = shape_attr_;
    if (opset_ >= 5) {
      const Tensor& shape = ctx.required_input(1);
      PTQ_ENFORCE(shape.rank() == 1, "input 'shape' must be 1-D, got shape ", ShapeToString(shape.shape()));
      req = shape.ToInt64Vector();
    }
    ctx.outputs[0] = data.Reshaped(ResolveShape(data.shape(), req, allowzero_));
  }

 private:
  int opset_;
  bool allowzero_ = false;
  std::vector<int64_t> shape_attr_;
};

}  // namespace

std::unique_ptr<Kernel> MakeReshape(const KernelInit& init) { return MakeKernel<Reshape>(init); }

}  // namespace ptq
