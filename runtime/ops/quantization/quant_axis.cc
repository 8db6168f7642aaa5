// Per-tensor / per-axis / blocked scale indexing shared by QuantizeLinear and DequantizeLinear.
#include "runtime/ops/quantization/quant_axis.h"

#include "runtime/shape_util.h"

namespace ptq {

namespace {

bool IsPerTensorShape(const Shape& s) { return s.empty() || (s.size() == 1 && s[0] == 1); }

}  // namespace

QuantGranularity ResolveQuantGranularity(const Shape& x_shape, const Shape& scale_shape,
                                         const Shape* zero_point_shape, int64_t axis, int64_t block_size,
                                         bool per_axis_allowed, const QuantParamNames& names) {
  QuantGranularity g;
  const int64_t rank = static_cast<int64_t>(x_shape.size());
  PTQ_ENFORCE(block_size >= 0, "attribute 'block_size' must be >= 0, got ", block_size);

  if (block_size == 0 && IsPerTensorShape(scale_shape)) {
    PTQ_ENFORCE(!zero_point_shape || IsPerTensorShape(*zero_point_shape), names.zero_point,
                " must be a scalar or a 1-element 1-D tensor like ", names.scale, ", got shape ",
                ShapeToString(*zero_point_shape));
    g.inner = ShapeSize(x_shape);
    return g;
  }

  PTQ_ENFORCE(block_size > 0 || per_axis_allowed, names.scale,
              " must be a scalar or a 1-element 1-D tensor at this opset (per-axis needs opset 13), got shape ",
              ShapeToString(scale_shape));
  PTQ_ENFORCE(axis >= -rank && axis < rank, "attribute 'axis' = ", axis, " is out of range for x of rank ",
              rank);
  const int64_t ax = NormalizeAxis(axis, rank);
  const int64_t dim = x_shape[static_cast<size_t>(ax)];
  g.outer = SizeOfRange(x_shape, 0, ax);
  g.axis_dim = dim;
  g.inner = SizeOfRange(x_shape, ax + 1, rank);

  if (block_size == 0) {  // per-axis
    PTQ_ENFORCE(scale_shape.size() == 1 && scale_shape[0] == dim, names.scale,
                " must be a scalar or a 1-D tensor of length x.shape[", ax, "] = ", dim,
                " for per-axis quantization, got shape ", ShapeToString(scale_shape));
    g.axis_stride = 1;
  } else {  // blocked
    Shape expected = x_shape;
    expected[static_cast<size_t>(ax)] = (dim + block_size - 1) / block_size;
    PTQ_ENFORCE(scale_shape == expected, names.scale, " must have shape ", ShapeToString(expected),
                " for blocked quantization of x ", ShapeToString(x_shape), " along axis ", ax,
                " with block_size ", block_size, ", got shape ", ShapeToString(scale_shape));
    g.block = block_size;
    g.inner_stride = 1;
    g.axis_stride = g.inner;
    g.outer_stride = expected[static_cast<size_t>(ax)] * g.inner;
  }
  PTQ_ENFORCE(!zero_point_shape || *zero_point_shape == scale_shape, names.zero_point,
              " must have the shape of ", names.scale, " ", ShapeToString(scale_shape), ", got shape ",
              ShapeToString(*zero_point_shape));
  return g;
}

}  // namespace ptq
