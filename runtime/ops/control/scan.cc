// Scan kernel. Opset 9+: inputs state[N] then scan_input[M] (M = attribute num_scan_inputs); body
// (state[N], slice[M]) -> (state[N], out_slice[K]); outputs final state[N] then scan_output[K]:
//   for t in 0 .. T-1 (T = the scan inputs' length on their axis, one for all):
//     slice_j = scan_input_j at position t (or T-1-t when scan_input_directions[j] = 1) on scan_input_axes[j]
//     (state, out_slices) = body(state, slices)
//   scan_output_k stacks the T out_slices on scan_output_axes[k] (in reverse when its direction is 1).
// Axes default to 0, directions to forward; negative axes count from the end.
// Opset 8 adds a batch axis 0 to every input and output and an optional input sequence_lens first
// (attribute 'directions' for the scan inputs); each batch entry is scanned on its own along axis 1.
// Sequence lengths shorter than the axis are refused (ptq does not pad).
#include "runtime/ops/control/scan.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/ops/control/subgraph.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

// Position t of x along `axis` (the axis removed).
Tensor SliceAt(const Tensor& x, int64_t axis, int64_t t) {
  Shape shape = x.shape();
  shape.erase(shape.begin() + axis);
  Tensor out = Tensor::Uninitialized(x.dtype(), shape);
  const int64_t outer = SizeOfRange(x.shape(), 0, axis), n = x.dim(axis);
  const size_t block = static_cast<size_t>(SizeOfRange(x.shape(), axis + 1, x.rank())) * ElementSize(x.dtype());
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(out.raw());
  for (int64_t o = 0; o < outer && block > 0; ++o) std::memcpy(dst + o * block, src + (o * n + t) * block, block);
  return out;
}

// The slices stacked on a new axis `axis` (in [0, rank of a slice]). REQUIRES: one type and shape.
Tensor StackOn(const std::vector<Tensor>& slices, int64_t axis) {
  const Tensor& first = slices.front();
  Shape shape = first.shape();
  shape.insert(shape.begin() + axis, static_cast<int64_t>(slices.size()));
  Tensor out = Tensor::Uninitialized(first.dtype(), shape);
  const int64_t outer = SizeOfRange(first.shape(), 0, axis), n = static_cast<int64_t>(slices.size());
  const size_t block = static_cast<size_t>(SizeOfRange(first.shape(), axis, first.rank())) * ElementSize(first.dtype());
  char* dst = static_cast<char*>(out.raw());
  for (int64_t t = 0; t < n && block > 0; ++t) {
    const char* src = static_cast<const char*>(slices[static_cast<size_t>(t)].raw());
    for (int64_t o = 0; o < outer; ++o) std::memcpy(dst + (o * n + t) * block, src + o * block, block);
  }
  return out;
}

class Scan : public Kernel {
 public:
  explicit Scan(const KernelInit& init)
      : body_(init, "body"), batched_(init.opset < 9), num_scan_(init.attrs->RequireInt("num_scan_inputs")) {
    const int first = batched_ ? 1 : 0;  // opset 8: sequence_lens comes first
    PTQ_ENFORCE(num_scan_ >= 1 && num_scan_ <= init.num_inputs - first, "attribute 'num_scan_inputs' is ", num_scan_,
                " with ", init.num_inputs, " inputs");
    num_state_ = init.num_inputs - first - static_cast<int>(num_scan_);
    PTQ_ENFORCE(body_.num_inputs() == num_state_ + num_scan_, "attribute 'body' has ", body_.num_inputs(),
                " inputs; it needs ", num_state_ + num_scan_, " (states and scan slices)");
    num_out_ = body_.num_outputs() - num_state_;
    PTQ_ENFORCE(num_out_ >= 0 && init.num_outputs == body_.num_outputs(), "attribute 'body' has ", body_.num_outputs(),
                " outputs; the node has ", init.num_outputs);
    const size_t m = static_cast<size_t>(num_scan_), k = static_cast<size_t>(num_out_);
    in_dirs_ = init.attrs->GetInts(batched_ ? "directions" : "scan_input_directions", std::vector<int64_t>(m, 0));
    in_axes_ = init.attrs->GetInts("scan_input_axes", std::vector<int64_t>(m, 0));
    out_dirs_ = init.attrs->GetInts("scan_output_directions", std::vector<int64_t>(k, 0));
    out_axes_ = init.attrs->GetInts("scan_output_axes", std::vector<int64_t>(k, 0));
    PTQ_ENFORCE(in_dirs_.size() == m && in_axes_.size() == m && out_dirs_.size() == k && out_axes_.size() == k,
                "the scan axes and directions attributes need one entry per scan input (", m, ") and output (", k, ")");
  }

  void Run(KernelContext& ctx) override {
    const int first = batched_ ? 1 : 0;
    std::vector<Tensor> states, scans;
    for (int i = 0; i < num_state_; ++i) states.push_back(ctx.required_input(first + i));
    for (int j = 0; j < num_scan_; ++j) scans.push_back(ctx.required_input(first + num_state_ + j));
    if (!batched_) {
      std::vector<Tensor> out = ScanOnce(states, scans, in_axes_, out_axes_, ctx);
      for (size_t i = 0; i < out.size(); ++i) ctx.outputs[i] = std::move(out[i]);
      return;
    }
    // Opset 8: scan each batch entry (axis 0) along axis 0 of its slices, then stack the entries.
    const int64_t batch = scans.front().rank() >= 1 ? scans.front().dim(0) : 0;
    PTQ_ENFORCE(batch > 0, "opset 8 Scan: the batch (axis 0 of the scan inputs) is empty");
    std::vector<Tensor*> all;
    for (Tensor& t : states) all.push_back(&t);
    for (Tensor& t : scans) all.push_back(&t);
    for (Tensor* t : all) {
      PTQ_ENFORCE(t->rank() >= 1 && t->dim(0) == batch, "opset 8 Scan: every input needs batch axis 0 of size ", batch,
                  ", got ", ShapeToString(t->shape()));
    }
    const std::vector<int64_t> zeros_in(static_cast<size_t>(num_scan_), 0), zeros_out(static_cast<size_t>(num_out_), 0);
    std::vector<std::vector<Tensor>> per_output(static_cast<size_t>(num_state_ + num_out_));
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<Tensor> bs, bx;
      for (const Tensor& t : states) bs.push_back(SliceAt(t, 0, b));
      for (const Tensor& t : scans) bx.push_back(SliceAt(t, 0, b));
      if (const Tensor* lens = ctx.input(0)) CheckFullLength(*lens, b, bx);
      std::vector<Tensor> out = ScanOnce(bs, bx, zeros_in, zeros_out, ctx);
      for (size_t i = 0; i < out.size(); ++i) per_output[i].push_back(std::move(out[i]));
    }
    for (size_t i = 0; i < per_output.size(); ++i) {
      CheckSameShapes(per_output[i], "output");
      ctx.outputs[i] = StackOn(per_output[i], 0);
    }
  }

 private:
  // One scan over `scans` (axes in_axes) from `states`; returns final states then scan outputs.
  std::vector<Tensor> ScanOnce(std::vector<Tensor> states, const std::vector<Tensor>& scans,
                               const std::vector<int64_t>& in_axes, const std::vector<int64_t>& out_axes,
                               const KernelContext& ctx) {
    std::vector<int64_t> axes;
    int64_t length = -1;
    for (size_t j = 0; j < scans.size(); ++j) {
      const int64_t axis = NormalizeAxis(in_axes[j], scans[j].rank());
      axes.push_back(axis);
      PTQ_ENFORCE(length < 0 || scans[j].dim(axis) == length, "scan inputs have different lengths: ", length, " and ",
                  scans[j].dim(axis), " (input ", ShapeToString(scans[j].shape()), ")");
      length = scans[j].dim(axis);
    }
    std::vector<std::vector<Tensor>> outs(static_cast<size_t>(num_out_));
    for (int64_t t = 0; t < length; ++t) {
      std::vector<Tensor> slices;
      for (size_t j = 0; j < scans.size(); ++j)
        slices.push_back(SliceAt(scans[j], axes[j], in_dirs_[j] ? length - 1 - t : t));
      std::vector<const Tensor*> inputs;
      for (const Tensor& s : states) inputs.push_back(&s);
      for (const Tensor& s : slices) inputs.push_back(&s);
      std::vector<Tensor> out = body_.Run(inputs, ctx);
      for (int i = 0; i < num_state_; ++i) states[static_cast<size_t>(i)] = std::move(out[static_cast<size_t>(i)]);
      for (int k = 0; k < num_out_; ++k)
        outs[static_cast<size_t>(k)].push_back(std::move(out[static_cast<size_t>(num_state_ + k)]));
    }
    PTQ_ENFORCE(length > 0, "the scan inputs are empty along the scan axis (ptq needs at least one iteration)");
    for (int k = 0; k < num_out_; ++k) {
      std::vector<Tensor>& list = outs[static_cast<size_t>(k)];
      CheckSameShapes(list, "scan output");
      if (out_dirs_[static_cast<size_t>(k)]) std::reverse(list.begin(), list.end());
      const int64_t rank = list.front().rank() + 1;
      const int64_t a = out_axes[static_cast<size_t>(k)];
      PTQ_ENFORCE(a >= -rank && a < rank, "scan_output_axes[", k, "] is ", a, ", out of range for rank ", rank);
      states.push_back(StackOn(list, a < 0 ? a + rank : a));
    }
    return states;
  }

  static void CheckSameShapes(const std::vector<Tensor>& list, const char* what) {
    for (const Tensor& t : list) {
      PTQ_ENFORCE(t.dtype() == list.front().dtype() && t.shape() == list.front().shape(), what, " changes from ",
                  DataTypeName(list.front().dtype()), " ", ShapeToString(list.front().shape()), " to ",
                  DataTypeName(t.dtype()), " ", ShapeToString(t.shape()), " between iterations");
    }
  }

  // Opset 8: sequence_lens[b] must be the full length of the scan inputs of batch entry b.
  static void CheckFullLength(const Tensor& lens, int64_t b, const std::vector<Tensor>& scans) {
    PTQ_ENFORCE(
        (lens.dtype() == DataType::kInt32 || lens.dtype() == DataType::kInt64) && lens.rank() == 1 && lens.dim(0) > b,
        "input 'sequence_lens' must be a 1-D int32/int64 tensor with one entry per batch entry, got ",
        DataTypeName(lens.dtype()), " ", ShapeToString(lens.shape()));
    const int64_t len = static_cast<int64_t>(lens.GetAsDouble(b));
    for (const Tensor& s : scans) {
      PTQ_ENFORCE(s.rank() >= 1 && len == s.dim(0), "sequence_lens[", b, "] is ", len,
                  "; ptq supports only full-length sequences (", s.rank() >= 1 ? s.dim(0) : 0, ")");
    }
  }

  Subgraph body_;
  bool batched_;
  int64_t num_scan_;
  int num_state_ = 0;
  int num_out_ = 0;
  std::vector<int64_t> in_dirs_, in_axes_, out_dirs_, out_axes_;
};

}  // namespace

std::unique_ptr<Kernel> MakeScan(const KernelInit& init) { return MakeKernel<Scan>(init); }

}  // namespace ptq
