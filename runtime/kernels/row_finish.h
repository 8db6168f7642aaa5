// RowFinish: a further step a kernel applies in place to each run of outputs once stored, while it is in cache;
// FloatRowSink: where the finished values go when they are not to be stored.
#pragma once

#include <cstdint>
#include <functional>

namespace ptq {

// An element-wise function applied in place to n outputs (an activation, an element-wise chain).
template <class T>
using RowFinish = std::function<void(T* row, int64_t n)>;
using FloatRowFinish = RowFinish<float>;

// Where a kernel hands n finished float outputs instead of storing them: sink(values, n, at), `at` the place in the
// output the values stand for (not written; `values` is the kernel's own buffer, valid during the call).
using FloatRowSink = std::function<void(const float* values, int64_t n, const float* at)>;

}  // namespace ptq
