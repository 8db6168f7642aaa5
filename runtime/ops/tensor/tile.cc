// Tile: repeats the input repeats[k] times along each axis k.
#include "runtime/ops/tensor/tile.h"

#include <vector>

#include "runtime/ops/tensor/copy_util.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

class Tile : public Kernel {
 public:
  // Opset 6+: input 1 'repeats' (one per axis). Opset 1-5: inputs 'tiles' (a count) and 'axis'.
  explicit Tile(const KernelInit& init) : opset_(init.opset) {}

  // out[a_0 * d_0 + b_0, ...] = in[b_0, ...]: the output is the view [r_0, d_0, r_1, d_1, ...] of
  // the input with stride 0 on every r_k, copied contiguously.
  void Run(KernelContext& ctx) override {
    const Tensor& input = ctx.required_input(0);
    const int64_t rank = input.rank();
    std::vector<int64_t> repeats(static_cast<size_t>(rank), 1);
    if (opset_ >= 6) {
      repeats = ctx.required_input(1).ToInt64Vector();
      PTQ_ENFORCE(static_cast<int64_t>(repeats.size()) == rank, "input 'repeats' has ", repeats.size(),
                  " entries for input of rank ", rank);
    } else {
      const Tensor& tiles = ctx.required_input(1);
      const Tensor& axis = ctx.required_input(2);
      PTQ_ENFORCE(tiles.size() == 1 && axis.size() == 1, "inputs 'tiles' and 'axis' must be scalars");
      repeats[static_cast<size_t>(NormalizeAxis(static_cast<int64_t>(axis.GetAsDouble(0)), rank))] =
          static_cast<int64_t>(tiles.GetAsDouble(0));
    }
    const std::vector<int64_t> in_strides = Strides(input.shape());
    Shape view, out_shape;
    std::vector<int64_t> strides;
    for (size_t k = 0; k < repeats.size(); ++k) {
      PTQ_ENFORCE(repeats[k] >= 0, "input 'repeats' has the negative value ", repeats[k]);
      view.insert(view.end(), {repeats[k], input.shape()[k]});
      strides.insert(strides.end(), {0, in_strides[k]});
      out_shape.push_back(repeats[k] * input.shape()[k]);
    }
    Tensor out(input.dtype(), out_shape);
    CopyStrided(input.raw(), 0, strides, view, ElementSize(input.dtype()), out.raw());
    ctx.outputs[0] = std::move(out);
  }

 private:
  int opset_;
};

}  // namespace

std::unique_ptr<Kernel> MakeTile(const KernelInit& init) { return MakeKernel<Tile>(init); }

}  // namespace ptq
