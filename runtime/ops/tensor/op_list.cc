// Kernel list of the tensor ops: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/tensor/compress.h"
#include "runtime/ops/tensor/concat.h"
#include "runtime/ops/tensor/constant_of_shape.h"
#include "runtime/ops/tensor/depth_to_space.h"
#include "runtime/ops/tensor/expand.h"
#include "runtime/ops/tensor/eye_like.h"
#include "runtime/ops/tensor/flatten.h"
#include "runtime/ops/tensor/gather.h"
#include "runtime/ops/tensor/gather_elements.h"
#include "runtime/ops/tensor/gather_nd.h"
#include "runtime/ops/tensor/identity.h"
#include "runtime/ops/tensor/non_zero.h"
#include "runtime/ops/tensor/one_hot.h"
#include "runtime/ops/tensor/pad.h"
#include "runtime/ops/tensor/range.h"
#include "runtime/ops/tensor/reshape.h"
#include "runtime/ops/tensor/reverse_sequence.h"
#include "runtime/ops/tensor/scatter_elements.h"
#include "runtime/ops/tensor/scatter_nd.h"
#include "runtime/ops/tensor/shape.h"
#include "runtime/ops/tensor/size.h"
#include "runtime/ops/tensor/slice.h"
#include "runtime/ops/tensor/space_to_depth.h"
#include "runtime/ops/tensor/split.h"
#include "runtime/ops/tensor/squeeze.h"
#include "runtime/ops/tensor/tile.h"
#include "runtime/ops/tensor/transpose.h"
#include "runtime/ops/tensor/trilu.h"
#include "runtime/ops/tensor/unique.h"
#include "runtime/ops/tensor/unsqueeze.h"

namespace ptq {

void RegisterTensorOps(OpRegistry& r) {
  r.Add({"", "Reshape", 1, 21, MakeReshape});
  r.Add({"", "Shape", 1, 21, MakeShape});
  r.Add({"", "Size", 1, 21, MakeSize});
  r.Add({"", "Flatten", 1, 21, MakeFlatten});
  r.Add({"", "Squeeze", 1, 21, MakeSqueeze});
  r.Add({"", "Unsqueeze", 1, 21, MakeUnsqueeze});
  r.Add({"", "Identity", 1, 21, MakeIdentity});
  r.Add({"", "Transpose", 1, 21, MakeTranspose});
  r.Add({"", "Concat", 1, 21, MakeConcat});
  r.Add({"", "Split", 1, 21, MakeSplit});
  r.Add({"", "Slice", 1, 21, MakeSlice});
  r.Add({"", "Gather", 1, 21, MakeGather});
  r.Add({"", "GatherElements", 11, 21, MakeGatherElements});
  r.Add({"", "GatherND", 11, 21, MakeGatherND});
  r.Add({"", "ScatterND", 11, 21, MakeScatterND});
  r.Add({"", "ScatterElements", 11, 21, MakeScatterElements});
  r.Add({"", "Scatter", 9, 10, MakeScatter});
  r.Add({"", "NonZero", 9, 21, MakeNonZero});
  r.Add({"", "OneHot", 9, 21, MakeOneHot});
  r.Add({"", "Compress", 9, 21, MakeCompress});
  r.Add({"", "ReverseSequence", 10, 21, MakeReverseSequence});
  r.Add({"", "Unique", 11, 21, MakeUnique});
  r.Add({"", "Expand", 8, 21, MakeExpand});
  r.Add({"", "Tile", 1, 21, MakeTile});
  r.Add({"", "Pad", 1, 21, MakePad});
  r.Add({"", "ConstantOfShape", 9, 21, MakeConstantOfShape});
  r.Add({"", "Range", 11, 21, MakeRange});
  r.Add({"", "Trilu", 14, 21, MakeTrilu});
  r.Add({"", "EyeLike", 9, 21, MakeEyeLike});
  r.Add({"", "DepthToSpace", 1, 21, MakeDepthToSpace});
  r.Add({"", "SpaceToDepth", 1, 21, MakeSpaceToDepth});
}

}  // namespace ptq
