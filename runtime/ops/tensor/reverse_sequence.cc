// ReverseSequence kernel. input has rank >= 2 with batch and time axes 0 and 1 (attributes batch_axis,
// default 1, and time_axis, default 0); sequence_lens (int64, one per batch entry, in [0, time]):
//   out[b, t, ...] = input[b, len_b - 1 - t, ...] for t < len_b, else input[b, t, ...]
#include "runtime/ops/tensor/reverse_sequence.h"

#include <cstring>
#include <vector>

#include "runtime/shape_util.h"

namespace ptq {
namespace {

class ReverseSequence : public Kernel {
 public:
  explicit ReverseSequence(const KernelInit& init)
      : batch_axis_(init.attrs->GetInt("batch_axis", 1)), time_axis_(init.attrs->GetInt("time_axis", 0)) {
    PTQ_ENFORCE((batch_axis_ == 0 && time_axis_ == 1) || (batch_axis_ == 1 && time_axis_ == 0),
                "attributes 'batch_axis' (", batch_axis_, ") and 'time_axis' (", time_axis_, ") must be 0 and 1");
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& lens_t = ctx.required_input(1);
    PTQ_ENFORCE(x.rank() >= 2, "input 'input' must have rank >= 2, has shape ", ShapeToString(x.shape()));
    const int64_t batch = x.dim(batch_axis_), time = x.dim(time_axis_);
    PTQ_ENFORCE(lens_t.dtype() == DataType::kInt64 && lens_t.rank() == 1 && lens_t.dim(0) == batch,
                "input 'sequence_lens' must be int64 of shape [", batch, "], got ", DataTypeName(lens_t.dtype()), " ",
                ShapeToString(lens_t.shape()));
    const int64_t* lens = lens_t.data<int64_t>();
    for (int64_t b = 0; b < batch; ++b) {
      PTQ_ENFORCE(lens[b] >= 0 && lens[b] <= time, "sequence_lens[", b, "] is ", lens[b], ", outside [0, ", time, "]");
    }
    Tensor out = Tensor::Uninitialized(x.dtype(), x.shape());
    const size_t block = static_cast<size_t>(SizeOfRange(x.shape(), 2, x.rank())) * ElementSize(x.dtype());
    // Element offsets (in blocks) of (b, t) for either axis order.
    const int64_t batch_stride = batch_axis_ == 0 ? time : 1;
    const int64_t time_stride = time_axis_ == 0 ? batch : 1;
    const char* src = static_cast<const char*>(x.raw());
    char* dst = static_cast<char*>(out.raw());
    for (int64_t b = 0; b < batch && block > 0; ++b) {
      for (int64_t t = 0; t < time; ++t) {
        const int64_t from = t < lens[b] ? lens[b] - 1 - t : t;
        std::memcpy(dst + static_cast<size_t>(b * batch_stride + t * time_stride) * block,
                    src + static_cast<size_t>(b * batch_stride + from * time_stride) * block, block);
      }
    }
    ctx.outputs[0] = std::move(out);
  }

 private:
  int64_t batch_axis_;
  int64_t time_axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeReverseSequence(const KernelInit& init) { return MakeKernel<ReverseSequence>(init); }

}  // namespace ptq
