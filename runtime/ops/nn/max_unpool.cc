// MaxUnpool kernel. X [N, C, D1, ..., Dk], I (int64, X's shape) of flat indices, as MaxPool's Indices
// output gives them, into the inferred shape S = [N, C, (D_i - 1) * strides_i - pads_begin_i -
// pads_end_i + kernel_shape_i]: Y is zero except Y.flat[I[j]] = X[j]. With input output_shape (no
// smaller than S), Y is that S-shaped result zero-padded at the end of each axis (ONNX's reference).
// An index outside S is an input error.
#include "runtime/ops/nn/max_unpool.h"

#include <cstring>
#include <vector>

#include "runtime/shape_util.h"

namespace ptq {
namespace {

class MaxUnpool : public Kernel {
 public:
  explicit MaxUnpool(const KernelInit& init)
      : kernel_(init.attrs->RequireInts("kernel_shape")),
        strides_(init.attrs->GetInts("strides", std::vector<int64_t>(kernel_.size(), 1))),
        pads_(init.attrs->GetInts("pads", std::vector<int64_t>(2 * kernel_.size(), 0))) {
    PTQ_ENFORCE(!kernel_.empty() && strides_.size() == kernel_.size() && pads_.size() == 2 * kernel_.size(),
                "attributes 'kernel_shape' (", kernel_.size(), " values), 'strides' (", strides_.size(),
                ") and 'pads' (", pads_.size(), ") do not agree");
    for (size_t i = 0; i < kernel_.size(); ++i) {
      const int64_t kMax = int64_t{1} << 31;
      PTQ_ENFORCE(kernel_[i] >= 1 && strides_[i] >= 1 && pads_[i] >= 0 && pads_[i + kernel_.size()] >= 0 &&
                      kernel_[i] < kMax && strides_[i] < kMax && pads_[i] < kMax && pads_[i + kernel_.size()] < kMax,
                  "kernel_shape and strides must be in [1, 2^31), pads in [0, 2^31)");
    }
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& idx = ctx.required_input(1);
    const size_t k = kernel_.size();
    PTQ_ENFORCE(x.rank() == static_cast<int64_t>(k) + 2, "input 'X' ", ShapeToString(x.shape()), " must have rank ",
                k + 2, " for ", k, " kernel dimensions");
    PTQ_ENFORCE(idx.dtype() == DataType::kInt64 && idx.shape() == x.shape(), "input 'I' must be int64 of X's shape ",
                ShapeToString(x.shape()), ", got ", DataTypeName(idx.dtype()), " ", ShapeToString(idx.shape()));
    Shape inferred = {x.dim(0), x.dim(1)};
    for (size_t i = 0; i < k; ++i) {
      const int64_t d = x.dim(static_cast<int64_t>(i) + 2);
      const int64_t v = d == 0 ? 0 : (d - 1) * strides_[i] - pads_[i] - pads_[i + k] + kernel_[i];
      PTQ_ENFORCE(d < (int64_t{1} << 31) && v >= 0, "the output size of axis ", i + 2, " is ", v);
      inferred.push_back(v);
    }
    Tensor y(x.dtype(), inferred);
    const size_t es = ElementSize(x.dtype());
    const int64_t* in = idx.data<int64_t>();
    const char* src = static_cast<const char*>(x.raw());
    char* dst = static_cast<char*>(y.raw());
    for (int64_t j = 0; j < x.size(); ++j) {
      PTQ_ENFORCE(in[j] >= 0 && in[j] < y.size(), "index ", in[j], " in input 'I' is outside the output of ", y.size(),
                  " elements (shape ", ShapeToString(inferred), ")");
      std::memcpy(dst + static_cast<size_t>(in[j]) * es, src + static_cast<size_t>(j) * es, es);
    }
    if (const Tensor* s = ctx.input(2)) y = PadToShape(y, *s);
    ctx.outputs[0] = std::move(y);
  }

 private:
  // y placed at the origin of a zero tensor of shape `output_shape` (no smaller than y on any axis).
  static Tensor PadToShape(const Tensor& y, const Tensor& output_shape) {
    const Shape shape = output_shape.ToInt64Vector();
    bool ok = output_shape.rank() == 1 && shape.size() == y.shape().size();
    for (size_t i = 0; ok && i < shape.size(); ++i)
      ok = shape[i] >= y.shape()[i] && (i >= 2 || shape[i] == y.shape()[i]);
    PTQ_ENFORCE(ok, "input 'output_shape' ", ShapeToString(shape), " must keep N and C and be no smaller than ",
                ShapeToString(y.shape()));
    Tensor out(y.dtype(), shape);
    if (y.size() == 0) return out;
    // Copy each innermost row of y to its place in out.
    const size_t rank = shape.size(), es = ElementSize(y.dtype());
    const int64_t row = y.shape().back();
    std::vector<int64_t> pos(rank, 0);
    const std::vector<int64_t> out_strides = Strides(shape);
    for (int64_t r = 0; r < y.size() / row; ++r) {
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d) offset += pos[d] * out_strides[d];
      std::memcpy(static_cast<char*>(out.raw()) + static_cast<size_t>(offset) * es,
                  static_cast<const char*>(y.raw()) + static_cast<size_t>(r * row) * es, static_cast<size_t>(row) * es);
      for (size_t d = rank - 1; d-- > 0;) {
        if (++pos[d] < y.shape()[d]) break;
        pos[d] = 0;
      }
    }
    return out;
  }

  std::vector<int64_t> kernel_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> pads_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMaxUnpool(const KernelInit& init) { return MakeKernel<MaxUnpool>(init); }

}  // namespace ptq
