// Kernel list of the tensor family: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/compress.h"
#include "runtime/ops/concat.h"
#include "runtime/ops/constant_of_shape.h"
#include "runtime/ops/depth_to_space.h"
#include "runtime/ops/dropout.h"
#include "runtime/ops/expand.h"
#include "runtime/ops/eye_like.h"
#include "runtime/ops/flatten.h"
#include "runtime/ops/gather.h"
#include "runtime/ops/gather_elements.h"
#include "runtime/ops/gather_nd.h"
#include "runtime/ops/identity.h"
#include "runtime/ops/non_zero.h"
#include "runtime/ops/one_hot.h"
#include "runtime/ops/pad.h"
#include "runtime/ops/range.h"
#include "runtime/ops/reshape.h"
#include "runtime/ops/reverse_sequence.h"
#include "runtime/ops/scatter_elements.h"
#include "runtime/ops/scatter_nd.h"
#include "runtime/ops/shape.h"
#include "runtime/ops/size.h"
#include "runtime/ops/slice.h"
#include "runtime/ops/space_to_depth.h"
#include "runtime/ops/split.h"
#include "runtime/ops/squeeze.h"
#include "runtime/ops/tile.h"
#include "runtime/ops/transpose.h"
#include "runtime/ops/trilu.h"
#include "runtime/ops/unique.h"
#include "runtime/ops/unsqueeze.h"

namespace ptq {

void RegisterTensorOps(OpRegistry& r) {
  r.Add({"", "Reshape", 1, 21, MakeReshape});
  r.Add({"", "Shape", 1, 21, MakeShape});
  r.Add({"", "Size", 1, 21, MakeSize});
  r.Add({"", "Flatten", 1, 21, MakeFlatten});
  r.Add({"", "Squeeze", 1, 21, MakeSqueeze});
  r.Add({"", "Unsqueeze", 1, 21, MakeUnsqueeze});
  r.Add({"", "Identity", 1, 21, MakeIdentity});
  r.Add({"", "Dropout", 1, 21, MakeDropout});
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
