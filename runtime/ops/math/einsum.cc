// Einsum: diagonals and sums as strided views and reductions, each pairwise contraction as a batched GEMM.
#include "runtime/ops/math/einsum.h"

#include <algorithm>
#include <set>

#include "runtime/ops/tensor/copy_util.h"
#include "runtime/ops/math/einsum_equation.h"
#include "runtime/ops/math/float_compute.h"
#include "runtime/kernels/gemm_f32/row_major_gemm.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

using LabelSet = std::set<int>;

// A strided view with one distinct label per axis; `storage` keeps the viewed buffer alive.
template <class T>
struct Operand {
  Tensor storage;
  const T* data = nullptr;
  std::vector<int> labels;
  Shape sizes;
  std::vector<int64_t> strides;  // in elements

  int Axis(int label) const {
    const auto it = std::find(labels.begin(), labels.end(), label);
    return it == labels.end() ? -1 : static_cast<int>(it - labels.begin());
  }
};

bool Contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The view of an input: a repeated label becomes one axis with the summed stride (the diagonal);
// a size-1 axis whose label is larger elsewhere is dropped (it broadcasts).
template <class T>
Operand<T> ViewInput(const Tensor& t, const std::vector<int>& labels, const EinsumEquation& eq) {
  Operand<T> op;
  op.storage = t;
  op.data = t.data<T>();
  const std::vector<int64_t> strides = Strides(t.shape());
  for (size_t a = 0; a < labels.size(); ++a) {
    const int axis = op.Axis(labels[a]);
    if (axis >= 0) {
      PTQ_ENFORCE(op.sizes[static_cast<size_t>(axis)] == t.dim(static_cast<int64_t>(a)), "attribute 'equation': a ",
                  "label repeated within a term must have equal sizes, got shape ", ShapeToString(t.shape()));
      op.strides[static_cast<size_t>(axis)] += strides[a];
    } else if (t.dim(static_cast<int64_t>(a)) == 1 && eq.sizes.at(labels[a]) != 1) {
      continue;
    } else {
      op.labels.push_back(labels[a]);
      op.sizes.push_back(t.dim(static_cast<int64_t>(a)));
      op.strides.push_back(strides[a]);
    }
  }
  return op;
}

// A contiguous operand with the given labels and sizes, zero-filled.
template <class T>
Operand<T> NewOperand(const std::vector<int>& labels, const Shape& sizes) {
  Operand<T> op;
  op.storage = Tensor(DataTypeOf<T>::value, sizes);
  op.data = op.storage.template data<T>();
  op.labels = labels;
  op.sizes = sizes;
  op.strides = Strides(sizes);
  return op;
}

// out[kept axes] = sum over the `drop` axes of op (kept axes stay in op's order).
template <class T>
Operand<T> SumOut(const Operand<T>& op, const LabelSet& drop) {
  std::vector<int> labels;
  Shape sizes;
  for (size_t a = 0; a < op.labels.size(); ++a) {
    if (!drop.count(op.labels[a])) {
      labels.push_back(op.labels[a]);
      sizes.push_back(op.sizes[a]);
    }
  }
  if (labels.size() == op.labels.size()) return op;
  Operand<T> out = NewOperand<T>(labels, sizes);
  T* dst = out.storage.template data<T>();
  std::vector<int64_t> dst_strides(op.labels.size(), 0);
  for (size_t a = 0; a < op.labels.size(); ++a) {
    const int axis = out.Axis(op.labels[a]);
    if (axis >= 0) dst_strides[a] = out.strides[static_cast<size_t>(axis)];
  }
  if (ShapeSize(op.sizes) == 0) return out;
  const size_t n = op.sizes.size();
  std::vector<int64_t> idx(n, 0);
  int64_t src = 0, dst_off = 0;
  for (;;) {
    dst[dst_off] += op.data[src];
    size_t d = n;
    while (d-- > 0) {
      src += op.strides[d];
      dst_off += dst_strides[d];
      if (++idx[d] < op.sizes[d]) break;
      src -= op.strides[d] * op.sizes[d];
      dst_off -= dst_strides[d] * op.sizes[d];
      idx[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) break;
  }
  return out;
}

// True when op's axes taken in `order` are row-major contiguous (size-1 axes ignored).
template <class T>
bool IsContiguousIn(const Operand<T>& op, const std::vector<int>& order) {
  int64_t expected = 1;
  for (size_t i = order.size(); i-- > 0;) {
    const size_t a = static_cast<size_t>(op.Axis(order[i]));
    if (op.sizes[a] == 1) continue;
    if (op.strides[a] != expected) return false;
    expected *= op.sizes[a];
  }
  return true;
}

// op with its axes in `order`, contiguous (a copy unless it already is).
template <class T>
Operand<T> Arranged(const Operand<T>& op, const std::vector<int>& order) {
  if (IsContiguousIn(op, order)) {
    Operand<T> out = op;
    Shape sizes;
    for (int label : order) sizes.push_back(op.sizes[static_cast<size_t>(op.Axis(label))]);
    out.labels = order;
    out.sizes = sizes;
    out.strides = Strides(sizes);
    return out;
  }
  Shape sizes;
  std::vector<int64_t> strides;
  for (int label : order) {
    const size_t a = static_cast<size_t>(op.Axis(label));
    sizes.push_back(op.sizes[a]);
    strides.push_back(op.strides[a]);
  }
  Operand<T> out = NewOperand<T>(order, sizes);
  CopyStrided(op.data, 0, strides, sizes, sizeof(T), out.storage.template data<T>());
  return out;
}

std::vector<int> Concat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

template <class T>
int64_t GroupSize(const Operand<T>& op, const std::vector<int>& labels) {
  int64_t p = 1;
  for (int label : labels) p *= op.sizes[static_cast<size_t>(op.Axis(label))];
  return p;
}

// C[batch, m, n] = sum_k A[batch, m, k] * B[batch, k, n], where batch = labels of both kept
// later, k = labels of both not kept, m = A's own kept labels, n = B's own kept labels. Labels
// found in only one operand and not kept are summed out first.
template <class T>
Operand<T> Contract(const Operand<T>& a_in, const Operand<T>& b_in, const LabelSet& kept) {
  LabelSet drop_a, drop_b;
  for (int l : a_in.labels) {
    if (!kept.count(l) && !Contains(b_in.labels, l)) drop_a.insert(l);
  }
  for (int l : b_in.labels) {
    if (!kept.count(l) && !Contains(a_in.labels, l)) drop_b.insert(l);
  }
  const Operand<T> a = SumOut(a_in, drop_a);
  const Operand<T> b = SumOut(b_in, drop_b);
  std::vector<int> batch, m, k, n;
  for (int l : a.labels) {
    const bool in_b = Contains(b.labels, l);
    (in_b ? (kept.count(l) ? batch : k) : m).push_back(l);
  }
  for (int l : b.labels) {
    if (!Contains(a.labels, l)) n.push_back(l);
  }

  const bool trans_a =
      !IsContiguousIn(a, Concat(Concat(batch, m), k)) && IsContiguousIn(a, Concat(Concat(batch, k), m));
  const bool trans_b =
      !IsContiguousIn(b, Concat(Concat(batch, k), n)) && IsContiguousIn(b, Concat(Concat(batch, n), k));
  const Operand<T> am = Arranged(a, trans_a ? Concat(Concat(batch, k), m) : Concat(Concat(batch, m), k));
  const Operand<T> bm = Arranged(b, trans_b ? Concat(Concat(batch, n), k) : Concat(Concat(batch, k), n));
  const int64_t batches = GroupSize(a, batch), M = GroupSize(a, m), K = GroupSize(a, k), N = GroupSize(b, n);
  Shape sizes;
  const std::vector<int> labels = Concat(Concat(batch, m), n);
  for (int l : labels) {
    const Operand<T>& owner = a.Axis(l) >= 0 ? a : b;
    sizes.push_back(owner.sizes[static_cast<size_t>(owner.Axis(l))]);
  }
  Operand<T> c = NewOperand<T>(labels, sizes);
  T* pc = c.storage.template data<T>();
  for (int64_t i = 0; i < batches; ++i) {
    RowMajorGemm<T>(trans_a, trans_b, M, N, K, T(1), am.data + i * M * K, trans_a ? M : K, bm.data + i * K * N,
                    trans_b ? K : N, T(0), pc + i * M * N, N);
  }
  return c;
}

// The einsum of the inputs, computed in T (their type, or float32 for float16/bfloat16 inputs).
template <class T>
Tensor EinsumTyped(const EinsumEquation& eq, const std::vector<Tensor>& inputs) {
  const size_t count = inputs.size();
  // kept_after[i]: labels needed once operands 0..i are combined (output and later operands).
  std::vector<LabelSet> kept_after(count);
  LabelSet kept(eq.output.begin(), eq.output.end());
  for (size_t i = count; i-- > 0;) {
    kept_after[i] = kept;
    kept.insert(eq.inputs[i].begin(), eq.inputs[i].end());
  }
  Operand<T> acc = ViewInput<T>(inputs[0], eq.inputs[0], eq);
  for (size_t i = 1; i < count; ++i) {
    acc = Contract(acc, ViewInput<T>(inputs[i], eq.inputs[i], eq), kept_after[i]);
  }
  LabelSet drop;
  for (int l : acc.labels) {
    if (!Contains(eq.output, l)) drop.insert(l);
  }
  acc = SumOut(acc, drop);

  // Output axes; a label dropped as a broadcast size-1 axis everywhere has size 1.
  Shape out_shape;
  std::vector<int> present;
  for (int l : eq.output) {
    out_shape.push_back(acc.Axis(l) >= 0 ? acc.sizes[static_cast<size_t>(acc.Axis(l))] : 1);
    if (acc.Axis(l) >= 0) present.push_back(l);
  }
  const Operand<T> result = Arranged(acc, present);
  if (result.storage.raw() == result.data && result.storage.size() == ShapeSize(out_shape)) {
    return result.storage.Reshaped(out_shape);
  }
  Tensor y(DataTypeOf<T>::value, out_shape);
  std::copy(result.data, result.data + y.size(), y.data<T>());
  return y;
}

class EinsumKernel final : public Kernel {
 public:
  explicit EinsumKernel(const KernelInit& init) : equation_(init.attrs->GetString("equation", "")) {
    PTQ_ENFORCE(!equation_.empty(), "attribute 'equation' is required");
  }

  void Run(KernelContext& ctx) override {
    PTQ_ENFORCE(ctx.num_inputs() >= 1, "Einsum needs at least one input");
    std::vector<Tensor> inputs;
    std::vector<Shape> shapes;
    const DataType dtype = ctx.required_input(0).dtype();
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = ctx.required_input(i);
      PTQ_ENFORCE(t.dtype() == dtype, "input ", i, " has type ", DataTypeName(t.dtype()), " but input 0 has ",
                  DataTypeName(dtype), "; all inputs must have the same type");
      inputs.push_back(IsHalfType(dtype) ? WidenToFloat(t) : t);
      shapes.push_back(t.shape());
    }
    const EinsumEquation eq = ParseEinsumEquation(equation_, shapes);
    switch (dtype) {
      case DataType::kFloat: ctx.outputs[0] = EinsumTyped<float>(eq, inputs); break;
      case DataType::kDouble: ctx.outputs[0] = EinsumTyped<double>(eq, inputs); break;
      case DataType::kInt32: ctx.outputs[0] = EinsumTyped<int32_t>(eq, inputs); break;
      case DataType::kInt64: ctx.outputs[0] = EinsumTyped<int64_t>(eq, inputs); break;
      case DataType::kUint32: ctx.outputs[0] = EinsumTyped<uint32_t>(eq, inputs); break;
      case DataType::kUint64: ctx.outputs[0] = EinsumTyped<uint64_t>(eq, inputs); break;
      case DataType::kFloat16:
      case DataType::kBfloat16: ctx.outputs[0] = NarrowFromFloat(EinsumTyped<float>(eq, inputs), dtype); break;
      default:
        ThrowInputError("input 0 has type ", DataTypeName(dtype),
                        "; Einsum supports float32, float64, float16, bfloat16, int32, int64, uint32, uint64");
    }
  }

 private:
  std::string equation_;
};

}  // namespace

std::unique_ptr<Kernel> MakeEinsum(const KernelInit& init) { return MakeKernel<EinsumKernel>(init); }

}  // namespace ptq
