// Split: cuts a tensor into consecutive parts along one axis.
#include "runtime/ops/tensor/split.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/shape_util.h"

namespace ptq {
namespace {

class Split : public Kernel {
 public:
  // Part sizes come from the 'split' attribute (opset 1-12; opset 1 also accepts it as input 1),
  // the 'split' input (opset 13+), or are equal: from opset 18 'num_outputs' parts of
  // ceil(dim / num_outputs) with a smaller last part, before that one part per output, which
  // must divide the dimension.
  explicit Split(const KernelInit& init) : opset_(init.opset), axis_(init.attrs->GetInt("axis", 0)) {
    if (opset_ < 13 && init.attrs->Has("split")) split_attr_ = init.attrs->GetInts("split");
    if (opset_ >= 18 && init.attrs->Has("num_outputs")) num_outputs_ = init.attrs->GetInt("num_outputs", 0);
  }

  void Run(KernelContext& ctx) override {
    const Tensor& input = ctx.required_input(0);
    const int64_t rank = input.rank();
    const int64_t axis = NormalizeAxis(axis_, rank);
    const int64_t dim = input.dim(axis);
    const int64_t n = static_cast<int64_t>(ctx.outputs.size());
    PTQ_ENFORCE(n >= 1, "Split needs at least one output");
    std::vector<int64_t> sizes = split_attr_;
    if ((opset_ >= 13 || opset_ == 1) && ctx.input(1)) sizes = ctx.input(1)->ToInt64Vector();
    if (!sizes.empty()) {
      PTQ_ENFORCE(static_cast<int64_t>(sizes.size()) == n, "'split' has ", sizes.size(), " entries for ", n,
                  " outputs");
      int64_t sum = 0;
      for (int64_t s : sizes) {
        PTQ_ENFORCE(s >= 0, "'split' has the negative size ", s);
        sum += s;
      }
      PTQ_ENFORCE(sum == dim, "'split' sizes sum to ", sum, " but axis ", axis, " of input shape ",
                  ShapeToString(input.shape()), " has ", dim);
    } else if (num_outputs_ > 0) {
      PTQ_ENFORCE(num_outputs_ == n, "attribute 'num_outputs' is ", num_outputs_, " but the node has ", n,
                  " outputs");
      const int64_t chunk = (dim + n - 1) / n;
      for (int64_t i = 0, left = dim; i < n; ++i, left -= sizes.back()) sizes.push_back(std::min(chunk, left));
    } else {
      PTQ_ENFORCE(dim % n == 0, "axis ", axis, " of input shape ", ShapeToString(input.shape()),
                  " cannot be split into ", n, " equal parts");
      sizes.assign(static_cast<size_t>(n), dim / n);
    }

    const size_t es = ElementSize(input.dtype());
    const int64_t outer = SizeOfRange(input.shape(), 0, axis);
    const size_t row = static_cast<size_t>(dim * SizeOfRange(input.shape(), axis + 1, rank)) * es;
    const char* src = static_cast<const char*>(input.raw());
    size_t offset = 0;  // bytes from the start of each input row to the current part
    for (int64_t i = 0; i < n; ++i) {
      Shape shape = input.shape();
      shape[static_cast<size_t>(axis)] = sizes[static_cast<size_t>(i)];
      Tensor out(input.dtype(), shape);
      const size_t block = out.nbytes() / static_cast<size_t>(std::max<int64_t>(outer, 1));
      char* dst = static_cast<char*>(out.raw());
      for (int64_t o = 0; o < outer && block > 0; ++o) {
        std::memcpy(dst + static_cast<size_t>(o) * block, src + static_cast<size_t>(o) * row + offset, block);
      }
      offset += block;
      ctx.outputs[static_cast<size_t>(i)] = std::move(out);
    }
  }

 private:
  int opset_;
  int64_t axis_;
  int64_t num_outputs_ = 0;
  std::vector<int64_t> split_attr_;
};

}  // namespace

std::unique_ptr<Kernel> MakeSplit(const KernelInit& init) { return MakeKernel<Split>(init); }

}  // namespace ptq
