// EyeLike: a 2-D tensor of the input's shape with ones where column - row == k and zeros elsewhere.
#include "runtime/ops/tensor/eye_like.h"

#include <cstring>

#include "runtime/ops/tensor/copy_util.h"

namespace ptq {
namespace {

class EyeLike : public Kernel {
 public:
  // 'dtype' (a TensorProto data type) defaults to the input's type.
  explicit EyeLike(const KernelInit& init)
      : dtype_(static_cast<int>(init.attrs->GetInt("dtype", 0))), k_(init.attrs->GetInt("k", 0)) {}

  void Run(KernelContext& ctx) override {
    const Tensor& input = ctx.required_input(0);
    PTQ_ENFORCE(input.rank() == 2, "input must be 2-D, got shape ", ShapeToString(input.shape()));
    const DataType dtype = dtype_ != 0 ? static_cast<DataType>(dtype_) : input.dtype();
    PTQ_ENFORCE(IsSupportedDataType(dtype), "attribute 'dtype' ", dtype_, " is not a supported type");
    Tensor out(dtype, input.shape());
    const size_t es = ElementSize(dtype);
    unsigned char one[8];
    StoreScalar(dtype, 1.0, one);
    const int64_t rows = input.dim(0), cols = input.dim(1);
    char* y = static_cast<char*>(out.raw());
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t j = i + k_;
      if (j >= 0 && j < cols) std::memcpy(y + static_cast<size_t>(i * cols + j) * es, one, es);
    }
    ctx.outputs[0] = std::move(out);
  }

 private:
  int dtype_;
  int64_t k_;
};

}  // namespace

std::unique_ptr<Kernel> MakeEyeLike(const KernelInit& init) { return MakeKernel<EyeLike>(init); }

}  // namespace ptq
