// Loop kernel. Inputs M (int64 trip count, optional), cond (bool, optional), v_initial[N]; body
// (i, cond, v[N]) -> (cond, v[N], scan[K]); outputs v_final[N], scan_outputs[K].
//   i = 0; c = cond or true; v = v_initial
//   while ((M absent or i < M) and c): (c, v, s) = body(i, c, v); append s to the scans; ++i
// A scan output stacks its K-th body output of every iteration on a new axis 0 (each iteration must
// give the same type and shape); after zero iterations it is empty: [0, declared dims] when the body
// declares a fixed shape, else [0]. As ONNX Runtime, the body's condition output is honoured even
// when the cond input is omitted.
#include "runtime/ops/control/loop.h"

#include <cstring>
#include <limits>

#include "runtime/ops/control/subgraph.h"

namespace ptq {
namespace {

// The value of a one-element int64 tensor (M).
int64_t OneInt64(const Tensor& t, const char* what) {
  PTQ_ENFORCE(t.dtype() == DataType::kInt64 && t.size() == 1, what, " must be one int64, got ", DataTypeName(t.dtype()),
              " of shape ", ShapeToString(t.shape()));
  return t.data<int64_t>()[0];
}

// The value of a one-element bool tensor (cond), read as a byte: non-zero is true.
bool OneBool(const Tensor& t, const char* what) {
  PTQ_ENFORCE(t.dtype() == DataType::kBool && t.size() == 1, what, " must be one bool, got ", DataTypeName(t.dtype()),
              " of shape ", ShapeToString(t.shape()));
  return static_cast<const uint8_t*>(t.raw())[0] != 0;
}

class Loop : public Kernel {
 public:
  explicit Loop(const KernelInit& init) : body_(init, "body"), num_carried_(init.num_inputs - 2) {
    PTQ_ENFORCE(num_carried_ >= 0, "needs inputs 'M' and 'cond' (either may be \"\"), got ", init.num_inputs,
                " inputs");
    PTQ_ENFORCE(body_.num_inputs() == 2 + num_carried_, "attribute 'body' has ", body_.num_inputs(),
                " inputs; it needs 2 + ", num_carried_, " (iteration, condition and the loop-carried values)");
    num_scans_ = body_.num_outputs() - 1 - num_carried_;
    PTQ_ENFORCE(num_scans_ >= 0 && init.num_outputs == num_carried_ + num_scans_, "attribute 'body' has ",
                body_.num_outputs(), " outputs; with ", num_carried_, " loop-carried values the node needs ",
                body_.num_outputs() - 1, " outputs, has ", init.num_outputs);
  }

  void Run(KernelContext& ctx) override {
    int64_t max_trips = std::numeric_limits<int64_t>::max();
    if (const Tensor* m = ctx.input(0)) max_trips = OneInt64(*m, "input 'M'");
    bool cond = true;
    if (const Tensor* c = ctx.input(1)) cond = OneBool(*c, "input 'cond'");
    std::vector<Tensor> carried;
    for (int j = 0; j < num_carried_; ++j) carried.push_back(ctx.required_input(2 + j));
    std::vector<std::vector<Tensor>> scans(static_cast<size_t>(num_scans_));
    std::vector<int64_t> scan_bytes(static_cast<size_t>(num_scans_), 0);
    for (int64_t i = 0; i < max_trips && cond; ++i) {
      const Tensor iter = Tensor::Scalar<int64_t>(i);
      const Tensor cond_in = Tensor::Scalar<bool>(cond);
      std::vector<const Tensor*> inputs = {&iter, &cond_in};
      for (const Tensor& v : carried) inputs.push_back(&v);
      std::vector<Tensor> out = body_.Run(inputs, ctx);
      cond = OneBool(out[0], "the body's condition output");
      for (int j = 0; j < num_carried_; ++j) {
        Tensor& v = out[static_cast<size_t>(1 + j)];
        PTQ_ENFORCE(v.dtype() == carried[static_cast<size_t>(j)].dtype(), "loop-carried value ", j,
                    " changes type from ", DataTypeName(carried[static_cast<size_t>(j)].dtype()), " to ",
                    DataTypeName(v.dtype()), " in iteration ", i);
        carried[static_cast<size_t>(j)] = std::move(v);
      }
      for (int k = 0; k < num_scans_; ++k)
        AddScan(k, i, std::move(out[static_cast<size_t>(1 + num_carried_ + k)]), &scans[static_cast<size_t>(k)],
                &scan_bytes[static_cast<size_t>(k)]);
    }
    for (int j = 0; j < num_carried_; ++j)
      ctx.outputs[static_cast<size_t>(j)] = std::move(carried[static_cast<size_t>(j)]);
    for (int k = 0; k < num_scans_; ++k) {
      ctx.outputs[static_cast<size_t>(num_carried_ + k)] = Stack(k, scans[static_cast<size_t>(k)]);
    }
  }

 private:
  // Appends iteration i's value of scan output k, checking it against the first iteration's and
  // the stacked size against MaxTensorBytes() before the loop runs on.
  void AddScan(int k, int64_t i, Tensor v, std::vector<Tensor>* list, int64_t* bytes) const {
    if (!list->empty()) {
      const Tensor& first = list->front();
      PTQ_ENFORCE(v.dtype() == first.dtype() && v.shape() == first.shape(), "scan output ", k, " is ",
                  DataTypeName(v.dtype()), " ", ShapeToString(v.shape()), " in iteration ", i, " but ",
                  DataTypeName(first.dtype()), " ", ShapeToString(first.shape()), " in iteration 0");
    }
    *bytes += static_cast<int64_t>(v.nbytes());
    PTQ_ENFORCE(*bytes <= MaxTensorBytes(), "scan output ", k, " grows beyond the tensor size limit of ",
                MaxTensorBytes(), " bytes after ", i + 1, " iterations");
    list->push_back(std::move(v));
  }

  // The per-iteration values of scan output k stacked on a new axis 0.
  Tensor Stack(int k, const std::vector<Tensor>& list) const {
    if (list.empty()) {
      const ValueInfo& info = body_.graph().outputs[static_cast<size_t>(1 + num_carried_ + k)];
      Shape shape = {0};
      bool fixed = info.has_shape;
      for (const Dim& d : info.shape) fixed = fixed && d.value >= 0;
      for (const Dim& d : info.shape) {
        if (fixed) shape.push_back(d.value);
      }
      return Tensor(info.dtype == DataType::kUndefined ? DataType::kFloat : info.dtype, shape);
    }
    Shape shape = list.front().shape();
    shape.insert(shape.begin(), static_cast<int64_t>(list.size()));
    Tensor out = Tensor::Uninitialized(list.front().dtype(), shape);
    char* dst = static_cast<char*>(out.raw());
    for (const Tensor& t : list) {
      if (t.nbytes() > 0) std::memcpy(dst, t.raw(), t.nbytes());
      dst += t.nbytes();
    }
    return out;
  }

  Subgraph body_;
  int num_carried_;
  int num_scans_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeLoop(const KernelInit& init) { return MakeKernel<Loop>(init); }

}  // namespace ptq
