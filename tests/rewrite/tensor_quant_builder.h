// TensorQuant entries for hand-made calibration tables in rewrite tests (zero points 0).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runtime/quant_table.h"

namespace ptq {
namespace testing {

inline TensorQuant Param(TensorRole role, std::vector<float> scales, DataType dtype, int64_t axis = -1) {
  TensorQuant q;
  q.role = role;
  q.dtype = dtype;
  q.zero_points.assign(scales.size(), 0);
  q.scales = std::move(scales);
  q.axis = axis;
  return q;
}

}  // namespace testing
}  // namespace ptq
