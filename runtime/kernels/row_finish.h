// RowFinish: a further step a kernel applies in place to each run of outputs once stored, while it is in cache.
#pragma once

#include <cstdint>
#include <functional>

namespace ptq {

// An element-wise function applied in place to n outputs (an activation, an element-wise chain).
template <class T>
using RowFinish = std::function<void(T* row, int64_t n)>;
using FloatRowFinish = RowFinish<float>;

}  // namespace ptq
