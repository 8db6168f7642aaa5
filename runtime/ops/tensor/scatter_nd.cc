// ScatterND kernel. data of rank r, indices [..., k] (k <= r), updates = indices.shape[:-1] + data.shape[k:]:
//   out = data; for each index tuple t at position p of indices.shape[:-1]:
//     out[t[0], ..., t[k-1], :] = reduction(out[t, :], updates[p, :])
// in the order of the index tuples (so with reduction none the last duplicate wins). Indices may be
// negative (counted from the end, as ONNX Runtime allows); out-of-range indices are input errors.
#include "runtime/ops/tensor/scatter_nd.h"

#include <cstring>

#include "runtime/ops/tensor/scatter_reduction.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

class ScatterND : public Kernel {
 public:
  explicit ScatterND(const KernelInit& init) : reduction_(ReadScatterReduction(init)) {}

  void Run(KernelContext& ctx) override {
    const Tensor& data = ctx.required_input(0);
    const Tensor& indices = ctx.required_input(1);
    const Tensor& updates = ctx.required_input(2);
    CheckScatterInputs(data, indices, updates);
    const int64_t r = data.rank();
    const int64_t q = indices.rank();
    PTQ_ENFORCE(r >= 1 && q >= 1, "inputs 'data' ", ShapeToString(data.shape()), " and 'indices' ",
                ShapeToString(indices.shape()), " must have rank >= 1");
    const int64_t k = indices.dim(q - 1);
    PTQ_ENFORCE(k >= 1 && k <= r, "the last dimension of 'indices' ", ShapeToString(indices.shape()),
                " must be in [1, ", r, "] (the rank of 'data')");
    Shape expected(indices.shape().begin(), indices.shape().end() - 1);
    expected.insert(expected.end(), data.shape().begin() + k, data.shape().end());
    PTQ_ENFORCE(updates.shape() == expected, "input 'updates' has shape ", ShapeToString(updates.shape()), "; 'data' ",
                ShapeToString(data.shape()), " and 'indices' ", ShapeToString(indices.shape()), " need ",
                ShapeToString(expected));
    const ScatterFn fn = GetScatterFn(reduction_, data.dtype(), "ScatterND");
    Tensor out = Tensor::Uninitialized(data.dtype(), data.shape());
    if (data.nbytes() > 0) std::memcpy(out.raw(), data.raw(), data.nbytes());
    const int64_t slice = SizeOfRange(data.shape(), k, r);
    const int64_t tuples = SizeOfRange(indices.shape(), 0, q - 1);
    if (slice > 0 && tuples > 0) {
      const std::vector<int64_t> idx = indices.ToInt64Vector();
      const std::vector<int64_t> strides = Strides(data.shape());
      const size_t es = ElementSize(data.dtype());
      char* dst = static_cast<char*>(out.raw());
      const char* src = static_cast<const char*>(updates.raw());
      for (int64_t t = 0; t < tuples; ++t) {
        int64_t offset = 0;
        for (int64_t j = 0; j < k; ++j) {
          int64_t i = idx[static_cast<size_t>(t * k + j)];
          const int64_t dim = data.dim(j);
          PTQ_ENFORCE(i >= -dim && i < dim, "index ", i, " in input 'indices' is out of range for axis ", j,
                      " of 'data' (size ", dim, ")");
          if (i < 0) i += dim;
          offset += i * strides[static_cast<size_t>(j)];
        }
        fn(dst + static_cast<size_t>(offset) * es, src + static_cast<size_t>(t * slice) * es, slice);
      }
    }
    ctx.outputs[0] = std::move(out);
  }

 private:
  ScatterReduction reduction_;
};

}  // namespace

std::unique_ptr<Kernel> MakeScatterND(const KernelInit& init) { return MakeKernel<ScatterND>(init); }

}  // namespace ptq
