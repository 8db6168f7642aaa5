// Broadcast planning, old-opset broadcast alignment and type errors for the element-wise kernels.
#include "runtime/ops/math/elementwise.h"

#include "runtime/shape_util.h"

namespace ptq {

void ThrowUnsupportedType(const std::string& op, const std::string& input, DataType t, unsigned types) {
  std::string names;
  auto add = [&](unsigned set, const char* text) {
    if ((types & set) == 0) return;
    if (!names.empty()) names += ", ";
    names += text;
  };
  add(kFloatTypes, "float32, float64, float16, bfloat16");
  add(kSignedIntTypes, "int8, int16, int32, int64");
  add(kUnsignedIntTypes, "uint8, uint16, uint32, uint64");
  add(kBoolType, "bool");
  add(kInt4Types, "int4, uint4");
  ThrowInputError(op, ": input '", input, "' has type ", DataTypeName(t), "; supported types: ", names);
}

BroadcastPlan PlanBroadcast(const std::vector<const Shape*>& shapes) {
  BroadcastPlan p;
  p.out_shape = *shapes[0];
  for (size_t k = 1; k < shapes.size(); ++k) p.out_shape = BroadcastShapes(p.out_shape, *shapes[k]);
  p.out_size = ShapeSize(p.out_shape);
  const size_t n = shapes.size();
  p.inner_step.assign(n, 0);
  p.outer_strides.assign(n, {});
  if (p.out_size == 0) {
    p.inner = 0;
    return p;
  }
  std::vector<std::vector<int64_t>> strides(n);
  for (size_t k = 0; k < n; ++k) strides[k] = BroadcastStrides(*shapes[k], p.out_shape);

  // Merge axes from the innermost outwards. Axis i joins the group to its right when every input
  // continues the group's walk: stride[i] == group stride * group size (both 0 when broadcast).
  std::vector<int64_t> dims;                        // merged axes, innermost first
  std::vector<std::vector<int64_t>> group_strides(n);  // [input][merged axis], innermost first
  for (size_t i = p.out_shape.size(); i-- > 0;) {
    const int64_t d = p.out_shape[i];
    if (d == 1) continue;
    bool merge = !dims.empty();
    for (size_t k = 0; k < n && merge; ++k) {
      merge = strides[k][i] == group_strides[k].back() * dims.back();
    }
    if (merge) {
      dims.back() *= d;
    } else {
      dims.push_back(d);
      for (size_t k = 0; k < n; ++k) group_strides[k].push_back(strides[k][i]);
    }
  }
  if (dims.empty()) {  // every axis has size 1: one element
    p.inner = 1;
    return p;
  }
  p.inner = dims[0];
  for (size_t k = 0; k < n; ++k) p.inner_step[k] = group_strides[k][0];
  for (size_t g = dims.size(); g-- > 1;) p.outer_dims.push_back(dims[g]);
  for (size_t k = 0; k < n; ++k) {
    for (size_t g = dims.size(); g-- > 1;) p.outer_strides[k].push_back(group_strides[k][g]);
  }
  return p;
}

LegacyBroadcast ReadLegacyBroadcast(const KernelInit& init) {
  LegacyBroadcast legacy;
  if (init.opset >= 7 || init.attrs == nullptr) return legacy;
  legacy.enabled = init.attrs->GetInt("broadcast", 0) != 0;
  legacy.has_axis = init.attrs->Has("axis");
  legacy.axis = init.attrs->GetInt("axis", 0);
  return legacy;
}

Tensor AlignLegacyB(const LegacyBroadcast& legacy, const Tensor& a, const Tensor& b, const std::string& op) {
  if (!legacy.has_axis) return b;  // trailing alignment is numpy's
  const int64_t axis = NormalizeAxis(legacy.axis, a.rank());
  PTQ_ENFORCE(axis + b.rank() <= a.rank(), op, ": input 'B' of shape ", ShapeToString(b.shape()),
              " does not fit input 'A' of shape ", ShapeToString(a.shape()), " from attribute axis=", legacy.axis);
  Shape shape(static_cast<size_t>(axis), 1);
  shape.insert(shape.end(), b.shape().begin(), b.shape().end());
  shape.resize(static_cast<size_t>(a.rank()), 1);
  for (size_t i = 0; i < shape.size(); ++i) {
    PTQ_ENFORCE(shape[i] == 1 || shape[i] == a.shape()[i], op, ": input 'B' of shape ", ShapeToString(b.shape()),
                " does not broadcast to input 'A' of shape ", ShapeToString(a.shape()), " at axis=", legacy.axis);
  }
  return b.Reshaped(shape);
}

}  // namespace ptq
