// QdqIndex: the quantization nodes around an op, and one-off kernel evaluation.
#include "runtime/qdq_match.h"

#include <memory>

#include "runtime/op_registry.h"

namespace ptq {
namespace {

bool Is8Bit(DataType t) { return t == DataType::kUint8 || t == DataType::kInt8; }

}  // namespace

bool QdqIndex::Dequantized(const std::string& name, bool weight, int64_t axis, DqNode* dq) const {
  const size_t p = Producer(name);
  if (p == kNone) return false;
  const Node& n = graph().nodes[p];
  if (!n.domain.empty() || n.op_type != "DequantizeLinear" || n.inputs.size() < 3 || n.inputs[2].empty()) return false;
  if (n.attrs.Has("block_size")) return false;
  DqNode d{&n, Constant(n.inputs[1]), Constant(n.inputs[2])};
  if (!d.scale || !d.zero_point || d.scale->dtype() != DataType::kFloat || !Is8Bit(d.zero_point->dtype())) {
    return false;
  }
  if (d.scale->size() != d.zero_point->size() || d.scale->rank() > 1) return false;
  const Tensor* q = Constant(n.inputs[0]);
  bool ok;
  if (!weight) {
    ok = d.scale->size() == 1;
  } else if (d.scale->size() == 1) {
    ok = !q || q->dtype() == d.zero_point->dtype();
  } else {
    const int64_t a = n.attrs.GetInt("axis", 1);
    ok = q && q->dtype() == d.zero_point->dtype() && q->rank() > axis && (a == axis || a == axis - q->rank());
  }
  if (ok) *dq = d;
  return ok;
}

size_t QdqIndex::OnlyQuantizeReader(const std::string& name) const {
  const size_t r = OnlyReader(name);
  if (r == kNone) return kNone;
  const Node& n = graph().nodes[r];
  if (!n.domain.empty() || n.op_type != "QuantizeLinear" || n.inputs.size() < 3 || n.inputs[0] != name ||
      n.inputs[2].empty()) {
    return kNone;
  }
  const Tensor* scale = Constant(n.inputs[1]);
  const Tensor* zp = Constant(n.inputs[2]);
  if (!scale || !zp || scale->dtype() != DataType::kFloat || scale->size() != 1 || zp->size() != 1 ||
      !Is8Bit(zp->dtype())) {
    return kNone;
  }
  return r;
}

Tensor QdqIndex::Evaluate(const Node& n, const std::vector<const Tensor*>& inputs) const {
  const KernelDef* def = OpRegistry::Global().Find(n.domain, n.op_type, graph().OpsetFor(n.domain));
  if (def == nullptr) ThrowInputError("no kernel for ", n.op_type);
  KernelInit init;
  init.node_name = n.name;
  init.op_type = n.op_type;
  init.opset = graph().OpsetFor(n.domain);
  init.attrs = &n.attrs;
  init.num_inputs = static_cast<int>(inputs.size());
  init.num_outputs = static_cast<int>(n.outputs.size());
  init.const_inputs.assign(inputs.size(), nullptr);
  const std::unique_ptr<Kernel> kernel = def->factory(init);
  KernelContext ctx;
  ctx.inputs = inputs;
  ctx.outputs.resize(n.outputs.size());
  kernel->Run(ctx);
  return ctx.outputs[0];
}

Tensor QdqIndex::DequantizeEveryByte(const DqNode& x, Tensor* bytes) const {
  Tensor every(x.zero_point->dtype(), {256});
  for (int b = 0; b < 256; ++b) static_cast<uint8_t*>(every.raw())[b] = static_cast<uint8_t>(b);
  Tensor real = Evaluate(*x.node, {&every, x.scale, x.zero_point});
  if (bytes) *bytes = std::move(every);
  return real;
}

}  // namespace ptq
