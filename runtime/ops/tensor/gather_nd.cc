// GatherND kernel. data of rank r, indices of rank q with last dimension k, batch_dims b (opset 12):
// the first b axes of data and indices must agree; b + k <= r. Output shape
// indices.shape[:-1] + data.shape[b + k:], and for a batch position n and index tuple t:
//   out[n, p, :] = data[n, t[0], ..., t[k-1], :]
// Negative indices count from the end; out of range is an input error.
#include "runtime/ops/tensor/gather_nd.h"

#include <cstring>
#include <vector>

#include "runtime/shape_util.h"

namespace ptq {
namespace {

class GatherND : public Kernel {
 public:
  explicit GatherND(const KernelInit& init) : batch_dims_(init.attrs->GetInt("batch_dims", 0)) {}

  void Run(KernelContext& ctx) override {
    const Tensor& data = ctx.required_input(0);
    const Tensor& indices = ctx.required_input(1);
    PTQ_ENFORCE(indices.dtype() == DataType::kInt64 || indices.dtype() == DataType::kInt32,
                "input 'indices' must be int64 or int32, got ", DataTypeName(indices.dtype()));
    const int64_t r = data.rank(), q = indices.rank(), b = batch_dims_;
    PTQ_ENFORCE(r >= 1 && q >= 1, "inputs 'data' ", ShapeToString(data.shape()), " and 'indices' ",
                ShapeToString(indices.shape()), " must have rank >= 1");
    PTQ_ENFORCE(b >= 0 && b < q && b < r, "attribute 'batch_dims' is ", b, "; it must be below the ranks of 'data' (",
                r, ") and 'indices' (", q, ")");
    const int64_t k = indices.dim(q - 1);
    PTQ_ENFORCE(k >= 0 && b + k <= r, "the last dimension of 'indices' ", ShapeToString(indices.shape()),
                " plus batch_dims ", b, " exceeds the rank of 'data' ", ShapeToString(data.shape()));
    for (int64_t d = 0; d < b; ++d) {
      PTQ_ENFORCE(data.dim(d) == indices.dim(d), "batch axis ", d, " differs: 'data' ", ShapeToString(data.shape()),
                  ", 'indices' ", ShapeToString(indices.shape()));
    }
    Shape out_shape(indices.shape().begin(), indices.shape().end() - 1);
    out_shape.insert(out_shape.end(), data.shape().begin() + b + k, data.shape().end());
    Tensor out = Tensor::Uninitialized(data.dtype(), out_shape);
    const int64_t batches = SizeOfRange(data.shape(), 0, b);
    const int64_t tuples_per_batch = SizeOfRange(indices.shape(), b, q - 1);
    const int64_t slice = SizeOfRange(data.shape(), b + k, r);
    const int64_t batch_size = SizeOfRange(data.shape(), b, r);
    if (out.size() > 0) {
      const std::vector<int64_t> idx = indices.ToInt64Vector();
      const std::vector<int64_t> strides = Strides(data.shape());
      const size_t es = ElementSize(data.dtype());
      const char* src = static_cast<const char*>(data.raw());
      char* dst = static_cast<char*>(out.raw());
      for (int64_t n = 0; n < batches; ++n) {
        for (int64_t t = 0; t < tuples_per_batch; ++t) {
          const int64_t tuple = n * tuples_per_batch + t;
          int64_t offset = n * batch_size;
          for (int64_t j = 0; j < k; ++j) {
            int64_t i = idx[static_cast<size_t>(tuple * k + j)];
            const int64_t dim = data.dim(b + j);
            PTQ_ENFORCE(i >= -dim && i < dim, "index ", i, " in input 'indices' is out of range for axis ", b + j,
                        " of 'data' (size ", dim, ")");
            if (i < 0) i += dim;
            offset += i * strides[static_cast<size_t>(b + j)];
          }
          std::memcpy(dst + static_cast<size_t>(tuple * slice) * es, src + static_cast<size_t>(offset) * es,
                      static_cast<size_t>(slice) * es);
        }
      }
    }
    ctx.outputs[0] = std::move(out);
  }

 private:
  int64_t batch_dims_;
};

}  // namespace

std::unique_ptr<Kernel> MakeGatherND(const KernelInit& init) { return MakeKernel<GatherND>(init); }

}  // namespace ptq
