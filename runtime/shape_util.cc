// Broadcasting and axis helpers.
#include "runtime/shape_util.h"

#include <algorithm>

namespace ptq {

Shape BroadcastShapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      ThrowInputError("shapes ", ShapeToString(a), " and ", ShapeToString(b), " cannot be broadcast");
    }
  }
  return out;
}

std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> s(out.size(), 0);
  const std::vector<int64_t> in_strides = Strides(in);
  const size_t offset = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) {
    s[i + offset] = in[i] == 1 ? 0 : in_strides[i];
  }
  return s;
}

int64_t NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) ThrowInputError("axis ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

int64_t SizeOfRange(const Shape& shape, int64_t begin, int64_t end) {
  int64_t n = 1;
  for (int64_t i = begin; i < end; ++i) n *= shape[static_cast<size_t>(i)];
  return n;
}

}  // namespace ptq
